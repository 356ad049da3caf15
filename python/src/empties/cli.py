"""``python -m empties``: classify the replies of Inspect logs (and run the study's re-runs).

``python -m empties classify PATH... [--out FILE] [--reply first|final]`` writes
one JSON line per sample and epoch (:data:`DESCRIPTION` says what). Exit codes:
0 every log read; 1 a path missing or a log unreadable (the others are still
read); 2 a usage error (nothing read); 130 interrupted. A closed standard
output (``| head``) ends the run quietly, with 0.
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
from .reply import REPLY_RULES, ReplyRule
from .vocabulary import vocabulary

# The names of ingest's discovery (internal/logset), from the shipped vocabulary.
_D = vocabulary().discovery
_LOG_KEYS = tuple(f'"{k}"'.encode() for k in _D.json_first_keys)

USAGE, FAILURE, INTERRUPTED = 2, 1, 130

DESCRIPTION = """\
Classify the reply of the model under test in every sample of Inspect logs, as
empties' Go classifier does. One JSON line per sample and epoch: the log's path,
the sample id (as the log has it: int or str), the epoch, the class, the rule
that gave it, whether the reply is a non-answer, whether tools were offered
(null: the log does not show it) and where the reply was read from
(model_event, sample_output or none).

A folder is read recursively as empties' ingest reads it: every .eval, and
every .json that opens like an Inspect log (not logs.json, listing.json,
eval-set.json); folders whose name starts with a dot and <name>.checkpoints/
are left out. A file named that is not a log is skipped, with one line on
standard error. A missing path or a log that cannot be read is named on
standard error and the others are still classified; the exit code is then 1.
"""

EXAMPLES = """\
examples:
  python -m empties classify logs/
  python -m empties classify logs/2026-01-01T00-00-00_xstest_abc.eval --out classes.jsonl
  python -m empties classify logs/ --reply final     # the reply the scorer grades, on multi-turn tasks
  python -m empties classify logs/ | jq -r 'select(.non_answer) | .class' | sort | uniq -c
"""

REPLY_HELP = (
    "which generation of the model under test is the reply: first (default: its first completed "
    "generation, as empties' ingest reads it) or final (its last, the one the eval's scorer grades)"
)


class UsageError(Exception):
    """A mistake in the command line: reported on one line, exit code 2, nothing read."""


def _opens_like_log(path: str) -> bool:
    try:
        with open(path, "rb") as f:
            head = f.read(_D.json_head_bytes)
    except OSError:
        return True  # let the reader report the error
    b = head.lstrip(b" \t\r\n\xef\xbb\xbf")
    if not b.startswith(b"{"):
        return False
    b = b[1:].lstrip(b" \t\r\n")
    return b.startswith(_LOG_KEYS)


def _skip_dir(name: str) -> bool:
    return name.startswith(_D.hidden_prefix) or (name.endswith(_D.companion_suffix) and name != _D.companion_suffix)


def _not_a_log(path: str) -> str:
    """Why a .json file is not a log, or '' when it opens like one."""
    try:
        if os.path.getsize(path) == 0:
            return "an empty .json file, not an Inspect log"
    except OSError:
        return ""  # let the reader report the error
    if not _opens_like_log(path):
        return "a .json file that is not an Inspect log (it does not open like one)"
    return ""


def list_logs(paths: Sequence[str]) -> tuple[list[str], list[tuple[str, str]], list[str]]:
    """The log files under ``paths`` (sorted, absolute), the files left out with why, and the paths that do not exist."""
    files: set[str] = set()
    skipped: list[tuple[str, str]] = []
    missing: list[str] = []
    for p in paths:
        if not os.path.exists(p):
            missing.append(p)
            continue
        if not os.path.isdir(p):
            q = os.path.abspath(p)
            if p.endswith(_D.eval_suffix):
                files.add(q)
            elif p.endswith(_D.json_suffix):
                why = _not_a_log(q)
                if why:
                    skipped.append((q, why))
                else:
                    files.add(q)
            else:
                skipped.append((q, "not an Inspect log (a log is a .eval or a .json file)"))
            continue
        for root, dirs, names in os.walk(p):
            dirs[:] = sorted(d for d in dirs if not _skip_dir(d))
            for n in names:
                q = os.path.abspath(os.path.join(root, n))
                if n.endswith(_D.eval_suffix):
                    files.add(q)
                elif n.endswith(_D.json_suffix) and n not in _D.not_logs:
                    why = _not_a_log(q)
                    if why:
                        skipped.append((q, why))
                    else:
                        files.add(q)
    return sorted(files), sorted(skipped), missing


def classify_log(path: str, reply: ReplyRule = "first") -> Iterator[dict[str, Any]]:
    """One record per sample and epoch of a log."""
    from inspect_ai.log import read_eval_log

    log = read_eval_log(path, resolve_attachments=True)
    for s in log.samples or []:
        c = classify(s, eval_model=log.eval.model, reply=reply)
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


def run_classify(paths: Sequence[str], out: IO[str], err: IO[str], progress: bool, reply: ReplyRule = "first") -> int:
    """Classify every log under ``paths`` into ``out``; report on ``err``. Returns the exit code.

    A write to ``out`` that fails (a closed pipe) is raised, not reported as the log's.
    """
    files, skipped, missing = list_logs(paths)
    for p in missing:
        print(f"empties classify: {p}: no such file or folder", file=err)
    for q, why in skipped:
        print(f"skipped {q}: {why}", file=err)
    failed = samples = 0
    for i, path in enumerate(files, 1):
        try:
            # read the whole log before writing any of it: a log that fails
            # half-way writes nothing, and a write error is not the log's
            recs = list(classify_log(path, reply))
        except Exception as e:  # one bad file never stops the others
            failed += 1
            print(f"empties classify: {path}: cannot be read: {e}".splitlines()[0][:500], file=err)
            continue
        for rec in recs:
            out.write(json.dumps(rec, ensure_ascii=False) + "\n")
        samples += len(recs)
        if progress and i % 10 == 0:
            print(f"  {i}/{len(files)} logs, {samples} samples", file=err)
    print(
        f"classified {samples} samples in {len(files) - failed} of {len(files)} logs"
        + (f"; {failed} could not be read" if failed else "")
        + (f"; {len(missing)} path{'s' if len(missing) != 1 else ''} not found" if missing else ""),
        file=err,
    )
    return FAILURE if failed or missing else 0


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="python -m empties",
        description="Classify the replies of Inspect logs as empties does (the class-aware scorer's classifier).",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = ap.add_subparsers(dest="command", required=True, metavar="COMMAND")
    c = sub.add_parser(
        "classify",
        help="one JSON line per sample and epoch: log, sample_id, epoch, class, rule, ...",
        description=DESCRIPTION,
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    c.add_argument("paths", nargs="+", metavar="PATH", help=".eval/.json logs or folders of them")
    c.add_argument("--out", metavar="FILE",
                   help="write the JSON lines to this new file (never overwritten) instead of standard output")
    c.add_argument("--reply", choices=REPLY_RULES, default="first", help=REPLY_HELP)
    c.add_argument("--progress", choices=("auto", "always", "never"), default="auto",
                   help="progress every 10 logs on standard error (auto: when it is a terminal)")
    r = sub.add_parser(
        "rerun",
        help="run an empties rerun spec with eval_set (written by `empties rerun PLAN`; not for direct use)",
        description="Run the groups of a spec that `empties rerun PLAN` writes (see empties.study.rerun).",
    )
    r.add_argument("spec", metavar="SPEC", help="the spec file (JSON)")
    r.add_argument("--events-fd", type=int, default=None, help="file descriptor for progress lines (default stderr)")
    return ap


def main(argv: Sequence[str] | None = None, out: IO[str] | None = None, err: IO[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    args = _parser().parse_args(argv)
    logging.getLogger("inspect_ai").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore", module="inspect_ai")
    if args.command == "rerun":
        from .study.rerun import run_file

        return run_file(args.spec, args.events_fd)
    progress = args.progress == "always" or (args.progress == "auto" and err.isatty())
    try:
        if args.out:
            return write_new(args.out, lambda f: run_classify(args.paths, f, err, progress, args.reply), err)
        code = run_classify(args.paths, out, err, progress, args.reply)
        out.flush()  # a closed pipe is found here, not at the interpreter's exit
        return code
    except UsageError as e:
        print(f"empties classify: {e}", file=err)
        return USAGE
    except BrokenPipeError:
        # the reader went away (| head): what it asked for was written; the
        # rest is not wanted. Standard output is pointed at /dev/null so that
        # the interpreter's own flush at exit does not fail again.
        if out is sys.stdout:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        print("empties classify: interrupted", file=err)
        return INTERRUPTED


def write_new(path: str, fill: Callable[[IO[str]], int], err: IO[str] | None = None) -> int:
    """Write a new file whole: into a temporary file beside it, then linked to its name only if
    nothing is there (never overwriting a file, never leaving a half-written one)."""
    if os.path.lexists(path):
        raise UsageError(f"--out {path}: the file exists; empties never overwrites a file: choose another --out")
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise UsageError(f"--out {path}: no folder {parent}: make it first, or choose another --out")
    try:
        fd, tmp = tempfile.mkstemp(dir=parent, prefix="." + os.path.basename(path) + ".empties-tmp-")
    except OSError as e:
        raise UsageError(f"--out {path}: cannot write in {parent}: {e.strerror or e}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            code = fill(f)
            f.flush()
            os.fsync(f.fileno())
        try:
            os.link(tmp, path)
        except FileExistsError:
            print(f"empties classify: --out {path} appeared while classifying; it was left as it is",
                  file=err if err is not None else sys.stderr)
            return FAILURE
        return code
    finally:
        os.unlink(tmp)
