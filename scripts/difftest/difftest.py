#!/usr/bin/env python
"""Differential test of empties' ingest against inspect_ai's own reader.

Usage (from the repo root; `make test` runs it through stages/ingest's
TestDifferentialAgainstInspect):

    .venv/bin/python scripts/difftest/difftest.py ROWS.jsonl LOG_OR_DIR...

ROWS.jsonl holds one JSON object per reply row empties wrote (path,
sample_id, epoch, reply_source, text, stop_reason, call_index, timestamp,
call_status list). The script reads every .eval/.json log under the given
paths with the pinned inspect_ai's ``read_eval_log`` and, for every sample
inspect_ai returns, checks that

  * empties has exactly one reply row for it (and no row inspect_ai lacks);
  * the row's reply is the event the rule below picks in inspect_ai's own
    object model: same position among the sample's model events, same
    timestamp, same text, same stop reason; or, where the rule falls back
    to sample.output, that output's text and stop reason;
  * every model event's call status is the rule's.

The rule (design rule 1; README "How the reply is chosen"), as the empties
Python package states it in inspect_ai's object model (python/src/empties/
reply.py, following model/_model.py), independently of the Go code:

  * whose call: a model event under a span of type scorer/scorers (older
    logs: inside a scorer step) is a judge's; else a role naming a grader is
    a judge's; another role, or another model than the eval's, is "other";
    the rest is the model under test's;
  * status: pending (never completed) is a placeholder; an errored event
    followed by a non-pending event of the same generation (same span, or
    legacy step, same model, role and input: inspect_ai's retry loop records
    one event per attempt) is retried; an errored event without one failed;
    any other completed;
  * the reply is the first model-under-test event that completed or failed;
    without one, sample.output when it has a choice and its text is not the
    text of a judge's or other call; else there is no reply.

Exit code 0 when every check passes, 1 otherwise (every mismatch printed).
"""

from __future__ import annotations

import glob
import json
import os
import sys
from datetime import datetime
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "python" / "src"))  # this checkout's empties package


def pick_reply(sample, eval_model: str) -> dict:
    """What the rule picks: source, call_index (or None), text, stop_reason, timestamp, call statuses.

    The rule is the empties Python package's (python/src/empties/reply.py), the
    one Python statement of it, written in inspect_ai's object model.
    """
    from empties.reply import choose_reply

    r = choose_reply(sample.events, sample.output, eval_model=eval_model, attachments=sample.attachments)
    ts = r.calls[r.call_index].event.timestamp if r.call_index is not None else None
    return {"source": r.source, "call_index": r.call_index, "timestamp": ts, "text": r.text,
            "stop_reason": r.stop_reason, "statuses": [c.status for c in r.calls]}


def _ts(v) -> datetime | None:
    if v is None:
        return None
    if isinstance(v, datetime):
        return v
    return datetime.fromisoformat(v.replace("Z", "+00:00"))


def _logs(paths: list[str]) -> list[str]:
    out = []
    for p in paths:
        if os.path.isdir(p):
            for ext in ("eval", "json"):
                out += glob.glob(os.path.join(p, "**", f"*.{ext}"), recursive=True)
        else:
            out.append(p)
    return sorted(os.path.abspath(p) for p in out)


def main(rows_path: str, paths: list[str]) -> int:
    import logging
    import warnings

    from inspect_ai.log import read_eval_log

    logging.getLogger("inspect_ai").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore")

    rows: dict[tuple[str, str, int], list[dict]] = {}
    with open(rows_path, encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            rows.setdefault((r["path"], r["sample_id"], int(r["epoch"])), []).append(r)
    ingested_paths = {k[0] for k in rows}

    problems: list[str] = []
    logs = samples = 0
    for path in _logs(paths):
        try:
            log = read_eval_log(path, resolve_attachments=True)
        except Exception as ex:  # not a log inspect_ai reads (e.g. a .json that is no log)
            if path in ingested_paths:
                problems.append(f"{path}: empties has rows, read_eval_log fails: {ex!r}"[:400])
            continue
        logs += 1
        seen = set()
        for s in log.samples or []:
            samples += 1
            key = (path, str(s.id), s.epoch)
            seen.add(key)
            name = f"{path}: sample {s.id} epoch {s.epoch}"
            got = rows.get(key, [])
            if len(got) != 1:
                problems.append(f"{name}: {len(got)} reply rows, want 1")
                continue
            g = got[0]
            want = pick_reply(s, log.eval.model)
            for field in ("source", "call_index", "text", "stop_reason"):
                gv = g["reply_source"] if field == "source" else g[field]
                if gv != want[field]:
                    problems.append(f"{name}: {field} {gv!r}, the rule in inspect_ai's objects gives {want[field]!r}"[:400])
            if _ts(g["timestamp"]) != _ts(want["timestamp"]):
                problems.append(f"{name}: reply event timestamp {g['timestamp']!r}, want {want['timestamp']!r}")
            if g["statuses"] != want["statuses"]:
                problems.append(f"{name}: call statuses {g['statuses']}, want {want['statuses']}")
        for key in rows:
            if key[0] == path and key not in seen:
                problems.append(f"{path}: empties has a row for sample {key[1]} epoch {key[2]}, read_eval_log has none")
    for p in problems:
        print(p)
    print(f"difftest: {logs} logs, {samples} samples read by inspect_ai; {len(problems)} mismatches")
    return 1 if problems or samples == 0 else 0


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2:]))
