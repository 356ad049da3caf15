"""``python -m empties``: classify the replies of Inspect logs.

    python -m empties classify PATH... [--out FILE]

Writes one JSON line per sample and epoch: the log's path, the sample id (as
the log has it: int or str), the epoch, the class, the rule, and beside them
whether the reply is a non-answer, whether tools were offered (null: the log
does not show it) and where the reply was read from (model_event,
sample_output or none). Folders are read recursively with the rules empties'
ingest lists them by: every ``.eval``, and every ``.json`` that opens like an
Inspect log (not ``logs.json``, ``listing.json``, ``eval-set.json``); folders
whose name starts with a dot and ``<name>.checkpoints/`` are left out.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import tempfile
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import IO, Any

from .classify import classify

_SKIPPED_JSON = {"logs.json", "listing.json", "eval-set.json"}
_LOG_KEYS = (b'"version"', b'"status"', b'"eval"')

EXAMPLES = """examples:
  python -m empties classify logs/
  python -m empties classify logs/2026-01-01T00-00-00_xstest_abc.eval --out classes.jsonl
  python -m empties classify logs/ | jq -r 'select(.non_answer) | .class' | sort | uniq -c
"""


def _opens_like_log(path: str) -> bool:
    try:
        with open(path, "rb") as f:
            head = f.read(256)
    except OSError:
        return True  # let the reader report the error
    b = head.lstrip(b" \t\r\n\xef\xbb\xbf")
    if not b.startswith(b"{"):
        return False
    b = b[1:].lstrip(b" \t\r\n")
    return b.startswith(_LOG_KEYS)


def _skip_dir(name: str) -> bool:
    return name.startswith(".") or (name.endswith(".checkpoints") and name != ".checkpoints")


def list_logs(paths: Sequence[str]) -> tuple[list[str], list[tuple[str, str]]]:
    """The log files under ``paths`` (sorted, absolute) and the files left out, with why."""
    files: set[str] = set()
    skipped: list[tuple[str, str]] = []
    for p in paths:
        if not os.path.exists(p):
            raise SystemExit(f"empties classify: {p}: no such file or folder")
        if not os.path.isdir(p):
            files.add(os.path.abspath(p))
            continue
        for root, dirs, names in os.walk(p):
            dirs[:] = sorted(d for d in dirs if not _skip_dir(d))
            for n in names:
                q = os.path.abspath(os.path.join(root, n))
                if n.endswith(".eval"):
                    files.add(q)
                elif n.endswith(".json") and n not in _SKIPPED_JSON:
                    if os.path.getsize(q) == 0:
                        skipped.append((q, "an empty .json file, not an Inspect log"))
                    elif not _opens_like_log(q):
                        skipped.append((q, "a .json file that is not an Inspect log (it does not open like one)"))
                    else:
                        files.add(q)
    return sorted(files), sorted(skipped)


def classify_log(path: str) -> Iterator[dict[str, Any]]:
    """One record per sample and epoch of a log."""
    from inspect_ai.log import read_eval_log

    log = read_eval_log(path, resolve_attachments=True)
    for s in log.samples or []:
        c = classify(s, eval_model=log.eval.model)
        yield {
            "log": path,
            "sample_id": s.id,
            "epoch": s.epoch,
            "class": c.name,
            "rule": c.rule,
            "non_answer": c.non_answer,
            "tools_offered": c.tools_offered,
            "reply_source": c.reply.source,
        }


def run_classify(paths: Sequence[str], out: IO[str], err: IO[str], progress: bool) -> int:
    files, skipped = list_logs(paths)
    for q, why in skipped:
        print(f"skipped {q}: {why}", file=err)
    failed = samples = 0
    for i, path in enumerate(files, 1):
        try:
            for rec in classify_log(path):
                out.write(json.dumps(rec, ensure_ascii=False) + "\n")
                samples += 1
        except Exception as e:  # one bad file never stops the others
            failed += 1
            print(f"empties classify: {path}: cannot be read: {e}".splitlines()[0][:500], file=err)
        if progress and i % 10 == 0:
            print(f"  {i}/{len(files)} logs, {samples} samples", file=err)
    print(
        f"classified {samples} samples in {len(files) - failed} of {len(files)} logs"
        + (f"; {failed} could not be read" if failed else ""),
        file=err,
    )
    return 1 if failed else 0


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m empties",
        description="Classify the replies of Inspect logs as empties does (the class-aware scorer's classifier).",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = ap.add_subparsers(dest="command", required=True)
    c = sub.add_parser(
        "classify",
        help="one JSON line per sample and epoch: log, sample_id, epoch, class, rule",
        description=__doc__.split("\n\n", 2)[2] if __doc__ else None,
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    c.add_argument("paths", nargs="+", metavar="PATH", help=".eval/.json logs or folders of them")
    c.add_argument("--out", metavar="FILE", help="write the JSON lines to this new file (never overwritten) instead of standard output")
    c.add_argument("--progress", choices=("auto", "always", "never"), default="auto",
                   help="progress every 10 logs on standard error (auto: when it is a terminal)")
    r = sub.add_parser(
        "rerun",
        help="run an empties rerun spec with eval_set (written by `empties rerun PLAN`; not for direct use)",
        description="Run the groups of a spec that `empties rerun PLAN` writes (see empties.rerun).",
    )
    r.add_argument("spec", metavar="SPEC", help="the spec file (JSON)")
    r.add_argument("--events-fd", type=int, default=None, help="file descriptor for progress lines (default stderr)")
    args = ap.parse_args(argv)

    logging.getLogger("inspect_ai").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore", module="inspect_ai")
    if args.command == "rerun":
        from .rerun import run_file

        return run_file(args.spec, args.events_fd)
    progress = args.progress == "always" or (args.progress == "auto" and sys.stderr.isatty())
    if args.out:
        return write_new(args.out, lambda f: run_classify(args.paths, f, sys.stderr, progress))
    return run_classify(args.paths, sys.stdout, sys.stderr, progress)


def write_new(path: str, fill: Callable[[IO[str]], int]) -> int:
    """Write a new file whole: into a temporary file beside it, then linked to its name only if
    nothing is there (never overwriting a file, never leaving a half-written one)."""
    if os.path.lexists(path):
        raise SystemExit(f"empties classify: {path} exists; empties never overwrites a file: choose another --out")
    parent = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=parent, prefix="." + os.path.basename(path) + ".empties-tmp-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            code = fill(f)
            f.flush()
            os.fsync(f.fileno())
        try:
            os.link(tmp, path)
        except FileExistsError:
            raise SystemExit(f"empties classify: {path} appeared while classifying; it was left as it is") from None
        return code
    finally:
        os.unlink(tmp)
