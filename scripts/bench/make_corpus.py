#!/usr/bin/env python
"""Build the `make bench` corpus: realistic Inspect AI logs, >= 1 GB raw JSON.

Usage (from the repo root, in the project's virtual environment):

    .venv/bin/python scripts/bench/make_corpus.py --out bench/corpus [--target-gb 1.0]

A few *base* logs are written by the real, pinned inspect_ai through its
``mockllm`` provider, shaped like the logs of a study:

* several hundred samples per log, multi-turn tool use (``use_tools`` with two
  tools; the model calls them 0-4 times before answering), so the .eval writer
  pools messages and model calls into ``events_data``;
* replies of 0.5-4 KB of text, some with ``ContentReasoning`` (plain and
  redacted), and a mix of reply shapes a study meets: answers, refusals,
  empty replies, reasoning-only and max_tokens truncations;
* a ``model_graded_qa`` judge bound to the ``grader`` model role, with its own
  mockllm outputs ending in ``GRADE: C`` or ``GRADE: I``;
* one base log with 2 epochs; the default zstd ``.eval`` format, plus one base
  log in the ``.json`` format.

Every ModelOutput carries an explicit ``usage``: without it mockllm counts
tokens with tiktoken, which downloads an encoding and fails offline.

The base logs are then copied (plain file copies, new names, in sub-folders)
until the corpus holds at least ``--target-gb`` of raw JSON: the sum of the
uncompressed sizes of all zip members (``ZipInfo.file_size``) of the .eval
logs plus the sizes of the .json logs.

The corpus is cached: if ``<out>/CORPUS.marker`` exists and records the same
target and generator version, the corpus is reused as it is. The marker (not a
.json file, so ingest never looks at it) also lists every file with its raw
bytes and sample count; bench.py reads it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import shutil
import sys
import tempfile
import time

from own import make_own, remove_own  # noqa: E402  (scripts/bench/own.py)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures"))
import ingest_fixtures as fx  # noqa: E402  (scripts/fixtures: the shared environment set-up)
import zipfile

GENERATOR_VERSION = 4
MARKER = "CORPUS.marker"

# base logs: (name, format, samples, epochs, seed)
BASES = [
    ("agent-a", "eval", 320, 1, 11),
    ("agent-b", "eval", 280, 1, 22),
    ("agent-epochs", "eval", 150, 2, 33),
    ("agent-json", "json", 200, 1, 44),
]

# --------------------------------------------------------------------------
# text that compresses like model prose (a few hundred words, Zipf-ish use)

WORDS = """
the of and to a in is that for it as with was on be by this are or from at an
which not have has but can its also more one all their will been would there
were other they some when these into than most may only then such after any
over new first two used each many between both through under model answer
question result data value function file system user request error output input
test case step first second next final because however therefore although while
should could might must need include includes including example examples use
using based approach method process analysis number numbers list table section
check checks checked return returns returned call calls called tool tools search
query source sources document documents page pages line lines code python script
run runs running command commands shell directory path paths config option options
important note notes consider considering given assume assumed information details
specific general common typical likely unlikely clear unclear correct incorrect
true false compute computed computing estimate estimated measure measured total
average mean median range variance sample samples score scores metric metrics
evaluate evaluation task tasks agent agents plan plans goal goals review reviewed
summary summarize summarized explain explained explanation reason reasons reasoning
look looks looked find found finding findings show shows shown report reported
""".split()

CODE = [
    "import json\nimport sys\n",
    "def main(argv):\n    data = json.load(open(argv[1]))\n    return len(data)\n",
    "for i, row in enumerate(rows):\n    if row['score'] > threshold:\n        print(i, row)\n",
    "result = sum(x * x for x in values) / max(1, len(values))\n",
    "with open(path) as f:\n    lines = [l.strip() for l in f if l.strip()]\n",
]

WEIGHTS = [1.0 / (i + 1) ** 0.9 for i in range(len(WORDS))]


def prose(rng: random.Random, nbytes: int) -> str:
    out: list[str] = []
    n = 0
    while n < nbytes:
        k = rng.randint(8, 22)
        ws = rng.choices(WORDS, WEIGHTS, k=k)
        s = " ".join(ws).capitalize() + rng.choice([".", ".", ".", "?", ":", ";"])
        if rng.random() < 0.08:
            s += " " + str(rng.randint(0, 100000)) + "."
        if rng.random() < 0.07:
            s += "\n\n```python\n" + rng.choice(CODE) + "```\n"
        if rng.random() < 0.15:
            s += "\n\n"
        else:
            s += " "
        out.append(s)
        n += len(s)
    return "".join(out)[:nbytes].rstrip()


# --------------------------------------------------------------------------
# environment


# the fixtures' own: inspect_ai's settings out of the environment, its
# data, cache and state dirs in scratch
prepare_env = fx._prepare_env


def usage(inp: int, out: int):
    from inspect_ai.model import ModelUsage

    # explicit usage always: mockllm otherwise counts tokens with tiktoken,
    # which needs a network download
    return ModelUsage(input_tokens=inp, output_tokens=out, total_tokens=inp + out)


def model_output(content, stop_reason="stop", tool_calls=None, model="mockllm/model", inp=1000, out=200):
    from inspect_ai.model import ChatCompletionChoice, ChatMessageAssistant, ModelOutput

    return ModelOutput(
        model=model,
        choices=[
            ChatCompletionChoice(
                message=ChatMessageAssistant(content=content, tool_calls=tool_calls, model=model,
                                             source="generate"),
                stop_reason=stop_reason,
            )
        ],
        usage=usage(inp, out),
    )


# --------------------------------------------------------------------------
# the task


def make_tools():
    from inspect_ai.tool import tool

    @tool
    def web_search():
        async def execute(query: str) -> str:
            """Search the web and return the top results as text.

            Args:
              query: The search query.

            Returns:
              The results, one per paragraph.
            """
            rng = random.Random(hashlib.sha256(query.encode()).digest())
            return "\n\n".join(f"[{i + 1}] https://example.org/{rng.randint(1, 10**6)}\n"
                               + prose(rng, rng.randint(150, 700)) for i in range(rng.randint(2, 4)))

        return execute

    @tool
    def python():
        async def execute(code: str) -> str:
            """Run Python code in a sandbox and return its output.

            Args:
              code: The code to run.

            Returns:
              Standard output and standard error.
            """
            rng = random.Random(hashlib.sha256(code.encode()).digest())
            if rng.random() < 0.15:
                return ("Traceback (most recent call last):\n  File \"<stdin>\", line 3, in <module>\n"
                        "KeyError: 'score'\n")
            return "\n".join(f"{rng.randint(0, 999)} {rng.random():.6f}" for _ in range(rng.randint(5, 60)))

        return execute

    return [web_search(), python()]


def sample_rng(msgs, salt: str) -> tuple[random.Random, str]:
    from inspect_ai.model import ChatMessageUser

    first = next(m.text for m in msgs if isinstance(m, ChatMessageUser))
    return random.Random(hashlib.sha256((salt + first).encode()).digest()), first


def solver_model(seed: int):
    """mockllm responder for the model under test: 0-4 tool turns, then a reply.

    The first call's output is the reply the tables classify, so a third of
    the samples answer at once and the reply shapes vary.
    """
    from inspect_ai._util.content import ContentReasoning, ContentText
    from inspect_ai.model import ChatMessageAssistant, ChatMessageTool, get_model
    from inspect_ai.tool import ToolCall

    def respond(input, tools, tool_choice, config):
        rng, first = sample_rng(input, f"m{seed}")
        turn = sum(1 for m in input if isinstance(m, ChatMessageAssistant))
        n_tools = rng.choice([0, 0, 1, 2, 3, 4])  # a third answer straight away
        kind = rng.random()  # fixed per sample: reply shape of the final turn
        rng = random.Random(rng.random() + turn)  # per-turn stream
        inp = 800 + sum(len(m.text) for m in input) // 4
        if turn < n_tools and tools:
            tool = rng.choice(["web_search", "python"])
            args = ({"query": prose(rng, rng.randint(30, 90))} if tool == "web_search"
                    else {"code": rng.choice(CODE) + rng.choice(CODE)})
            text = prose(rng, rng.randint(100, 900)) if rng.random() < 0.7 else ""
            content = [ContentText(text=text)] if text else []
            if rng.random() < 0.3:
                content.insert(0, ContentReasoning(reasoning=prose(rng, rng.randint(200, 1500))))
            return model_output(content or "", stop_reason="tool_calls",
                                tool_calls=[ToolCall(id=f"call_{rng.getrandbits(48):012x}",
                                                     function=tool, arguments=args)],
                                inp=inp, out=len(text) // 4 + 20)
        # final reply
        if kind < 0.04:
            return model_output("", inp=inp, out=0)  # silent
        if kind < 0.07:
            return model_output([ContentReasoning(reasoning=prose(rng, rng.randint(500, 3000)))],
                                stop_reason="max_tokens", inp=inp, out=4096)
        if kind < 0.11:
            return model_output([ContentText(text="I can't help with that request. " + prose(rng, rng.randint(100, 400)),
                                             refusal=True if kind < 0.09 else None)], inp=inp, out=60)
        if kind < 0.15:
            text = prose(rng, rng.randint(2500, 4000))
            return model_output(text, stop_reason="max_tokens", inp=inp, out=4096)
        text = prose(rng, rng.randint(500, 4000))
        if kind < 0.45:
            r = rng.random()
            reasoning = (ContentReasoning(reasoning=prose(rng, rng.randint(300, 2500))) if r < 0.7 else
                         ContentReasoning(reasoning="gAAAAB" + "".join(rng.choices("abcdefghijklmnopqrstuvwxyz0123456789", k=rng.randint(300, 1200))),
                                          redacted=True, summary=prose(rng, 200), signature=f"sig-{rng.getrandbits(64):x}"))
            return model_output([reasoning, ContentText(text=text)], inp=inp, out=len(text) // 4)
        return model_output(text, inp=inp, out=len(text) // 4)

    return get_model("mockllm/model", custom_outputs=respond, memoize=False)


def grader_model(seed: int):
    from inspect_ai.model import ChatMessageUser, get_model

    def respond(input, tools, tool_choice, config):
        text = next(m.text for m in input if isinstance(m, ChatMessageUser))
        rng = random.Random(hashlib.sha256((f"g{seed}" + text).encode()).digest())
        grade = "C" if rng.random() < 0.6 else "I"
        return model_output(prose(rng, rng.randint(200, 900)) + f"\n\nGRADE: {grade}",
                            model="mockllm/grader", inp=len(text) // 4, out=150)

    return get_model("mockllm/grader", custom_outputs=respond, memoize=False)


def build_task(name: str, n: int, epochs: int, seed: int):
    from inspect_ai import Task
    from inspect_ai.dataset import Sample
    from inspect_ai.scorer import model_graded_qa
    from inspect_ai.solver import generate, system_message, use_tools

    rng = random.Random(seed)
    samples = [
        Sample(id=i + 1,
               input=f"Task {seed}-{i + 1}. " + prose(rng, rng.randint(200, 1200)),
               target=prose(rng, rng.randint(40, 200)),
               metadata={"category": rng.choice(["research", "coding", "analysis", "safety"]),
                         "difficulty": rng.randint(1, 5)})
        for i in range(n)
    ]
    return Task(
        name=name,
        dataset=samples,
        solver=[system_message("You are a careful research assistant. " + prose(rng, 600)),
                use_tools(*make_tools()), generate()],
        scorer=model_graded_qa(),
        epochs=epochs,
    )


def run_base(scratch: str, name: str, fmt: str, n: int, epochs: int, seed: int) -> str:
    from inspect_ai import eval as inspect_eval

    d = os.path.join(scratch, "runs", name)
    os.makedirs(d, exist_ok=True)
    logs = inspect_eval(
        build_task(name, n, epochs, seed),
        model=solver_model(seed),
        model_roles={"grader": grader_model(seed)},
        log_dir=d,
        log_format=fmt,
        display="none",
        log_level="error",
        max_samples=64,  # log_model_api left at its default, as a user runs it
    )
    assert len(logs) == 1 and logs[0].status == "success", (logs[0].status, logs[0].error)
    files = [os.path.join(d, f) for f in os.listdir(d) if f.endswith("." + fmt)]
    assert len(files) == 1, files
    return files[0]


# --------------------------------------------------------------------------
# measuring


def file_facts(path: str) -> dict:
    """raw = all uncompressed JSON bytes of the file; samples = sample count."""
    if path.endswith(".eval"):
        with zipfile.ZipFile(path) as z:
            infos = z.infolist()
        last = {i.filename for i in infos}  # duplicate names: the last wins
        return {"raw": sum(i.file_size for i in infos),
                "samples": sum(1 for n in last if n.startswith("samples/") and n.endswith(".json"))}
    with open(path, "rb") as f:
        doc = json.load(f)
    return {"raw": os.path.getsize(path), "samples": len(doc.get("samples") or [])}


def read_marker(out: str) -> dict | None:
    try:
        with open(os.path.join(out, MARKER)) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def print_summary(m: dict, reused: bool, seconds: float | None = None) -> None:
    files = m["files"]
    raw = sum(f["raw"] for f in files)
    comp = sum(f["size"] for f in files)
    samples = sum(f["samples"] for f in files)
    n_eval = sum(1 for f in files if f["path"].endswith(".eval"))
    how = "reused" if reused else f"built in {seconds:.0f}s"
    print(f"corpus {m['dir']} ({how}): {len(files)} files ({n_eval} .eval, {len(files) - n_eval} .json) "
          f"from {len(m['bases'])} base logs, {samples} samples, "
          f"{raw / 1e9:.2f} GB raw JSON, {comp / 1e9:.3f} GB on disk "
          f"(target {m['target_bytes'] / 1e9:.2f} GB raw)", flush=True)


# --------------------------------------------------------------------------


def build(out: str, target: int) -> dict:
    t0 = time.time()
    scratch = tempfile.mkdtemp(prefix="empties-corpus-")
    try:
        prepare_env(scratch)
        import inspect_ai  # noqa: F401
        import inspect_ai._util.zipfile  # noqa: F401  (zstd, method 93)

        remove_own(out)  # only a corpus this script made (or an empty folder)
        make_own(out)  # marked from the start: an interrupted build is removed by the next
        os.makedirs(os.path.join(out, "base"))
        bases = []
        for name, fmt, n, epochs, seed in BASES:
            t = time.time()
            src = run_base(scratch, name, fmt, n, epochs, seed)
            dst = os.path.join(out, "base", f"{name}.{fmt}")
            shutil.move(src, dst)
            facts = file_facts(dst)
            bases.append({"path": os.path.relpath(dst, out), "size": os.path.getsize(dst), **facts})
            print(f"  base {dst}: {facts['samples']} samples, {facts['raw'] / 1e6:.1f} MB raw, "
                  f"{os.path.getsize(dst) / 1e6:.1f} MB on disk, {time.time() - t:.0f}s", flush=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    files = list(bases)
    total = sum(f["raw"] for f in files)
    copy = 0
    while total < target:
        b = bases[copy % len(bases)]
        copy += 1
        sub = os.path.join(out, f"run-{(copy - 1) // 8:03d}", f"task-{(copy - 1) % 8}")
        os.makedirs(sub, exist_ok=True)
        base = os.path.basename(b["path"])
        stem, ext = os.path.splitext(base)
        dst = os.path.join(sub, f"2026-01-{1 + copy % 28:02d}T12-00-00+00-00_{stem}_{copy:04d}{ext}")
        shutil.copyfile(os.path.join(out, b["path"]), dst)
        files.append({**b, "path": os.path.relpath(dst, out), "copy_of": b["path"]})
        total += b["raw"]

    m = {"version": GENERATOR_VERSION, "target_bytes": target, "dir": out,
         "bases": [b["path"] for b in bases], "files": files}
    with open(os.path.join(out, MARKER), "w") as f:
        json.dump(m, f, indent=1)
    print_summary(m, reused=False, seconds=time.time() - t0)
    return m


def ensure(out: str, target: int) -> dict:
    m = read_marker(out)
    if (m and m.get("version") == GENERATOR_VERSION and m.get("target_bytes") == target
            and all(os.path.exists(os.path.join(out, f["path"])) for f in m["files"])):
        m["dir"] = out
        print_summary(m, reused=True)
        return m
    return build(out, target)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="bench/corpus")
    ap.add_argument("--target-gb", type=float, default=1.0, help="raw JSON to reach (GB, 1e9 bytes)")
    a = ap.parse_args()
    ensure(a.out, int(a.target_gb * 1e9))


if __name__ == "__main__":
    sys.exit(main())
