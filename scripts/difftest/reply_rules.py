#!/usr/bin/env python
"""Both reply rules on every sample of a set of logs: which call each picks, and its class.

Usage (internal/pypkg's TestReplyRulesOnTheCorpora runs it on the shared
corpora and the demo, and checks what it prints):

    .venv/bin/python scripts/difftest/reply_rules.py PATH...

One JSON line per sample and epoch: the log, sample id, epoch, the log's
task, the study eval whose profile matches it (null if none) and the reply
rule of that eval's class_aware settings, the number of completed
generations of the model under test, and for each rule ("first", "final")
the reply's source, call index and class.
"""

from __future__ import annotations

import json
import logging
import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python" / "src"))

from inspect_ai.log import read_eval_log  # noqa: E402

from empties import REPLY_RULES, choose_reply, classify_reply  # noqa: E402
from empties.discover import ListingError, list_logs  # noqa: E402
from empties.reply import generations  # noqa: E402
from empties.study import settings_for_task  # noqa: E402


def main(paths: list[str]) -> int:
    logging.getLogger("inspect_ai").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore")
    try:
        files, _ = list_logs(paths)
    except ListingError as e:
        print(f"reply_rules.py: {e}", file=sys.stderr)
        return 2
    for path in files:
        log = read_eval_log(path, resolve_attachments=True)
        settings = settings_for_task(log.eval.task, log.eval.task_args)
        for s in log.samples or []:
            rec: dict[str, object] = {
                "log": path, "sample_id": s.id, "epoch": s.epoch, "task": log.eval.task,
                "eval": settings.name if settings else None, "eval_rule": settings.reply if settings else None,
            }
            for rule in REPLY_RULES:
                r = choose_reply(s.events, s.output, eval_model=log.eval.model,
                                 sample_error=s.error.message if s.error is not None else None,
                                 attachments=s.attachments, rule=rule)
                rec["generations"] = len(generations(r.calls))
                rec[rule] = [r.source, r.call_index, classify_reply(r).name]
            print(json.dumps(rec, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
