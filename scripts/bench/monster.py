#!/usr/bin/env python
"""`make bench-monster` (and the last part of `make bench`): peak memory and
time of `empties ingest` on logs with one huge sample.

    .venv/bin/python scripts/bench/monster.py --bin bin/empties --work bench

Each case is a real .eval log: a fixture written by the pinned inspect_ai
(testdata/logs) whose one sample is scaled, then written back with every
other member copied as it is and the sample member compressed with zstd
(method 93, multi-frame) like the current writer:

  events-1.5GB      pools-tools.eval, its events followed by blocks of a tool
                    event with a 256 KiB result (2 KiB of it random, so the
                    member compresses about 100:1) and a model event
                    (input_refs into the pool), until the sample holds
                    --events-gb raw
  reply-50MB        attachments.eval with the reply text (an attachment the
  reply-200MB       model event's output refers to, and inline in the
                    outputs and the message) grown to 50 / 200 MB
  attach-small      attachments.eval plus one attachment of 1 KiB that nothing
  attach-1GiB       refers to, or of 1 GiB

Each log is ingested alone in a child process (one worker); the row prints
wall time and peak RSS (ru_maxrss from os.wait4), and the targets: the
events-heavy sample under 768 MiB; the 200 MB reply under 1 GiB with time
linear in size (the 200/50 ratio of wall times, about 4); the 1 GiB
unreferenced attachment costing no more than the small one.

Generated logs are cached under WORK/monster (git-ignored); --clean deletes
them afterwards. Rows run one at a time: a case may take several GiB on a
build that does not stream. A benchmark prints figures; it does not fail
when a target is missed.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import subprocess
import sys
import time

from own import make_own, remove_own  # noqa: E402  (scripts/bench/own.py)
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FIXTURES = os.path.join(ROOT, "testdata", "logs")
GENERATOR_VERSION = 3
MEMBER = "samples/1_epoch_1.json"
CHUNK = 8 << 20

MiB = 1 << 20
TARGET_EVENTS_MIB = 768
TARGET_REPLY_MIB = 1024


def text_block(nbytes: int, salt: str) -> str:
    """Prose-like text (words, sentences, paragraph breaks) of nbytes."""
    words = ("the model answered that a response was given on each step of the task "
             "and then it checked the tool output before it wrote " + salt).split()
    out, n, i = [], 0, 0
    while n < nbytes:
        w = words[(i * 7 + i // 3) % len(words)]
        sep = "\n\n" if i % 97 == 96 else (". " if i % 13 == 12 else " ")
        out.append(w + sep)
        n += len(w) + len(sep)
        i += 1
    return "".join(out)[:nbytes]


def repeat_text(nbytes: int, salt: str):
    """Yields the JSON-escaped body of a string of nbytes (no quotes), in chunks."""
    block = text_block(min(nbytes, 1 << 20), salt)
    body = json.dumps(block)[1:-1]
    left = nbytes
    while left > 0:
        take = min(left, len(block))
        yield body if take == len(block) else json.dumps(block[:take])[1:-1]
        left -= take


def read_fixture(name: str):
    import inspect_ai._util.zipfile  # noqa: F401  (zstd, method 93)
    path = os.path.join(FIXTURES, name)
    with zipfile.ZipFile(path) as z:
        members = [(i, z.read(i)) for i in z.infolist()]
    sample = json.loads(dict((i.filename, b) for i, b in members)[MEMBER])
    return members, sample


def write_log(dst: str, members, pieces) -> int:
    """Writes dst: the fixture's members, with MEMBER's bytes from pieces (an
    iterable of str). Returns the sample's raw bytes."""
    from inspect_ai._util.zipfile import zipfile_compress_kwargs
    tmp = dst + ".tmp"
    raw = 0
    with zipfile.ZipFile(tmp, "w", **zipfile_compress_kwargs) as z:
        for info, data in members:
            if info.filename != MEMBER:
                z.writestr(info.filename, data)
                continue
            with z.open(MEMBER, "w", force_zip64=True) as w:
                buf, held = [], 0
                for p in pieces:
                    buf.append(p)
                    held += len(p)
                    if held >= CHUNK:
                        b = "".join(buf).encode()
                        w.write(b)
                        raw += len(b)
                        buf, held = [], 0
                b = "".join(buf).encode()
                w.write(b)
                raw += len(b)
    os.replace(tmp, dst)
    return raw


def split_on(doc: dict, key: str, marker: str) -> tuple[str, str]:
    s = json.dumps(doc)
    i = s.index(json.dumps(marker))
    return s[:i], s[i + len(json.dumps(marker)):]


def events_case(nbytes: int):
    members, s = read_fixture("pools-tools.eval")
    tool = next(e for e in s["events"] if e["event"] == "tool")
    model = next(e for e in s["events"] if e["event"] == "model")
    events = s["events"]
    s["events"] = "\0EVENTS"
    head, tail = split_on(s, "events", "\0EVENTS")
    result = "".join(repeat_text(256 << 10, "tool"))
    tool = dict(tool, result="\0RESULT")
    th, tt = split_on(tool, "result", "\0RESULT")
    model = json.dumps(model)

    def pieces():
        yield head + "[" + ",".join(json.dumps(e) for e in events)
        n = len(head) + len(tail)
        while n < nbytes:
            # 2 KiB of random text per block keeps the member near 100:1
            # compressed, as a real transcript's tool output would be, and
            # under the ratio at which ingest refuses a member unread.
            salt = base64.b64encode(os.urandom(1536)).decode()
            block = "," + th + '"' + salt + result + '"' + tt + "," + model
            yield block
            n += len(block)
        yield "]" + tail
    return members, pieces()


def reply_case(nbytes: int):
    members, s = read_fixture("attachments.eval")
    text = s["output"]["completion"]
    quoted = json.dumps(text)[1:-1]
    doc = json.dumps(s)
    parts = doc.split(quoted)
    # The reply text where the writer puts the reply: the message, the
    # output's content and completion (sample and model event) and the
    # attachment the event's content refers to. The scorer's copies (its
    # answer, the judge's prompt) keep the fixture's text.
    keys = tuple('"%s": "' % k for k in ["content", "completion"] +
                 [h for h, v in s["attachments"].items() if v == text])

    def pieces():
        for i, p in enumerate(parts):
            if i:
                yield from (repeat_text(nbytes, "reply") if parts[i - 1].endswith(keys) else [quoted])
            yield p
    return members, pieces()


def attach_case(nbytes: int):
    members, s = read_fixture("attachments.eval")
    s["attachments"]["f" * 32] = "\0BIG"
    head, tail = split_on(s, "attachments", "\0BIG")

    def pieces():
        yield head + '"'
        yield from repeat_text(nbytes, "unreferenced")
        yield '"' + tail
    return members, pieces()


def cases(a) -> list[tuple[str, str, callable, int]]:
    mb = 1000 * 1000
    ev = int(a.events_gb * 1000 * mb)
    return [
        ("events", f"events-{a.events_gb:g}GB", events_case, ev),
        ("reply", "reply-50MB", reply_case, 50 * mb),
        ("reply", "reply-200MB", reply_case, 200 * mb),
        ("attach", "attach-small", attach_case, 1 << 10),
        ("attach", "attach-1GiB", attach_case, 1 << 30),
    ]


def ensure(work: str, name: str, make, nbytes: int) -> tuple[str, int]:
    d = os.path.join(work, "monster")
    if not os.path.isdir(d):
        make_own(d)
    path = os.path.join(d, name + ".eval")
    marker = path + ".marker"
    want = {"version": GENERATOR_VERSION, "bytes": nbytes}
    if os.path.exists(path) and os.path.exists(marker):
        with open(marker) as f:
            m = json.load(f)
        if {k: m.get(k) for k in want} == want:
            return path, m["raw"]
    t = time.time()
    members, pieces = make(nbytes)
    raw = write_log(path, members, pieces)
    with open(marker, "w") as f:
        json.dump({**want, "raw": raw}, f)
    print(f"  wrote {path}: sample {raw / MiB:.0f} MiB raw, {os.path.getsize(path) / MiB:.1f} MiB on disk, "
          f"{time.time() - t:.0f}s", flush=True)
    return path, raw


def run(binary: str, path: str, out: str, logs: str) -> dict:
    remove_own(out)
    argv = [binary, "ingest", path, "--out", out, "--progress", "never", "--workers", "1"]
    with open(logs + ".stdout", "wb") as so, open(logs + ".stderr", "wb") as se:
        t0 = time.perf_counter()
        p = subprocess.Popen(argv, stdout=so, stderr=se, cwd=ROOT)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
    code = os.waitstatus_to_exitcode(status)
    with open(logs + ".stdout") as f:
        first = (f.read().splitlines() or [""])[0]
    if code != 0:
        with open(logs + ".stderr") as f:
            print(f"    ! exit {code}: {f.read()[-1500:]}", flush=True)
    remove_own(out)
    return {"wall_seconds": wall, "peak_rss_mib": ru.ru_maxrss / 1024.0, "exit_code": code, "summary": first}


def main() -> None:
    ap = argparse.ArgumentParser(description="peak memory of empties ingest on monster samples")
    ap.add_argument("--bin", default=os.path.join(ROOT, "bin", "empties"))
    ap.add_argument("--work", default=os.path.join(ROOT, "bench"))
    ap.add_argument("--events-gb", type=float, default=1.5, help="raw size of the events-heavy sample (GB)")
    ap.add_argument("--only", default="", help="comma-separated case names to run (default all)")
    ap.add_argument("--clean", action="store_true", help="delete the generated logs afterwards")
    ap.add_argument("--generate-only", action="store_true",
                    help="only write (or reuse) the logs; the rows run in a process that did not write them")
    a = ap.parse_args()
    binary = os.path.abspath(a.bin)
    work = os.path.abspath(a.work)
    logs = os.path.join(work, "monster", "runs")
    os.makedirs(logs, exist_ok=True)

    if a.generate_only:
        for kind, name, make, nbytes in cases(a):
            if not a.only or name in a.only.split(","):
                ensure(work, name, make, nbytes)
        return
    # The logs are written by a child process: a child's peak RSS starts
    # from the high-water mark of the process that forked it (Linux carries
    # it over exec), and writing them (inspect_ai imported, 8 MiB chunks
    # joined) would make that of every row below about 260 MiB.
    subprocess.run([sys.executable, os.path.abspath(__file__), "--generate-only", "--work", work,
                    "--events-gb", str(a.events_gb), "--only", a.only], check=True)

    print("monster samples: one huge sample per log, ingested alone (--workers 1)", flush=True)
    rows = {}
    for kind, name, make, nbytes in cases(a):
        if a.only and name not in a.only.split(","):
            continue
        path, raw = ensure(work, name, make, nbytes)
        r = run(binary, path, os.path.join(work, "monster", "out"), os.path.join(logs, name))
        r["raw_bytes"] = raw
        rows[name] = r
        print(f"  {name:<14} sample {raw / MiB:7.0f} MiB raw  {r['wall_seconds']:7.1f}s  "
              f"peak RSS {r['peak_rss_mib']:7.0f} MiB  ({r['peak_rss_mib'] * MiB / raw:.2f}x)  exit {r['exit_code']}  "
              f"{r['summary']}", flush=True)

    print("targets:", flush=True)
    ev = next((r for n, r in rows.items() if n.startswith("events-")), None)
    if ev:
        print(f"  events-heavy sample peak RSS {ev['peak_rss_mib']:.0f} MiB  (target < {TARGET_EVENTS_MIB})  "
              f"{'ok' if ev['peak_rss_mib'] < TARGET_EVENTS_MIB else 'MISSED'}", flush=True)
    r50, r200 = rows.get("reply-50MB"), rows.get("reply-200MB")
    if r200:
        print(f"  200 MB reply peak RSS {r200['peak_rss_mib']:.0f} MiB  (target < {TARGET_REPLY_MIB})  "
              f"{'ok' if r200['peak_rss_mib'] < TARGET_REPLY_MIB else 'MISSED'}", flush=True)
    if r50 and r200:
        ratio = r200["wall_seconds"] / r50["wall_seconds"]
        print(f"  200 MB / 50 MB reply wall time {ratio:.2f}  (linear: about 4; size ratio "
              f"{r200['raw_bytes'] / r50['raw_bytes']:.2f})", flush=True)
    small, big = rows.get("attach-small"), rows.get("attach-1GiB")
    if small and big:
        print(f"  1 GiB unreferenced attachment peak RSS {big['peak_rss_mib']:.0f} MiB vs small "
              f"{small['peak_rss_mib']:.0f} MiB  (target: no more)  "
              f"{'ok' if big['peak_rss_mib'] <= small['peak_rss_mib'] * 1.1 + 16 else 'MISSED'}", flush=True)
    with open(os.path.join(work, "monster.json"), "w") as f:
        json.dump(rows, f, indent=1)
    if a.clean:
        remove_own(os.path.join(work, "monster"))


if __name__ == "__main__":
    sys.exit(main())
