"""Which files under some paths are Inspect logs, as empties' ingest lists them.

:func:`list_logs` is the listing of ``python -m empties classify``. Its names
(the suffixes, inspect_ai's .json files that are not logs, the first keys and
head size of a .json log, dot and ``.checkpoints`` folders, the empties
dataset marker) are the shipped vocabulary's, exported from Go
(internal/logset); what it does around them mirrors ingest's ``Discover``
(internal/ingest/discover.go), and internal/ingest's
``TestDiscoveryEqualsPython`` holds the two equal on a tree of every shape:

* a folder gives every ``.eval`` file and every ``.json`` file that opens like
  a log, recursively; dot folders, ``<name>.checkpoints`` folders and empties
  datasets below it are left out, silently; a folder named may be a link to
  one, links to folders below it are not followed (those whose folder lies
  outside the folders named are :func:`list_logs_and_links`' second list:
  their logs are not read); a folder that cannot be read is skipped, named,
  and the rest is read;
* a file named is taken whatever its name (it is read by its bytes), but a
  ``.json`` file named that does not open like a log is refused, as are a path
  that cannot be looked at and an empties dataset named: :class:`ListingError`,
  nothing read;
* what is not a regular file (a FIFO, a socket, a device, found or named, or
  what a link points to) is skipped without being opened, as is a link that
  cannot be followed; every file skipped is named with why.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Sequence
from typing import NamedTuple

from .vocabulary import vocabulary

__all__ = ["ListingError", "Listing", "list_logs", "list_logs_and_links", "not_followed", "open_regular"]

_D = vocabulary().discovery
_LOG_KEYS = tuple(f'"{k}"'.encode() for k in _D.json_first_keys)
_BOM = b"\xef\xbb\xbf"

NOT_A_LOG = "a .json file that is not an Inspect log (it does not open like one)"
EMPTY = "an empty .json file, not an Inspect log"


class ListingError(Exception):
    """A path named that is refused, and with it the whole listing: a path that does
    not exist or cannot be looked at, a ``.json`` file that is not a log, an empties
    dataset. The message names the path and why."""


class Listing(NamedTuple):
    """The log files (absolute, sorted) and the files found and left out, with why."""

    files: list[str]
    skipped: list[tuple[str, str]]


def list_logs(paths: Sequence[str]) -> Listing:
    """The logs under ``paths``, as empties' ingest lists them; raises :class:`ListingError`."""
    return list_logs_and_links(paths)[0]


def not_followed(link: str) -> str:
    """The line that names a link to a folder not followed (Go's ingest.NotFollowed)."""
    return (
        f"not followed: {link}, a link to a folder outside the folders named"
        " (inspect_ai's listing does not follow it either); name it to read the logs in it"
    )


def list_logs_and_links(paths: Sequence[str]) -> tuple[Listing, list[str]]:
    """:func:`list_logs`, and the links to folders below the folders named that were
    not followed and whose folder lies outside every folder named (absolute, sorted):
    their logs are not read. A link into a folder the walk reads anyway
    (``latest -> run-3``) is not among them, nor one whose name a walk leaves out."""
    links: list[str] = []
    roots: list[str] = []
    files: list[str] = []
    skipped: list[tuple[str, str]] = []
    seen: set[str] = set()

    def add(p: str) -> None:
        a = _abspath(p)
        if a not in seen:
            seen.add(a)
            files.append(a)

    def skip(p: str, why: str) -> None:
        a = _abspath(p)
        if a not in seen:
            seen.add(a)
            skipped.append((a, why))

    for p in paths:
        try:
            st = os.stat(p)
        except FileNotFoundError:
            raise ListingError(f"{p}: no such file or folder") from None
        except OSError as e:
            raise ListingError(f"{p}: cannot be read ({_err_text(e)})") from None
        if not stat.S_ISDIR(st.st_mode):
            if not stat.S_ISREG(st.st_mode):
                skip(p, not_regular(st.st_mode))
                continue
            if p.endswith(_D.json_suffix):
                why = _why_not_a_log(p)
                if why:
                    raise ListingError(f"{p}: {why}; leave it out of PATH (a folder holding it skips it with a note)")
            add(p)
            continue
        if _is_dataset(p):
            raise ListingError(f"{p} is an empties dataset, not a folder of logs; name the logs it was ingested from")
        roots.append(os.path.realpath(p))
        _walk(p, add, skip, links)
    files.sort(key=os.fsencode)
    skipped.sort(key=lambda s: os.fsencode(s[0]))
    return Listing(files, skipped), _outside(links, roots)


def _outside(links: list[str], roots: list[str]) -> list[str]:
    out: set[str] = set()
    for link in links:
        real = os.path.realpath(link)
        if not any(real == r or real.startswith(r.rstrip(os.sep) + os.sep) for r in roots):
            out.add(_abspath(link))
    return sorted(out, key=os.fsencode)


def _walk(top: str, add: Callable[[str], None], skip: Callable[[str, str], None], links: list[str]) -> None:
    # os.scandir follows top where it is a link to a folder; entries below are
    # looked at without following links (is_dir(follow_symlinks=False)).
    stack = [top]
    while stack:
        d = stack.pop()
        try:
            with os.scandir(d) as it:
                entries = list(it)
        except OSError as err:
            skip(d, f"a folder that cannot be read ({_err_text(err)})")
            continue
        for ent in entries:
            if ent.is_dir(follow_symlinks=False):
                if not _skip_dir(ent.name) and not _is_dataset(ent.path):
                    stack.append(ent.path)
                continue
            is_eval = ent.name.endswith(_D.eval_suffix)
            is_json = ent.name.endswith(_D.json_suffix) and ent.name not in _D.not_logs
            if not is_eval and not is_json:
                if ent.is_symlink() and not _skip_dir(ent.name) and _is_folder(ent.path) and not _is_dataset(ent.path):
                    links.append(ent.path)
                continue
            if not ent.is_file(follow_symlinks=False):
                try:
                    st = os.stat(ent.path)  # a link is taken for what it points to
                except OSError as err:
                    if ent.is_symlink():
                        skip(ent.path, f"a symbolic link that cannot be followed ({_err_text(err)})")
                    else:
                        skip(ent.path, f"cannot be read ({_err_text(err)})")
                    continue
                if not stat.S_ISREG(st.st_mode):
                    skip(ent.path, not_regular(st.st_mode))
                    continue
            if is_json:
                why = _why_not_a_log(ent.path)
                if why:
                    skip(ent.path, why)
                    continue
            add(ent.path)


def _skip_dir(name: str) -> bool:
    return name.startswith(_D.hidden_prefix) or name.endswith(_D.companion_suffix)


def _is_folder(p: str) -> bool:
    try:
        return stat.S_ISDIR(os.stat(p).st_mode)
    except OSError:
        return False


def _is_dataset(d: str) -> bool:
    return os.path.exists(os.path.join(d, _D.dataset_marker))


def not_regular(mode: int) -> str:
    """What kind of file ``mode`` is, that is no regular file (Go's evallog.NotRegular)."""
    if stat.S_ISFIFO(mode):
        return "not a regular file (a named pipe)"
    if stat.S_ISSOCK(mode):
        return "not a regular file (a socket)"
    if stat.S_ISCHR(mode):
        return "not a regular file (a character device)"
    if stat.S_ISBLK(mode):
        return "not a regular file (a device)"
    if stat.S_ISDIR(mode):
        return "not a regular file (a folder)"
    return "not a regular file"


def open_regular(path: str) -> int:
    """A descriptor of ``path`` opened for reading if it is a regular file (Go's
    evallog.OpenRegular): the open does not wait (a FIFO's would wait for a writer,
    forever), and what it opened is checked, not a name looked at before."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise OSError(f"{path} is {not_regular(mode)}, not a log")
    except BaseException:
        os.close(fd)
        raise
    return fd


def _why_not_a_log(path: str) -> str:
    """Why a .json file is not read as a log, or '' if it opens like one (or cannot
    be read: the reader reports that)."""
    try:
        size = os.stat(path).st_size
    except OSError:
        size = -1
    if size == 0:
        return EMPTY
    try:
        fd = open_regular(path)
    except OSError:
        return ""
    with os.fdopen(fd, "rb") as f:
        head = f.read(_D.json_head_bytes)
    return "" if opens_like_log(head) else NOT_A_LOG


def opens_like_log(head: bytes) -> bool:
    """Whether a .json file's first bytes open an object whose first key is one
    inspect_ai's writer puts first; before it, whitespace and byte order marks."""
    b = head
    while True:
        b = b.lstrip(b" \t\r\n")
        if not b.startswith(_BOM):
            break
        b = b[len(_BOM):]
    if not b.startswith(b"{"):
        return False
    return b[1:].lstrip(b" \t\r\n").startswith(_LOG_KEYS)


def _err_text(e: OSError) -> str:
    """The system's words for why ``e`` happened, as Go words them ("permission denied")."""
    if e.errno:
        s = os.strerror(e.errno)
        return s[:1].lower() + s[1:]
    return str(e)


def _abspath(p: str) -> str:
    # as Go's filepath.Abs: from the working folder as the shell names it
    # ($PWD, when it is this folder: a link to it keeps its name), cleaned
    # lexically; normpath keeps a leading "//", which Go's Clean does not
    a = os.path.normpath(p if os.path.isabs(p) else os.path.join(_getwd(), p))
    return a[1:] if a.startswith("//") else a


def _getwd() -> str:
    pwd = os.environ.get("PWD", "")
    if pwd.startswith("/"):
        try:
            if os.path.samestat(os.stat("."), os.stat(pwd)):
                return pwd
        except OSError:
            pass
    return os.getcwd()
