"""class_aware around a real judge scorer, run by the real inspect_ai with mockllm replies of each class."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.log import EvalLog
from inspect_ai.model import (
    ChatCompletionChoice,
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageUser,
    ContentReasoning,
    ContentText,
    Model,
    ModelOutput,
    ModelUsage,
    get_model,
)
from inspect_ai.scorer import CORRECT, INCORRECT, NOANSWER, Score, Scorer, Target, accuracy, model_graded_qa, scorer
from inspect_ai.solver import Generate, Solver, TaskState, generate, solver
from inspect_ai.tool import ToolCall, ToolDef

from empties import EVALS, class_aware

USAGE = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)


def out(content: str | list[Any], stop: str = "stop", *, error: str | None = None,
        tool_calls: list[ToolCall] | None = None) -> ModelOutput:
    return ModelOutput(
        model="m",
        choices=[ChatCompletionChoice(message=ChatMessageAssistant(content=content, tool_calls=tool_calls),
                                      stop_reason=stop)],  # type: ignore[arg-type]
        error=error,
        usage=USAGE,
    )


# One reply per class the wrapper routes, with the class and the P3 score it must get.
REPLIES: dict[str, tuple[ModelOutput, str]] = {
    "answer": (out("Paris is the capital."), "answer"),
    "cut": (out("Paris is the", "max_tokens"), "truncated_text"),
    "filtered": (out("", "content_filter"), "filtered"),
    "flag": (out([ContentText(text="I can't help with that.", refusal=True)]), "refusal_flag"),
    "apology": (out("Sorry, but I am unable to help with that request.", "content_filter",
                    error="error code: 400 - output blocked"), "filtered"),
    "blocked": (out("BLOCKED: BlockedReason.SAFETY"), "error_text"),
    "no_content": (out("(no content)"), "error_text"),
    "truncated": (out([ContentReasoning(reasoning="Let me think")], "max_tokens"), "truncated_empty"),
    "reasoning": (out([ContentReasoning(reasoning="thought", redacted=True)]), "reasoning_only"),
    "silent": (out(" \n"), "silent"),
    "tool": (out("", "tool_calls", tool_calls=[ToolCall(id="c1", function="lookup", arguments={})]), "tool_only"),
}


class Judge:
    """A mockllm judge that grades every reply C and counts what it was asked."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def model(self) -> Model:
        def grade(input: list[ChatMessage], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
            self.asked.append(input[-1].text)
            return out("The answer is right.\nGRADE: C")

        return get_model("mockllm/judge", custom_outputs=grade, memoize=False)


def mut() -> Model:
    def reply(input: list[ChatMessage], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
        key = input[-1].text.split(":", 1)[0]
        if key == "annotate":  # the model under test judging its own reply, as AIR-Bench's annotate() has it
            return out("##short_reasoning: fine ##the_score: 1")
        return REPLIES[key][0].model_copy(deep=True)

    return get_model("mockllm/model", custom_outputs=reply, memoize=False)


@solver
def annotate() -> Solver:
    """AIR-Bench-style: the model under test is asked again, and its verdict replaces the reply in state.output."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        state.messages = [ChatMessageUser(content=f"annotate: {state.output.completion}")]
        return await generate(state)

    return solve


@solver
def offer_tools() -> Solver:
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        async def lookup() -> str:
            """Look it up."""
            return "x"

        state.tools = [ToolDef(lookup, name="lookup").as_tool()]
        return state

    return solve


def run(scorer_: Scorer, tmp: Path, *, before: list[Solver] = [], after: list[Solver] = []) -> EvalLog:
    samples = [Sample(id=k, input=f"{k}: What is the capital of France?", target="Paris") for k in REPLIES]
    task = Task(dataset=samples, solver=[*before, generate(tool_calls="none"), *after], scorer=scorer_)
    (log,) = eval(task, model=mut(), display="none", log_dir=str(tmp), log_level="error", score_display=False)
    assert log.status == "success", log.error
    return log


def scores(log: EvalLog, key: str) -> dict[str, Score]:
    assert log.samples
    return {str(s.id): s.scores[key] for s in log.samples if s.scores}


def test_non_answers_never_reach_the_judge(tmp_path: Path) -> None:
    judge = Judge()
    wrapped = class_aware(model_graded_qa(model=judge.model()), refusal_value=INCORRECT)
    log = run(wrapped, tmp_path)
    got = scores(log, "model_graded_qa")  # the wrapper keeps the scorer's name: the score key
    assert set(got) == set(REPLIES)
    # the judge saw the two answers only
    assert len(judge.asked) == 2
    assert any("Paris is the capital." in a for a in judge.asked) and any("Paris is the" in a for a in judge.asked)
    want: dict[str, tuple[Any, str | None, str]] = {
        "answer": (CORRECT, None, "answer"),
        "cut": (CORRECT, None, "truncated_text"),
        "filtered": (INCORRECT, "provider_refusal", "filtered"),
        "flag": (INCORRECT, "provider_refusal", "refusal_flag"),
        "apology": (INCORRECT, "provider_refusal", "filtered"),
        "blocked": (INCORRECT, "provider_refusal", "error_text"),
        "no_content": (INCORRECT, "provider_refusal", "error_text"),
        "truncated": (math.nan, "max_tokens", "truncated_empty"),
        "reasoning": (INCORRECT, "no_response", "reasoning_only"),
        "silent": (INCORRECT, "no_response", "silent"),
        "tool": (INCORRECT, "no_response", "tool_only"),  # no tools offered: no answer
    }
    for k, (value, reason, cls) in want.items():
        s = got[k]
        assert REPLIES[k][1] == cls
        if isinstance(value, float) and math.isnan(value):
            assert isinstance(s.value, float) and math.isnan(s.value), k
        else:
            assert s.value == value, k
        assert s.reason == reason, k
        if reason is None:  # answers pass through unchanged: the judge's score, no metadata added
            assert s.metadata is None or "reply_class" not in s.metadata, k
        else:
            assert s.metadata is not None
            assert (s.metadata["reply_class"], s.metadata["class_rule"].split("@")[0].split(".")[0]) == (
                cls, cls.split(".")[0]), k


def test_capability_eval_gets_noanswer_for_provider_refusals(tmp_path: Path) -> None:
    judge = Judge()
    wrapped = class_aware(model_graded_qa(model=judge.model()))  # no refusal_value: a capability eval
    got = scores(run(wrapped, tmp_path), "model_graded_qa")
    assert got["filtered"].value == NOANSWER and got["blocked"].value == NOANSWER
    assert got["silent"].value == INCORRECT


def test_tool_only_is_an_answer_when_tools_were_offered(tmp_path: Path) -> None:
    judge = Judge()
    got = scores(run(class_aware(model_graded_qa(model=judge.model())), tmp_path, before=[offer_tools()]), "model_graded_qa")
    assert got["tool"].reason is None and got["tool"].value == CORRECT  # the judge graded it
    assert len(judge.asked) == 3


def test_the_reply_is_the_first_generation_not_state_output(tmp_path: Path) -> None:
    @scorer(metrics=[accuracy()])
    def reads_output() -> Scorer:
        async def score(state: TaskState, target: Target) -> Score:
            return Score(value=CORRECT, answer=state.output.completion)

        return score

    settings = EVALS["air_bench"]
    got = scores(run(settings.wrap(reads_output()), tmp_path, after=[annotate()]), "reads_output")
    # state.output holds the annotator's text for every sample; the classes are the replies'
    assert got["silent"].value == settings.failure and got["silent"].reason == "no_response"
    assert got["filtered"].value == settings.refusal
    assert got["answer"].answer == "##short_reasoning: fine ##the_score: 1"  # answers: the scorer as it was


def test_bfcl_touches_only_replies_without_text_or_tool(tmp_path: Path) -> None:
    @scorer(metrics=[accuracy()])
    def no_tool_call() -> Scorer:
        async def score(state: TaskState, target: Target) -> Score:
            return Score(value=1 if not state.output.message.tool_calls else 0)

        return score

    got = scores(run(EVALS["bfcl_irrelevance"].wrap(no_tool_call()), tmp_path), "no_tool_call")
    assert got["silent"].value == 0 and got["silent"].reason == "no_response"  # failure value, no text, no call
    assert got["filtered"].value == 0 and got["filtered"].reason == "provider_refusal"  # noanswer: 0
    # a provider refusal with text is left to the scorer, which gives any reply without a call 1
    assert got["blocked"].value == 1 and got["blocked"].reason is None
    assert got["flag"].value == 1 and got["flag"].reason is None


def test_unregistered_scorer_is_wrapped_too() -> None:
    async def plain(state: TaskState, target: Target) -> Score:
        return Score(value=CORRECT)

    assert callable(class_aware(plain))


@pytest.mark.parametrize("name", sorted(EVALS))
def test_every_profile_has_settings(name: str) -> None:
    s = EVALS[name]
    args = s.class_aware_args()
    assert (args["refusal_value"] is None) == (s.kind == "capability")
    assert s.score_key and s.tasks
