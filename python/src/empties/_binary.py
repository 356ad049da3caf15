"""The empties binary: where it is, and running it.

The platform wheel carries the binary at ``empties/_bin/empties``; the Python
API and the ``empties`` console command run that one. ``EMPTIES_BIN`` names
another (a ``make build`` of a checkout: ``bin/empties``), and a copy of the
package imported from a checkout (``python/src``, the editable install of
``make pypkg``) falls back to that checkout's ``bin/empties``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

BINARY_ENV = "EMPTIES_BIN"

_HERE = Path(__file__).resolve().parent
_BUNDLED = _HERE / "_bin" / "empties"


class EmptiesError(Exception):
    """The empties binary failed: its message, as it printed it.

    ``exit_code`` is the binary's (2 a usage error, 1 a failure, 130
    interrupted), ``stderr`` everything it printed there, ``command`` the
    command line.
    """

    def __init__(self, message: str, *, exit_code: int | None = None, stderr: str = "", command: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code
        self.stderr = stderr
        self.command = list(command)


class EmptiesWarning(UserWarning):
    """Something the binary reported without failing the call: files that could not be read
    (``strict=False``), files skipped."""


def binary() -> str:
    """The path of the empties binary the package runs.

    Raises:
        EmptiesError: there is none (a copy installed from source without one),
            or ``EMPTIES_BIN`` names no executable file.
    """
    env = os.environ.get(BINARY_ENV)
    if env:
        if not (os.path.isfile(env) and os.access(env, os.X_OK)):
            raise EmptiesError(f"{BINARY_ENV}={env}: no executable file there; unset it to use the binary the package carries")
        return env
    if _BUNDLED.is_file():
        return str(_BUNDLED)
    checkout = _HERE.parents[2]  # python/src/empties -> the repository
    built = checkout / "bin" / "empties"
    if (checkout / "go.mod").is_file() and built.is_file():
        return str(built)
    raise EmptiesError(
        "this copy of the empties package carries no empties binary (it was installed from a source tree without one). "
        "Install the platform wheel (pip install empties, Linux x86_64), build one from a checkout with `make wheel`, "
        f"or set {BINARY_ENV} to an empties binary (`make build` writes bin/empties)"
    )


@dataclass
class Completed:
    """A finished run of the binary."""

    args: list[str]
    exit_code: int
    stdout: str
    messages: list[str] = field(default_factory=list)
    """What it printed on stderr, line by line, without the progress lines."""


ProgressCallback = Callable[[dict[str, Any]], None]


def run(
    args: Sequence[str],
    *,
    ok: Sequence[int] = (0,),
    progress: ProgressCallback | None = None,
    echo: IO[str] | None = None,
) -> Completed:
    """Run the binary with ``args`` and wait for it.

    Its stderr is read line by line: a ``{"progress": ...}`` line (``--progress
    json``) goes to ``progress``, any other line is kept (and written to
    ``echo`` as it comes, if given). An exit code outside ``ok`` raises
    :class:`EmptiesError` with the binary's message. A KeyboardInterrupt
    while it runs is passed on to it (SIGINT, as a terminal's Ctrl-C would:
    it stops within seconds and commits nothing), it is waited for, and the
    KeyboardInterrupt is raised again.
    """
    argv = [binary(), *args]
    # A session of its own: a terminal's Ctrl-C reaches this process only,
    # which passes one SIGINT on (the binary takes a second one as "stop at
    # once", skipping its cleanup).
    proc = subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        errors="replace",
        start_new_session=True,
    )
    stdout_pipe, stderr_pipe = proc.stdout, proc.stderr
    assert stdout_pipe is not None and stderr_pipe is not None
    messages: list[str] = []
    out: list[str] = []
    reader = threading.Thread(target=lambda: out.append(stdout_pipe.read()), daemon=True)
    reader.start()
    try:
        for line in stderr_pipe:
            line = line.rstrip("\n")
            if progress is not None and line.startswith('{"progress":'):
                try:
                    progress(json.loads(line))
                    continue
                except ValueError:
                    pass
            messages.append(line)
            if echo is not None:
                print(line, file=echo, flush=True)
        code = proc.wait()
    except BaseException:
        _stop(proc, stderr_pipe)  # KeyboardInterrupt, or an error of the progress callback
        raise
    finally:
        reader.join()
        stdout_pipe.close()
        stderr_pipe.close()
    stdout = out[0] if out else ""
    if code not in ok:
        raise EmptiesError(_message(messages, code), exit_code=code, stderr="\n".join(messages), command=argv)
    return Completed(argv, code, stdout, messages)


def _stop(proc: subprocess.Popen[str], stderr: IO[str]) -> None:
    """Pass an interrupt on to the binary and wait for it to stop, reading
    what it says meanwhile (a second interrupt while waiting ends it at
    once, as a second Ctrl-C does)."""
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGINT)
    try:
        for _ in stderr:
            pass
        proc.wait()
    except KeyboardInterrupt:
        proc.send_signal(signal.SIGINT)
        proc.wait()
        raise


def _message(messages: list[str], code: int) -> str:
    """The binary's error message: what it printed, its own last line last."""
    text = "\n".join(m for m in messages if m.strip())
    if not text:
        return f"empties exited with code {code} and said nothing"
    return text


def exec_binary(argv: Sequence[str]) -> None:
    """Replace this process by the binary (the console command): the same
    process id, so its exit code and the signals it gets are the binary's."""
    try:
        path = binary()
    except EmptiesError as e:
        print(f"empties: {e}", file=sys.stderr)
        raise SystemExit(1) from None
    os.execv(path, ["empties", *argv])
