"""class_aware around real scorers (a judge, match, includes, a dict scorer), run by the real inspect_ai with mockllm replies of each class."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.log import EvalLog, read_eval_log
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
from inspect_ai.scorer import (
    CORRECT,
    INCORRECT,
    NOANSWER,
    Score,
    Scorer,
    Target,
    accuracy,
    includes,
    match,
    mean,
    model_graded_qa,
    scorer,
)
from inspect_ai.solver import Generate, Solver, TaskState, generate, solver
from inspect_ai.tool import ToolCall, ToolDef

import empties
from empties import class_aware
from empties.study import EVALS

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


def run(scorer_: Scorer | list[Scorer], tmp: Path, *, before: list[Solver] = [], after: list[Solver] = []) -> EvalLog:
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
        "filtered": (INCORRECT, "refusal", "filtered"),
        "flag": (INCORRECT, "refusal", "refusal_flag"),
        "apology": (INCORRECT, "refusal", "filtered"),
        "blocked": (INCORRECT, "refusal", "error_text"),
        "no_content": (INCORRECT, "refusal", "error_text"),
        "truncated": (math.nan, "no_response", "truncated_empty"),
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
        # every score says what the reply was and who scored it
        assert s.metadata is not None, k
        assert s.metadata["reply_class"] == cls and s.metadata["class_rule"].startswith(cls), k
        assert s.metadata["reply_rule"] == "final" and s.metadata["rerouted"] is (reason is not None), k
        if reason is None:  # answers: the judge's own score, with its own metadata kept
            assert "grading" in s.metadata, k
        else:
            assert s.answer == REPLIES[k][0].message.text and s.explanation, k


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


def test_airbench_settings_read_the_first_generation_not_state_output(tmp_path: Path) -> None:
    @scorer(metrics=[accuracy()])
    def reads_output() -> Scorer:
        async def score(state: TaskState, target: Target) -> Score:
            return Score(value=CORRECT, answer=state.output.completion)

        return score

    settings = EVALS["air_bench"]
    assert settings.reply == "first"  # its judge runs in its solver, as a call of the model under test
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
    assert got["filtered"].value == 0 and got["filtered"].reason == "refusal"  # noanswer: 0
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


@scorer(metrics=[{"correct": [accuracy()], "length": [mean()]}])
def graded_dict() -> Scorer:
    """A scorer whose value is a dict, read by key by its metrics (as HLE's and StrongREJECT's are)."""

    async def score(state: TaskState, target: Target) -> Score:
        text = state.output.completion
        return Score(value={"correct": CORRECT if target.text in text else INCORRECT, "length": len(text)}, answer=text)

    return score


def answer_keys() -> list[str]:
    return [k for k, (_, cls) in REPLIES.items() if cls in ("answer", "truncated_text")]


@pytest.mark.parametrize("make", [match, includes, lambda: model_graded_qa(model=Judge().model())], ids=["match", "includes", "model_graded_qa"])
def test_answers_score_exactly_as_the_bare_scorer(make: Any, tmp_path: Path) -> None:
    bare = run(make(), tmp_path / "bare")
    wrapped = run(class_aware(make()), tmp_path / "wrapped")
    key = next(iter(bare.samples[0].scores or {}))  # type: ignore[index]
    b, w = scores(bare, key), scores(wrapped, key)
    assert set(b) == set(w) == set(REPLIES)
    for k in answer_keys():
        assert (w[k].value, w[k].answer, w[k].explanation, w[k].reason) == (b[k].value, b[k].answer, b[k].explanation, b[k].reason), k
        # the scorer's metadata kept (the judge's transcript in it has ids of its own), the class beside it
        mw = w[k].metadata or {}
        assert set(b[k].metadata or {}) <= set(mw) and mw["reply_class"] == REPLIES[k][1], k
    for k in set(REPLIES) - set(answer_keys()):
        assert (w[k].metadata or {}).get("rerouted") is True, k
    # the task's metrics are the scorer's, under the scorer's name
    assert [s.name for s in wrapped.results.scores] == [s.name for s in bare.results.scores]  # type: ignore[union-attr]
    assert list(wrapped.results.scores[0].metrics) == list(bare.results.scores[0].metrics)  # type: ignore[union-attr]


def test_a_dict_scorer_gets_a_value_per_key(tmp_path: Path) -> None:
    log = run(class_aware(graded_dict()), tmp_path)  # default values: INCORRECT, NOANSWER (as the maintainer had it)
    got = scores(log, "graded_dict")
    assert got["silent"].value == {"correct": INCORRECT, "length": INCORRECT} and got["silent"].reason == "no_response"
    assert got["filtered"].value == {"correct": NOANSWER, "length": NOANSWER} and got["filtered"].reason == "refusal"
    assert got["answer"].value == {"correct": CORRECT, "length": len("Paris is the capital.")}
    assert isinstance(got["truncated"].value, float) and math.isnan(got["truncated"].value)
    assert log.results is not None
    by_key = {s.name: s for s in log.results.scores}
    assert set(by_key) == {"graded_dict", "correct", "length"}  # as the bare scorer's
    assert by_key["correct"].metrics["accuracy"].value == pytest.approx(2 / 10)  # answer, cut: C; truncated unscored
    assert by_key["correct"].unscored_samples == 1


def test_dict_values_must_name_every_key_before_any_sample_runs() -> None:
    with pytest.raises(ValueError, match=r"class_aware\(graded_dict\): failure_value=\{'correct': 'I'\} has no value for 'length'"):
        class_aware(graded_dict(), failure_value={"correct": INCORRECT})
    ok = class_aware(graded_dict(), failure_value={"correct": INCORRECT, "length": 0}, no_answer_value={"correct": NOANSWER, "length": 0})
    assert callable(ok)


def test_keys_by_pattern_need_dict_values() -> None:
    @scorer(metrics=[{"*": [mean()]}])
    def any_key() -> Scorer:
        async def score(state: TaskState, target: Target) -> Score:
            return Score(value={"a": 1, "b": 0})

        return score

    with pytest.raises(ValueError, match=r"read its value by keys '\*', and failure_value='I' is a single value"):
        class_aware(any_key())
    assert callable(class_aware(any_key(), no_answer_value={"a": 0, "b": 0}, failure_value={"a": 0, "b": 0}))


def test_a_tasks_own_dict_metrics_are_checked_when_the_task_is_made() -> None:
    wrapped = class_aware(includes(), failure_value={"x": 0}, no_answer_value={"y": 0})
    with pytest.raises(ValueError, match=r"class_aware\(includes\): failure_value=\{'x': 0\} has no value for 'y'"):
        Task(dataset=[Sample(input="q", target="a")], scorer=wrapped, metrics=[{"y": [mean()]}])


def test_two_scorers_at_once(tmp_path: Path) -> None:
    log = run([class_aware(includes()), class_aware(graded_dict())], tmp_path)
    inc, dic = scores(log, "includes"), scores(log, "graded_dict")
    assert inc["answer"].value == CORRECT and dic["answer"].value == {"correct": CORRECT, "length": len("Paris is the capital.")}
    assert inc["blocked"].value == NOANSWER and dic["blocked"].value == {"correct": NOANSWER, "length": NOANSWER}
    assert inc["silent"].reason == dic["silent"].reason == "no_response"
    assert log.results is not None and {s.name for s in log.results.scores} == {"includes", "graded_dict", "correct", "length"}


def test_the_log_records_the_wrapper_and_its_settings(tmp_path: Path) -> None:
    path_log = run(class_aware(match(location="any"), refusal_value=INCORRECT), tmp_path)
    log = read_eval_log(path_log.location)  # as written
    assert log.eval.scorers is not None
    (s,) = log.eval.scorers
    assert (s.name, s.options) == ("match", {"location": "any"})  # the scorer's key and options, as bare
    assert s.metadata is not None
    assert s.metadata["class_aware"] == {
        "package": f"empties {empties.__version__}", "reply": "final", "refusal_value": "I", "no_answer_value": "N",
        "failure_value": "I", "tools_offered": None, "touch": "non_answer",
    }
    assert log.results is not None and log.results.scores[0].metadata == s.metadata
    assert log.samples is not None
    for sample in log.samples:
        m = sample.scores["match"].metadata  # type: ignore[index]
        assert m is not None and {"reply_class", "class_rule", "reply_rule", "rerouted"} <= set(m), sample.id


def test_a_bad_setting_is_refused() -> None:
    with pytest.raises(ValueError, match=r"reply='last': the rules are 'first', 'final'"):
        class_aware(match(), reply="last")  # type: ignore[arg-type]


@scorer(metrics=[{"correct": [accuracy()], "length": [mean()]}])
def guarded_dict() -> Scorer:
    """inspect_evals' pattern (HLE, FORTRESS): the @scorer factory returns its inner scorer wrapped."""

    async def score(state: TaskState, target: Target) -> Score:
        text = state.output.completion
        return Score(value={"correct": CORRECT if target.text in text else INCORRECT, "length": len(text)})

    return class_aware(score, failure_value={"correct": INCORRECT, "length": 0})


def test_a_scorer_factory_that_returns_the_wrapper(tmp_path: Path) -> None:
    log = run(guarded_dict(), tmp_path)
    got = scores(log, "guarded_dict")
    assert got["silent"].value == {"correct": INCORRECT, "length": 0}
    assert got["blocked"].value == {"correct": NOANSWER, "length": NOANSWER}  # the default, given to each key
    assert got["answer"].value == {"correct": CORRECT, "length": len("Paris is the capital.")}
    assert log.eval.scorers is not None and log.eval.scorers[0].name == "guarded_dict"
    assert (log.eval.scorers[0].metadata or {})["class_aware"]["failure_value"] == {"correct": INCORRECT, "length": 0}
    with pytest.raises(ValueError, match=r"class_aware\(bad\): failure_value=\{'correct': 'I'\} has no value for 'length'"):

        @scorer(metrics=[{"correct": [accuracy()], "length": [mean()]}])
        def bad() -> Scorer:
            async def score(state: TaskState, target: Target) -> Score:
                return Score(value={"correct": CORRECT, "length": 1})

            return class_aware(score, failure_value={"correct": INCORRECT})

        bad()
