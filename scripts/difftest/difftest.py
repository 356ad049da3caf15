#!/usr/bin/env python
"""Differential test of empties' ingest against inspect_ai's own reader.

Usage (from the repo root; `make test` runs it through internal/ingest's
TestDifferentialAgainstInspect and TestMalformedLogsGetInspectsVerdict):

    .venv/bin/python scripts/difftest/difftest.py ROWS.jsonl [--errors ERRORS.jsonl]
        [--verdicts VERDICTS.tsv] [--differences DIFFERENCES.tsv] LOG_OR_DIR...

ROWS.jsonl holds one JSON object per reply row empties wrote (path,
sample_id, epoch, reply_source, text, stop_reason, call_index, timestamp,
call_status list, the sample's timing, and the final reply's call_index,
text, stop_reason and timestamp); ERRORS.jsonl one per ingest_errors
row. The script reads every .eval/.json log under the given paths with the
pinned inspect_ai's ``read_eval_log``. A file it refuses must have no rows
and (given ERRORS.jsonl) an ingest_errors row, unless ingest skipped it as
no log (--skipped); a file it reads no
ingest_errors row, and for every sample inspect_ai returns, the script
checks that

  * empties has exactly one reply row for it (and no row inspect_ai lacks);
  * the row's reply is the event the rule below picks in inspect_ai's own
    object model: same position among the sample's model events, same
    timestamp, same text, same stop reason; or, where the rule falls back
    to sample.output, that output's text and stop reason;
  * the row's final reply (final_call_index and that call's text, stop
    reason and timestamp) is the event the rule ``final`` picks (the last
    such generation, the same fallback), as the package's choose_reply gives
    it;
  * every model event's call status is the rule's;
  * started_at, completed_at, total_time and working_time are the sample's.

A file DIFFERENCES.tsv names (a deliberate difference, stated in the README)
is held to what it says empties gives instead.

The rule (design rule 1; README "How the reply is chosen"), as the empties
Python package states it in inspect_ai's object model (python/src/empties/
reply.py, following model/_model.py), independently of the Go code:

  * whose call: a model event under a span of type scorer/scorers, at any
    depth (older logs: inside a scorer step) is a judge's; else a role
    naming a grader is a judge's; another role, or another model than the eval's, is "other";
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


def pick_reply(sample, eval_model: str, rule: str = "first") -> dict:
    """What the rule picks: source, call_index (or None), text, stop_reason, timestamp, call statuses.

    The rule (first or final) is the empties Python package's
    (python/src/empties/reply.py), the one Python statement of it, written in
    inspect_ai's object model.
    """
    from empties.reply import choose_reply

    r = choose_reply(sample.events, sample.output, eval_model=eval_model, attachments=sample.attachments, rule=rule)
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


def _read_tsv(path: str | None) -> dict[str, dict[str, str]]:
    """A TSV with a header, by its first column."""
    if not path:
        return {}
    with open(path, encoding="utf-8") as f:
        lines = [l.rstrip("\n") for l in f if l.strip() and not l.startswith("#")]
    head = lines[0].split("\t")
    return {l.split("\t")[0]: dict(zip(head, l.split("\t"))) for l in lines[1:]}


def main(rows_path: str, paths: list[str], errors_path: str | None = None,
         verdicts_path: str | None = None, differences_path: str | None = None,
         skipped_path: str | None = None) -> int:
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
    errors: dict[str, list[dict]] = {}
    if errors_path:
        with open(errors_path, encoding="utf-8") as f:
            for line in f:
                e = json.loads(line)
                errors.setdefault(e["path"], []).append(e)
    skipped: set[str] = set()
    if skipped_path:
        with open(skipped_path, encoding="utf-8") as f:
            skipped = {os.path.abspath(l.strip()) for l in f if l.strip()}
    verdicts = _read_tsv(verdicts_path)
    differences = _read_tsv(differences_path)

    problems: list[str] = []
    logs = samples = refused = 0
    for path in _logs(paths):
        name = os.path.basename(path)
        try:
            log = read_eval_log(path, resolve_attachments=True)
            inspect_verdict, reason = f"read {len(log.samples or [])}", ""
        except Exception as ex:  # not a log inspect_ai reads
            log, inspect_verdict, reason = None, "refused", f"{type(ex).__name__}: {ex}".splitlines()[0]
        if name in verdicts and verdicts[name]["inspect_ai"] != inspect_verdict:
            problems.append(f"{path}: VERDICTS.tsv says {verdicts[name]['inspect_ai']!r}, the pinned inspect_ai "
                            f"{inspect_verdict!r}: run `make fixtures`")
        empties_verdict = "refused" if path in errors and path not in ingested_paths else f"read {sum(1 for k in rows if k[0] == path)}"
        if name in differences:
            # A deliberate difference: empties must do what is stated.
            want = differences[name]["empties"]
            if not (empties_verdict == want or (want == "read" and empties_verdict.startswith("read "))):
                problems.append(f"{path}: DIFFERENCES.tsv says empties gives {want!r}, it gives {empties_verdict!r}")
            continue
        if log is None:
            refused += 1
            if path in ingested_paths:
                problems.append(f"{path}: empties has rows, read_eval_log refuses it: {reason}"[:400])
            elif errors_path and path not in errors and path not in skipped:
                problems.append(f"{path}: read_eval_log refuses it ({reason}), empties neither reads it nor reports it"[:400])
            continue
        logs += 1
        for e in errors.get(path, []):
            problems.append(f"{path}: empties reports {e['member'] or 'the file'}: {e['error']}; read_eval_log reads it"[:400])
        seen = set()
        for s in log.samples or []:
            samples += 1
            key = (path, str(s.id), s.epoch)
            seen.add(key)
            sname = f"{path}: sample {s.id} epoch {s.epoch}"
            got = rows.get(key, [])
            if len(got) != 1:
                problems.append(f"{sname}: {len(got)} reply rows, want 1")
                continue
            g = got[0]
            want = pick_reply(s, log.eval.model)
            for field in ("source", "call_index", "text", "stop_reason"):
                gv = g["reply_source"] if field == "source" else g[field]
                if gv != want[field]:
                    problems.append(f"{sname}: {field} {gv!r}, the rule in inspect_ai's objects gives {want[field]!r}"[:400])
            if _ts(g["timestamp"]) != _ts(want["timestamp"]):
                problems.append(f"{sname}: reply event timestamp {g['timestamp']!r}, want {want['timestamp']!r}")
            if g["statuses"] != want["statuses"]:
                problems.append(f"{sname}: call statuses {g['statuses']}, want {want['statuses']}")
            final = pick_reply(s, log.eval.model, "final")
            for field in ("call_index", "text", "stop_reason"):
                if g["final_" + field] != final[field]:
                    problems.append(f"{sname}: final reply's {field} {g['final_' + field]!r}, the rule final in inspect_ai's objects gives {final[field]!r}"[:400])
            if final["call_index"] is not None and _ts(g["final_timestamp"]) != _ts(final["timestamp"]):
                problems.append(f"{sname}: final reply's event timestamp {g['final_timestamp']!r}, want {final['timestamp']!r}")
            for field in ("started_at", "completed_at"):
                if _ts(g.get(field)) != _ts(getattr(s, field)):
                    problems.append(f"{sname}: {field} {g.get(field)!r}, read_eval_log gives {getattr(s, field)!r}")
            for field in ("total_time", "working_time"):
                if g.get(field) != getattr(s, field):
                    problems.append(f"{sname}: {field} {g.get(field)!r}, read_eval_log gives {getattr(s, field)!r}")
        for key in rows:
            if key[0] == path and key not in seen:
                problems.append(f"{path}: empties has a row for sample {key[1]} epoch {key[2]}, read_eval_log has none")
    for p in problems:
        print(p)
    print(f"difftest: {logs} logs, {samples} samples read by inspect_ai, {refused} logs it refuses, "
          f"{len(differences)} stated differences; {len(problems)} mismatches")
    return 1 if problems or samples == 0 else 0


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("rows", help="ROWS.jsonl: one JSON object per reply row empties wrote")
    ap.add_argument("paths", nargs="+", help="the logs (files or folders) ingested")
    ap.add_argument("--errors", help="ERRORS.jsonl: one object (path, member, error) per ingest_errors row")
    ap.add_argument("--verdicts", help="VERDICTS.tsv: inspect_ai's verdicts as committed (must be current)")
    ap.add_argument("--differences", help="DIFFERENCES.tsv: files where empties deliberately differs, and what it gives")
    ap.add_argument("--skipped", help="a file of the paths ingest skipped as no logs (one a line): refused by both")
    a = ap.parse_args()
    sys.exit(main(a.rows, a.paths, a.errors, a.verdicts, a.differences, a.skipped))
