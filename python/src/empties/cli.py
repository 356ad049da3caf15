"""``python -m empties``: classify the replies of Inspect logs (and run the study's re-runs).

``python -m empties classify PATH... [--out FILE] [--reply first|final]`` writes
one JSON line per sample and epoch (:data:`DESCRIPTION` says what). Exit codes:
0 every log read; 1 a log unreadable (the others are still read); 2 a usage
error (a path missing, a .json named that is not a log, a dataset named:
nothing read); 130 interrupted. A closed standard output (``| head``) ends the
run quietly, with 0.
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
from .discover import ListingError, list_logs_and_links, not_followed, open_regular
from .reply import REPLY_RULES, ReplyRule
from .vocabulary import vocabulary

_D = vocabulary().discovery

USAGE, FAILURE, INTERRUPTED = 2, 1, 130

DESCRIPTION = """\
Classify the reply of the model under test in every sample of Inspect logs, as
empties' Go classifier does. One JSON line per sample and epoch: the log's path,
the sample id (as the log has it: int or str), the epoch, the class, the rule
that gave it, whether the reply is a non-answer, whether tools were offered
(null: the log does not show it) and where the reply was read from
(model_event, sample_output or none).

PATHs are listed as empties' ingest lists them. A folder is read
recursively: every .eval, and every .json that opens like an Inspect log (not
logs.json, listing.json, eval-set.json); folders whose name starts with a dot,
<name>.checkpoints/ and empties datasets are left out; a folder named may be a
link to one, links to folders below it are not followed. A file named is read
whatever its name. What is not a regular file (a FIFO, a socket, a device), a
link that cannot be followed, a folder that cannot be read and a .json in a
folder that is not a log are skipped, one line each on standard error. A log
that cannot be read is named on standard error and the others are still
classified; the exit code is then 1. A path missing, a .json file named that
does not open like a log or an empties dataset named is a usage error: nothing
is read, the exit code is 2.
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


def plural(n: int, one: str, many: str) -> str:
    """A count with its noun, as empties' Go side writes it (numfmt.Plural): 1 log, 2,014 samples."""
    return f"1 {one}" if n == 1 else f"{n:,} {many}"


class UsageError(Exception):
    """A mistake in the command line: reported on one line, exit code 2, nothing read."""


def classify_log(path: str, reply: ReplyRule = "first") -> Iterator[dict[str, Any]]:
    """One record per sample and epoch of a log."""
    from inspect_ai.log import read_eval_log

    if path.endswith((_D.eval_suffix, _D.json_suffix)):
        log = read_eval_log(path, resolve_attachments=True)
    else:
        # a file named whatever its name (as ingest takes it): inspect_ai tells
        # a stream's format by its first bytes, where it would refuse the name
        with os.fdopen(open_regular(path), "rb") as f:
            log = read_eval_log(f, resolve_attachments=True)
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
    try:
        (files, skipped), links = list_logs_and_links(paths)
    except ListingError as e:
        raise UsageError(str(e)) from None
    for q, why in skipped:
        print(f"skipped {q}: {why}", file=err)
    for link in links:
        print(not_followed(link), file=err)
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
            print(f"  {i}/{plural(len(files), 'log', 'logs')}, {plural(samples, 'sample', 'samples')}", file=err)
    print(
        f"classified {plural(samples, 'sample', 'samples')} in {len(files) - failed} of {plural(len(files), 'log', 'logs')}"
        + (f"; {failed} could not be read" if failed else ""),
        file=err,
    )
    return FAILURE if failed else 0


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
