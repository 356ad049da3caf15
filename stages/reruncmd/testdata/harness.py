"""The tests' harness for `empties rerun` (stages/reruncmd/rerun_test.go).

The demo's simulated models (scripts/demo/rerun_harness.py), with every call
of the model under test recorded as one JSON line (sample id, epoch) in the
file $EMPTIES_TEST_CALLS, and, when $EMPTIES_TEST_KILL_AT is n, the Python
process killed outright (SIGKILL, as a crash or an out-of-memory kill would)
at the n-th call, before it answers; when $EMPTIES_TEST_GATE_AT is n, the
n-th call waits, before it answers, until the file $EMPTIES_TEST_GATE exists
(the test then knows which sample is in flight while it signals or kills;
signal handlers still run while it waits), and so does the first call of
this process for one of the samples $EMPTIES_TEST_GATE_SAMPLES lists. In a Part B group the judge grades every
reply C and records what it was shown, one JSON line per call, in
$EMPTIES_TEST_JUDGED.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "scripts" / "demo"))

import make_demo as md  # noqa: E402
import rerun_harness as demo  # noqa: E402
from inspect_ai.model import ChatMessage, ModelOutput, ModelUsage, get_model  # noqa: E402
from inspect_ai.solver._task_state import sample_state  # noqa: E402

setup = demo.setup


def model(name: str, group: Any, role: str) -> Any:
    if role == "model_under_test" or (group.get("metadata") or {}).get("empties_part") != "B":
        return demo.model(name, group, role)

    def grade(input: list[ChatMessage], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
        st = sample_state()
        assert st is not None
        with open(os.environ["EMPTIES_TEST_JUDGED"], "a", encoding="utf-8") as f:
            f.write(json.dumps({"id": st.sample_id, "prompt": input[-1].text}) + "\n")
        out = ModelOutput.from_content(name, "The response answers the question.\nGRADE: C")
        out.usage = ModelUsage(input_tokens=100, output_tokens=10, total_tokens=110)
        return out

    return get_model(name, custom_outputs=grade, memoize=False)

_answer = md.ModelUnderTest.__call__
_gated: list[Any] = []


def _counted(self: md.ModelUnderTest, input: Any, tools: Any, tool_choice: Any, config: Any) -> Any:
    st = sample_state()
    assert st is not None
    calls = os.environ["EMPTIES_TEST_CALLS"]
    with open(calls, "a", encoding="utf-8") as f:
        f.write(json.dumps({"id": st.sample_id, "epoch": st.epoch}) + "\n")
    with open(calls, encoding="utf-8") as f:
        n = sum(1 for _ in f)
    kill = os.environ.get("EMPTIES_TEST_KILL_AT")
    if kill and n >= int(kill):
        os.kill(os.getpid(), signal.SIGKILL)
    gate = os.environ.get("EMPTIES_TEST_GATE")
    samples = (os.environ.get("EMPTIES_TEST_GATE_SAMPLES") or "").split(",")
    if gate and (n == int(os.environ.get("EMPTIES_TEST_GATE_AT") or 0) or (str(st.sample_id) in samples and not _gated)):
        _gated.append(st.sample_id)
        while not os.path.exists(gate):
            time.sleep(0.05)
    return _answer(self, input, tools, tool_choice, config)


md.ModelUnderTest.__call__ = _counted  # type: ignore[method-assign]
