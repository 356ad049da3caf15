"""The demo's harness for `empties rerun`: simulated models for the demo's plans.

    empties rerun PLAN.json --manifest data/study.yaml --harness scripts/demo/rerun_harness.py

EVERY REPLY IT GIVES IS SIMULATED. `empties rerun` runs each group of a plan
with the real inspect_ai (eval_set) and the real inspect_evals task; this file
only supplies what the demo cannot have for real (see python/src/empties/study/rerun.py
for the two hooks):

  setup(group)   the demo's made-up records in place of each eval's dataset
                 download (make_demo.EVALS[eval].build with no judges: only its
                 patches), for as long as the group runs
  model(name, group, role)
                 mockllm models with scripted outputs for the names the plan
                 gives: the model under test (mockllm/model) simulates the
                 group's route in its arm (make_demo.ModelUnderTest: the same
                 deterministic draws as the demo's other arms), and each judge
                 (mockllm/xstest-judge, ...) gives the demo's verdicts
                 (make_demo.Judges), which in a Part C replay depend on the
                 sample's form and repeat (sample metadata empties_form,
                 empties_sample_id, empties_repeat)

Nothing else is changed: the task, its solver (or, for a replay, empties'
replay solver), its scorer, judges' prompts, metrics and the log are inspect's.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import make_demo as md  # noqa: E402
from inspect_ai.model import Model, get_model  # noqa: E402

_state: dict[str, Any] = {}


@contextmanager
def setup(group: Mapping[str, Any]) -> Iterator[None]:
    meta = group.get("metadata") or {}
    ev = md.EVALS[meta["empties_eval"]]
    route, arm = meta.get("empties_route", ""), meta.get("empties_arm", "default")
    replay = group.get("replay") is not None
    partc = meta.get("empties_part") == "C"
    md.OUTCOMES.clear()
    data = Path(tempfile.mkdtemp(prefix="empties-demo-harness-"))
    try:
        with ExitStack() as stack:
            ev.build(stack, None, data)   # the demo records in place of the dataset downloads
            _state.update(
                judges=md.Judges(ev, route, arm, partc=partc),
                mut=None if replay else get_model(md.MUT_NAME, custom_outputs=md.ModelUnderTest(ev, route, arm),
                                                  memoize=False),
            )
            yield
    finally:
        _state.clear()
        shutil.rmtree(data, ignore_errors=True)


def model(name: str, group: Mapping[str, Any], role: str) -> Model | None:
    if not _state:
        raise RuntimeError("the demo harness makes models inside setup() only")
    if role == "model_under_test":
        if name != md.MUT_NAME:
            raise RuntimeError(f"demo harness: the model under test is {name!r}, the demo's is {md.MUT_NAME}")
        return _state["mut"]  # type: ignore[no-any-return]
    if name.startswith("mockllm/"):
        return _state["judges"].model(name)  # type: ignore[no-any-return]
    raise RuntimeError(f"demo harness: {role} model {name!r} is not one of the demo's mockllm judges")
