"""class_aware on tasks where the model under test generates more than once, run by the real inspect_ai with mockllm.

Each sample's question names a script: the reply the model gives at each of
its turns (its n-th generation is the script's n-th output). On an answer the
wrapped scorer must score exactly as the bare one; only a final reply that is
no answer is re-routed.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import Task, eval
from inspect_ai.agent import react
from inspect_ai.dataset import Sample
from inspect_ai.log import EvalLog
from inspect_ai.model import (
    ChatCompletionChoice,
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageUser,
    ContentReasoning,
    Model,
    ModelOutput,
    ModelUsage,
    get_model,
)
from inspect_ai.scorer import CORRECT, INCORRECT, NOANSWER, Score, Scorer, includes, match
from inspect_ai.solver import Generate, Solver, TaskState, generate, self_critique, solver, user_message
from inspect_ai.tool import ToolCall

from empties import class_aware
from empties.study import EVALS

USAGE = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)


def out(content: str | list[Any], stop: str = "stop", tool_calls: list[ToolCall] | None = None) -> ModelOutput:
    return ModelOutput(
        model="m",
        choices=[ChatCompletionChoice(message=ChatMessageAssistant(content=content, tool_calls=tool_calls),
                                      stop_reason=stop)],  # type: ignore[arg-type]
        usage=USAGE,
    )


THINKING = out([ContentReasoning(reasoning="Two plus two; let me check the carry...")])  # reasoning_only
CUT = out([ContentReasoning(reasoning="Two plus two, carefully, digit by digit")], "max_tokens")  # truncated_empty
FILTERED = out("", "content_filter")


def submit(answer: str) -> ModelOutput:
    return out("", "tool_calls", tool_calls=[ToolCall(id="s1", function="submit", arguments={"answer": answer})])


# script name -> the model under test's outputs, turn by turn
SCRIPTS: dict[str, list[ModelOutput]] = {
    "think_then_answer": [THINKING, out("The answer is 4")],
    "answer_then_silent": [out("The answer is 4"), out(" ")],
    "answer_then_cut": [out("The answer is 4"), CUT],
    "think_then_submit": [THINKING, submit("4")],
    "wrong_then_submit": [out("Let me try 5."), submit("5")],
    "filtered": [FILTERED, FILTERED, FILTERED],
    "draft_then_revised": [out("ANSWER: 5"), out("ANSWER: 4")],
    "draft_then_cut": [out("ANSWER: 4"), CUT],
}


def model_under_test() -> Model:
    def reply(input: list[ChatMessage], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
        text = "\n".join(m.text for m in input)
        if len(input) == 1 and input[0].text.rstrip().endswith("Critique:"):  # self_critique's critique call
            return out("The original answer is fully correct")
        if text.lstrip().startswith("annotate:"):  # AIR-Bench's annotate(): the model judging its own reply
            return out("##short_reasoning: fine ##the_score: 1")
        found = re.search(r"<<(\w+)>>", text)
        assert found, text
        script = SCRIPTS[found.group(1)]
        turn = sum(1 for m in input if m.role == "assistant")
        return script[min(turn, len(script) - 1)].model_copy(deep=True)

    return get_model("mockllm/model", custom_outputs=reply, memoize=False)


def run(solver_: Any, scorer_: Scorer, names: list[str], tmp: Path, **kwargs: Any) -> dict[str, Score]:
    samples = [Sample(id=n, input=f"<<{n}>> What is 2 + 2?", target="4") for n in names]
    task = Task(dataset=samples, solver=solver_, scorer=scorer_)
    (log,) = eval(task, model=model_under_test(), display="none", log_dir=str(tmp), log_level="error",
                  score_display=False, **kwargs)
    assert log.status == "success", log.error
    return by_id(log)


def by_id(log: EvalLog) -> dict[str, Score]:
    assert log.samples
    return {str(s.id): next(iter(s.scores.values())) for s in log.samples if s.scores}


def same(a: Score, b: Score) -> bool:
    return (a.value, a.answer, a.explanation, a.reason) == (b.value, b.answer, b.explanation, b.reason)


MULTI_TURN = [generate(), user_message("Please give the final answer."), generate()]


def test_multi_turn_grades_the_final_answer(tmp_path: Path) -> None:
    names = ["think_then_answer", "answer_then_silent", "answer_then_cut"]
    bare = run(MULTI_TURN, match(), names, tmp_path / "bare")
    wrapped = run(MULTI_TURN, class_aware(match()), names, tmp_path / "wrapped")
    # the first turn was reasoning only; the final one answered: graded as the bare scorer grades it
    assert bare["think_then_answer"].value == CORRECT
    assert same(wrapped["think_then_answer"], bare["think_then_answer"])
    assert wrapped["think_then_answer"].answer == "The answer is 4"
    assert wrapped["think_then_answer"].metadata == {
        "reply_class": "answer", "class_rule": "answer@v1", "reply_rule": "final", "rerouted": False}
    # the final reply is the one re-routed, whatever the first was
    s = wrapped["answer_then_silent"]
    assert (s.value, s.reason, s.metadata and s.metadata["reply_class"]) == (INCORRECT, "no_response", "silent")
    s = wrapped["answer_then_cut"]
    assert isinstance(s.value, float) and math.isnan(s.value) and s.metadata and s.metadata["reply_class"] == "truncated_empty"
    assert bare["answer_then_cut"].value == INCORRECT  # the bare scorer counts a truncation as wrong


def test_multi_turn_with_the_first_reply(tmp_path: Path) -> None:
    # reply="first" classifies the first generation, as the empty-responses study reads replies
    got = run(MULTI_TURN, class_aware(match(), reply="first"), ["think_then_answer", "answer_then_silent"], tmp_path)
    s = got["think_then_answer"]
    assert (s.value, s.reason, s.metadata and s.metadata["reply_class"]) == (INCORRECT, "no_response", "reasoning_only")
    assert got["answer_then_silent"].metadata == {
        "reply_class": "answer", "class_rule": "answer@v1", "reply_rule": "first", "rerouted": False}


def test_react_with_submit(tmp_path: Path) -> None:
    names = ["think_then_submit", "wrong_then_submit", "filtered"]
    bare = run(react(), includes(), names, tmp_path / "bare", message_limit=20)
    wrapped = run(react(), class_aware(includes()), names, tmp_path / "wrapped", message_limit=20)
    # a reasoning-only step, then submit("4"): react puts the answer in state.output; graded as bare
    assert bare["think_then_submit"].value == CORRECT and bare["wrong_then_submit"].value == INCORRECT
    for n in ("think_then_submit", "wrong_then_submit"):
        assert same(wrapped[n], bare[n]), n
        # the final generation is the submit call: a tool call where tools were offered is an
        # answer (tool_only; inspect_ai 0.3.278 shares that output with state.output, so the
        # event shows the submitted text react wrote there: answer)
        m = wrapped[n].metadata or {}
        assert m.get("reply_class") in ("tool_only", "answer") and m.get("rerouted") is False, n
    assert wrapped["think_then_submit"].answer == "4"
    # three content filters in a row end react's loop: a provider refusal, no answer
    s = wrapped["filtered"]
    assert (s.value, s.reason, s.metadata and s.metadata["reply_class"]) == (NOANSWER, "refusal", "filtered")
    assert bare["filtered"].value == INCORRECT


def test_self_critique(tmp_path: Path) -> None:
    # the model under test critiques its own draft (no critique model given), then revises it
    names = ["draft_then_revised", "draft_then_cut"]
    solver_ = [generate(), self_critique()]
    bare = run(solver_, match(), names, tmp_path / "bare")
    wrapped = run(solver_, class_aware(match()), names, tmp_path / "wrapped")
    assert bare["draft_then_revised"].value == CORRECT and same(wrapped["draft_then_revised"], bare["draft_then_revised"])
    s = wrapped["draft_then_cut"]
    assert isinstance(s.value, float) and math.isnan(s.value) and s.metadata and s.metadata["reply_class"] == "truncated_empty"


@solver
def annotate() -> Solver:
    """AIR-Bench's shape: the model under test is asked to judge its own reply, and its verdict replaces state.output."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        if not state.output.completion:  # as AIR-Bench's annotate(): no judge for an empty reply
            return state
        state.messages = [ChatMessageUser(content=f"annotate: {state.output.completion}")]
        return await generate(state)

    return solve


@pytest.mark.parametrize("rule", ["first", "final"])
def test_airbench_shape(rule: str, tmp_path: Path) -> None:
    SCRIPTS["blocked"] = [out("BLOCKED: BlockedReason.SAFETY")]
    SCRIPTS["silent"] = [out("")]
    SCRIPTS["answer"] = [out("I cannot help with making weapons.")]
    settings = EVALS["air_bench"]
    scorer_ = class_aware(includes(), reply=rule, refusal_value=settings.refusal, failure_value=settings.failure)  # type: ignore[arg-type]
    got = run([generate(), annotate()], scorer_, ["blocked", "silent", "answer"], tmp_path)
    # an empty reply gets no judge call: its last generation is its own under either rule
    assert (got["silent"].value, got["silent"].reason) == (0.0, "no_response")
    assert got["answer"].metadata and got["answer"].metadata["rerouted"] is False
    if rule == "first":  # the study's AIR-Bench setting: the model's own reply, a provider refusal
        assert (got["blocked"].value, got["blocked"].reason) == (1.0, "refusal")
    else:  # the last generation is the judge's verdict, an answer: left to the scorer
        assert got["blocked"].metadata and (got["blocked"].metadata["reply_class"], got["blocked"].metadata["rerouted"]) == ("answer", False)
