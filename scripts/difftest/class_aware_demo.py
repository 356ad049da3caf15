#!/usr/bin/env python
"""Write the logs that prove class_aware equal to empties' P3 on the demo evals.

Usage (from the repo root; `make test` runs it through internal/pypkg's
TestClassAwareReproducesP3, which then compares the tables):

    .venv/bin/python scripts/difftest/class_aware_demo.py OUT [--evals a,b]

For every eval of the demo (data/demo: the real inspect_evals task, its
solver, scorers, judges and metrics, with the demo's made-up records and
scripted mockllm judges, scripts/demo/make_demo.py), the model under test is
the demo's simulated gpt-5-mini route, except that each sample is given a
reply of a set class in turn (answers, cut texts, reasoning cut at max_tokens,
silent and reasoning-only replies, refusal flags, OpenAI policy errors,
Anthropic canned apologies and refusal stops, Gemini "(no content)" and
BLOCKED texts, filtered replies with or without text), each shaped by the
provider adapter that produces it. Each eval runs twice with the same replies
and the same scripted judges:

  OUT/p0/<eval>.eval   the task as inspect_evals ships it (policy P0)
  OUT/p3/<eval>.eval   the same task with every scorer wrapped in
                       empties.study.EVALS[<eval>].wrap (class_aware, policy P3)

The Go test ingests and rescores OUT/p0 and checks, sample for sample, that
rescore's P3 value is what the wrapped scorer logged in OUT/p3, that the P3
headline is the metric inspect_ai stored for the wrapped run, and that no judge
was called for a reply P3 re-routes.
"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import sys
import tempfile
import time
import warnings
from contextlib import ExitStack
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "python" / "src"))
sys.path.insert(0, str(REPO / "scripts" / "demo"))
sys.path.insert(0, str(REPO / "scripts" / "fixtures"))

import make_demo as md  # noqa: E402
from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.model import get_model  # noqa: E402

from empties.study import EVALS  # noqa: E402

ROUTE = "gpt-5-mini/openai-responses"
# The reply each sample gets, in turn (sample i, epoch e: KINDS[(i + e - 1) % 12]);
# "answer" is the demo model's own decision (mostly an answer; its glitches stay).
KINDS = [
    "answer", "truncated_text", "truncated_empty", "silent", "reasoning_only", "flag_refusal",
    "policy_error", "canned_apology", "no_content", "blocked_prompt", "filter_empty", "answer",
]
BFCL_KINDS = [
    "answer", "answer", "truncated_empty", "silent", "reasoning_only", "flag_refusal",
    "policy_error", "canned_apology", "no_content", "filter_text", "filter_empty", "answer",
]
# The route whose adapter shapes each provider form (make_demo.shape).
FORM_ROUTE = {
    "policy_error": "gpt-5-mini/openai-responses",
    "flag_refusal": "gpt-5-mini/openai-responses",
    "canned_apology": "claude-sonnet-5/anthropic",
    "refusal_stop": "claude-sonnet-5/anthropic",
    "no_content": "gemini-3.7-flash/google",
    "blocked_prompt": "gemini-3.7-flash/google",
    "safety_block": "gemini-3.7-flash/google",
    "filter_empty": "claude-sonnet-5/openrouter",
    "filter_text": "claude-sonnet-5/openrouter",
}


def forced(decide: Any) -> Any:
    """Wrap make_demo's decide function: the sample's scheduled class instead of the model's draw."""

    def wrapper(ctx: md.Ctx, spec: Any, epoch: int, max_tokens: int | None, *rest: Any) -> md.Outcome:
        o: md.Outcome = decide(ctx, spec, epoch, max_tokens, *rest)
        ev = md.EVALS[ctx.eval]
        keys = sorted(s.key for s in ev.specs)
        kinds = BFCL_KINDS if ctx.eval.startswith("bfcl") else KINDS
        kind = kinds[(keys.index(spec.key) + epoch - 1) % len(kinds)]
        if kind == "answer":
            return o
        if kind == "truncated_text":
            text = o.text or spec.comply
            return md.Outcome("truncated_text", o.stance if o.stance != "empty" else "comply",
                              text[: max(8, len(text) // 2)].rstrip(), reasoning=40, out=max_tokens or 256,
                              correct=False)
        if kind == "truncated_empty":
            cap = max_tokens or ctx.sim.default_max
            return md.Outcome("truncated_empty", "empty", "", reasoning=cap, out=cap, correct=False)
        if kind == "silent":
            return md.Outcome("silent", "empty", "")
        if kind == "reasoning_only":
            return md.Outcome("reasoning_only", "empty", "", reasoning=120, out=120)
        form_ctx = md.Ctx(ctx.eval, FORM_ROUTE[kind], ctx.arm, md.ROUTE_SIMS[FORM_ROUTE[kind]], ctx.group)
        return md.provider_outcome(form_ctx, kind)

    return wrapper


def shape_by_form(shape: Any) -> Any:
    """make_demo.shape with the adapter of the route that produces the form."""

    def wrapper(sim: md.RouteSim, o: md.Outcome, key: str, epoch: int, inp: int) -> Any:
        route = FORM_ROUTE.get(o.kind)
        return shape(md.ROUTE_SIMS[route] if route else sim, o, key, epoch, inp)

    return wrapper


def run(name: str, wrapped: bool, dest: Path, data: Path, work: Path) -> None:
    ev = md.EVALS[name]
    md.OUTCOMES.clear()
    judges = md.Judges(ev, ROUTE, "default", partc=False)
    with ExitStack() as stack:
        task, kwargs = ev.build(stack, judges, data)
        if wrapped:
            settings = EVALS[name]
            task.scorer = [settings.wrap(s) for s in (task.scorer or [])]
        mut = md.ModelUnderTest(ev, ROUTE, "default")
        log_dir = work / f"{'p3' if wrapped else 'p0'}-{name}"
        (log,) = inspect_eval(
            task,
            model=get_model(md.MUT_NAME, custom_outputs=mut, memoize=False),
            display="none", log_dir=str(log_dir), log_format="eval", log_level="error",
            score_display=False, max_samples=8, tags=md.DEMO_TAGS,
            metadata={"empties_eval": name, "empties_route": ROUTE, "empties_arm": "default", "empties_part": "A"},
            **md.ROUTE_SIMS[ROUTE].settings, **kwargs,
        )
    if log.status != "success":
        raise SystemExit(f"{name} ({'class_aware' if wrapped else 'as shipped'}): status {log.status}: {log.error}")
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(log.location, dest)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--evals", default="", help="comma-separated profile names (default: every demo eval)")
    args = ap.parse_args()
    logging.basicConfig(level=logging.WARNING)
    for noisy in ("inspect_ai", "inspect_evals", "httpx", "make_demo"):
        logging.getLogger(noisy).setLevel(logging.ERROR)
    warnings.filterwarnings("ignore")
    os.environ.setdefault("INSPECT_LOG_LEVEL", "error")

    md.decide_refusal_eval = forced(md.decide_refusal_eval)
    md.decide_capability_eval = forced(md.decide_capability_eval)
    md.shape = shape_by_form(md.shape)

    names = [n for n in args.evals.split(",") if n] or list(md.EVALS)
    t0 = time.time()
    with tempfile.TemporaryDirectory(prefix="class-aware-demo-") as tmp:
        work = Path(tmp)
        for name in names:
            for wrapped in (False, True):
                run(name, wrapped, args.out / ("p3" if wrapped else "p0") / f"{name}.eval", work / "data", work)
            print(f"{name}: as shipped and class_aware ({time.time() - t0:.0f}s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
