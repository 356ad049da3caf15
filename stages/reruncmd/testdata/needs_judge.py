"""Write a log whose replies a policy sends to a judge the run never called (needs_judge).

    .venv/bin/python stages/reruncmd/testdata/needs_judge.py OUT.eval

The real inspect_evals XSTest task (safe prompts) with the demo's records and
scripted judge (scripts/demo/make_demo.py), on the demo's simulated
gpt-5-mini, with one change: after the model's reply a solver step overwrites
state.output with an empty completion, as agent and AIR-Bench-style solvers
overwrite it. The eval's guard (preset_score_on_no_response) then scores every
sample without its judge, while the reply empties reads (the model's first
generation) is mostly an answer, which P1-P3 would send to the judge.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from contextlib import ExitStack
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "scripts" / "demo"))

import make_demo as md  # noqa: E402
from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.model import ModelOutput, get_model  # noqa: E402
from inspect_ai.solver import Generate, Solver, TaskState, solver  # noqa: E402

ROUTE = "gpt-5-mini/openai-responses"


@solver
def overwrite_output() -> Solver:
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        state.output = ModelOutput.from_content(str(state.model), "")
        return state

    return solve


def main() -> int:
    dest = Path(sys.argv[1])
    ev = md.EVALS["xstest_safe"]
    work = Path(tempfile.mkdtemp(prefix="needs-judge-"))
    try:
        with ExitStack() as stack:
            task, _ = ev.build(stack, md.Judges(ev, ROUTE, "default", partc=False), work / "data")
            task.solver = [*task.solver, overwrite_output()] if isinstance(task.solver, list) else [task.solver, overwrite_output()]
            (log,) = inspect_eval(
                task, model=get_model(md.MUT_NAME, custom_outputs=md.ModelUnderTest(ev, ROUTE, "default"), memoize=False),
                display="none", log_dir=str(work / "logs"), log_level="error", score_display=False,
                metadata={"empties_eval": "xstest_safe", "empties_route": ROUTE, "empties_arm": "default", "empties_part": "A"},
                tags=md.DEMO_TAGS, **md.ROUTE_SIMS[ROUTE].settings,
            )
        if log.status != "success":
            raise SystemExit(f"status {log.status}: {log.error}")
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(log.location, dest)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
