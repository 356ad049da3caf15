"""The package's frames against inspect_ai's own, on the sample ids and scores both have.

    python frames_vs_samples_df.py LOGS DATASET

LOGS is a folder of logs and DATASET the dataset ingested from it. Every
sample ``inspect_ai.analysis.samples_df(LOGS)`` lists (its log, id and epoch)
must be a row of ``replies_df``; a row of ``replies_df`` that samples_df lacks
must be a sample ``read_eval_log`` reads from a log whose samples samples_df
does not list at all (it reads sample summaries, which old ``.json`` logs do
not hold). Every score samples_df gives (``score_<scorer>``) must be the
value of that sample and scorer in ``scores_df``: a string, a number, or a
dict or list as samples_df writes it (its JSON text). Prints one JSON line;
exits 1 on any difference.
"""

from __future__ import annotations

import json
import logging
import math
import os
import sys
import warnings
from typing import Any

import pandas as pd

import empties


def same(ours: Any, theirs: Any) -> bool:
    if isinstance(ours, (dict, list)):
        return json.dumps(ours) == theirs
    if isinstance(ours, float) and isinstance(theirs, float) and math.isnan(ours) and math.isnan(theirs):
        return True
    if isinstance(ours, bool) or isinstance(theirs, bool):
        return ours == theirs and type(ours) is type(theirs)
    return bool(ours == theirs)


def main() -> int:
    logs, ds = sys.argv[1], sys.argv[2]
    logging.getLogger("inspect_ai").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore")
    from inspect_ai.analysis import samples_df
    from inspect_ai.log import read_eval_log

    theirs, errors = samples_df(logs, strict=False, quiet=True)
    replies = empties.replies_df(ds).merge(empties.logs_df(ds)[["log_id", "path"]], on="log_id")
    scores = empties.scores_df(ds).merge(empties.logs_df(ds)[["log_id", "path"]], on="log_id")
    diffs: list[str] = [f"samples_df could not read {e}" for e in errors]

    # a log by its real path: both read it through symlinks the other may not take
    key = lambda log, sid, epoch: (os.path.realpath(log), str(sid), int(epoch))  # noqa: E731
    ours = {key(p, s, e) for p, s, e in zip(replies.path, replies.sample_id, replies.epoch)}
    inspect_keys = {key(p, s, e) for p, s, e in zip(theirs.log, theirs["id"], theirs.epoch)}
    for k in sorted(inspect_keys - ours):
        diffs.append(f"samples_df has {k}, replies_df has no row")
    extra = ours - inspect_keys
    listed_logs = {k[0] for k in inspect_keys}
    for log in sorted({k[0] for k in extra}):
        if log in listed_logs:
            diffs.append(f"{log}: replies_df has samples samples_df does not list, though it lists others of this log")
            continue
        read = {key(log, s.id, s.epoch) for s in read_eval_log(log).samples or []}
        for k in sorted(x for x in extra if x[0] == log and x not in read):
            diffs.append(f"replies_df has {k}, which neither samples_df nor read_eval_log has")

    by_key = {(os.path.realpath(p), str(s), int(e), sc): v for p, s, e, sc, v in zip(scores.path, scores.sample_id, scores.epoch, scores.scorer, scores.value_json)}
    compared = 0
    for col in [c for c in theirs.columns if c.startswith("score_")]:
        scorer = col.removeprefix("score_")
        for log, sid, epoch, value in zip(theirs.log, theirs["id"], theirs.epoch, theirs[col]):
            if value is pd.NA or value is None:
                continue
            k = (*key(log, sid, epoch), scorer)
            if k not in by_key:
                diffs.append(f"samples_df has {col} for {k[:3]}, scores_df has no {scorer} score")
                continue
            compared += 1
            if not same(by_key[k], value):
                diffs.append(f"{k}: scores_df {by_key[k]!r}, samples_df {value!r}")
    print(json.dumps({"logs": logs, "samples_df_rows": len(theirs), "replies_rows": len(replies),
                      "only_in_replies": len(extra), "only_in_replies_logs": len({k[0] for k in extra}),
                      "scores_compared": compared, "differences": len(diffs), "first": diffs[:10]}))
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
