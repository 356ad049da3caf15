"""classify() on the fixture logs the real inspect_ai wrote, and the reply rule on its event objects."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai.event import Event, ModelEvent, SpanBeginEvent, StepEvent
from inspect_ai.log import read_eval_log
from inspect_ai.model import (
    ChatCompletionChoice,
    ChatMessageAssistant,
    ChatMessageUser,
    ContentReasoning,
    GenerateConfig,
    ModelOutput,
)

from empties import choose_reply, classify, classify_reply, is_non_answer
from empties.reply import blank


def golden(fixtures: Path) -> list[dict[str, str]]:
    lines = (fixtures / "golden.tsv").read_text(encoding="utf-8").splitlines()
    cols = lines[0].split("\t")
    return [dict(zip(cols, ln.split("\t"))) for ln in lines[1:]]


def test_golden_fixtures(fixtures: Path) -> None:
    rows = golden(fixtures)
    assert len(rows) >= 27
    seen = set()
    for row in rows:
        log = read_eval_log(str(fixtures / row["fixture"]), resolve_attachments=True)
        assert log.samples is not None
        (sample,) = [s for s in log.samples if str(s.id) == row["sample_id"]]
        c = classify(sample, eval_model=log.eval.model)
        tools = "NULL" if c.tools_offered is None else str(c.tools_offered).lower()
        got = (c.name, c.rule, tools, str(c.non_answer).lower())
        want = (row["expected_class"], row["expected_rule"] + "@v1", row["tools_offered"], row["expected_non_answer"])
        assert got == want, row["fixture"]
        seen.add(c.name)
    assert seen == {
        "error", "no_choices", "filtered", "refusal_flag", "error_text", "truncated_empty",
        "tool_only", "reasoning_only", "silent", "truncated_text", "answer",
    }


def test_airbench_overwrite_reads_the_first_generation(fixtures: Path) -> None:
    # The annotating solver overwrites sample.output with the judge's text;
    # the reply is the model's own first generation (whitespace: silent).
    log = read_eval_log(str(fixtures / "airbench-overwrite.eval"), resolve_attachments=True)
    assert log.samples
    s = log.samples[0]
    assert s.output.completion.strip() != ""
    c = classify(s, eval_model=log.eval.model)
    assert c.name == "silent" and c.reply.source == "model_event" and c.reply.call_index == 0


PROMPTS: dict[str, ChatMessageUser] = {}


def _output(text: str = "hello", stop: str = "stop") -> ModelOutput:
    return ModelOutput(
        model="m",
        choices=[ChatCompletionChoice(message=ChatMessageAssistant(content=text), stop_reason=stop)],  # type: ignore[arg-type]
    )


def _event(
    output: ModelOutput,
    *,
    span: str | None = "s1",
    model: str = "mockllm/model",
    role: str | None = None,
    error: str | None = None,
    pending: bool | None = None,
    prompt: str = "q",
) -> ModelEvent:
    # one message object per prompt: a retried attempt sends the very same
    # messages (their ids included), as inspect_ai's retry loop does
    message = PROMPTS.setdefault(prompt, ChatMessageUser(content=prompt))
    return ModelEvent(
        model=model,
        role=role,
        input=[message],
        tools=[],
        tool_choice="auto",
        config=GenerateConfig(),
        output=output,
        error=error,
        pending=pending,
        span_id=span,
    )


def test_placeholders_and_retried_attempts_are_skipped() -> None:
    events: list[Event] = [
        SpanBeginEvent(id="s1", name="generate", type="solver"),
        _event(ModelOutput.from_content("m", ""), pending=True),
        _event(ModelOutput.from_content("m", ""), error="RateLimitError"),
        _event(_output("the answer")),
    ]
    r = choose_reply(events, None, eval_model="mockllm/model")
    assert [c.status for c in r.calls] == ["placeholder", "retried", "completed"]
    assert r.call_index == 2 and r.text == "the answer"
    assert r.failed_attempts == 1 and r.placeholders_skipped == 1
    assert classify_reply(r).name == "answer"


def test_an_error_another_input_follows_failed_for_good() -> None:
    events: list[Event] = [
        _event(ModelOutput.from_content("m", ""), error="BadRequest", prompt="first"),
        _event(_output("later"), prompt="second"),
    ]
    r = choose_reply(events, None, eval_model="mockllm/model")
    assert [c.status for c in r.calls] == ["failed", "completed"]
    assert r.call_index == 0 and r.call_error == "BadRequest"


def test_judges_and_other_calls_are_not_the_reply() -> None:
    events: list[Event] = [
        SpanBeginEvent(id="sc", name="scorers", type="scorers"),
        SpanBeginEvent(id="j", parent_id="sc", name="model_graded_qa", type="scorer"),
        _event(_output("GRADE: C"), span="j", model="openai/gpt-4o"),
        _event(_output("graded"), role="grader"),
        _event(_output("helper"), role="helper"),
        _event(_output("other model"), model="anthropic/claude"),
        StepEvent(action="begin", type="scorer", name="legacy"),
        _event(_output("legacy judge"), span=None),
        StepEvent(action="end", type="scorer", name="legacy"),
    ]
    r = choose_reply(events, _output("   "), eval_model="mockllm/model")
    assert [(c.kind, c.kind_reason) for c in r.calls] == [
        ("judge", "scorer_span"),
        ("judge", "grader_role"),
        ("other", "other_role"),
        ("other", "other_model"),
        ("judge", "scorer_step"),
    ]
    assert r.calls[0].scorer == "model_graded_qa"
    # no call of the model under test: sample.output is the reply (it is no judge's text)
    assert r.source == "sample_output" and classify_reply(r).name == "silent"
    # unless it is a judge's text
    r = choose_reply(events, _output("GRADE: C"), eval_model="mockllm/model")
    assert r.source == "none" and classify_reply(r).name == "no_choices"


def test_a_judge_at_any_depth_is_a_judge() -> None:
    # 20,000 spans between the scorer span and the call (a walk cut at 1,000
    # took it for the model under test's reply), and a parent chain that loops
    spans: list[Event] = [SpanBeginEvent(id="sc", name="model_graded_qa", type="scorer")]
    parent = "sc"
    for d in range(20_000):
        spans.append(SpanBeginEvent(id=f"d{d}", parent_id=parent, name=f"level{d}"))
        parent = f"d{d}"
    spans += [SpanBeginEvent(id="x", parent_id="y", name="x"), SpanBeginEvent(id="y", parent_id="x", name="y")]
    events: list[Event] = [*spans, _event(_output("JUDGE SAYS GRADE: C"), span=parent), _event(_output("mine"), span="x")]
    r = choose_reply(events, None, eval_model="mockllm/model")
    assert [(c.kind, c.kind_reason, c.scorer) for c in r.calls] == [
        ("judge", "scorer_span", "model_graded_qa"),
        ("model_under_test", "eval_model", None),
    ]
    assert r.text == "mine"


def test_reasoning_only_cut_is_truncated_empty_and_tool_rule() -> None:
    cut = ModelOutput(
        model="m",
        choices=[
            ChatCompletionChoice(
                message=ChatMessageAssistant(content=[ContentReasoning(reasoning="thinking")]), stop_reason="max_tokens"
            )
        ],
    )
    r = choose_reply([_event(cut)], None, eval_model="mockllm/model")
    c = classify_reply(r)
    assert (c.name, c.rule, c.non_answer, c.tools_offered) == ("truncated_empty", "truncated_empty@v1", True, False)
    assert is_non_answer("tool_only", False) and not is_non_answer("tool_only", True)
    assert not is_non_answer("tool_only", None)  # unknown reads as offered
    assert not is_non_answer("error", False) and not is_non_answer("no_choices", False)


@pytest.mark.parametrize(
    ("text", "is_blank"),
    [("", True), (" \n\t", True), ("\u00a0\u3000", True), ("\x1c", False), ("x", False), ("\u200b", False)],
)
def test_blank_is_ingests_text_blank(text: str, is_blank: bool) -> None:
    # Go's strings.TrimSpace: U+001C..U+001F are not spaces there (Python's
    # str.strip would remove them); U+200B is no space in either.
    assert blank(text) is is_blank


def test_final_is_the_last_generation_with_its_own_attempts() -> None:
    events: list[Event] = [
        SpanBeginEvent(id="s1", name="generate", type="solver"),
        _event(ModelOutput.from_content("m", ""), error="RateLimitError", prompt="turn 1"),
        _event(_output("   "), prompt="turn 1"),
        _event(ModelOutput.from_content("m", ""), pending=True, prompt="turn 2"),
        _event(ModelOutput.from_content("m", ""), error="Overloaded", prompt="turn 2"),
        _event(ModelOutput.from_content("m", ""), error="Overloaded", prompt="turn 2"),
        _event(_output("The answer is 4"), prompt="turn 2"),
        _event(_output("GRADE: C"), role="grader", prompt="grade"),  # a judge's, never the reply
    ]
    first = choose_reply(events, None, eval_model="mockllm/model", rule="first")
    final = choose_reply(events, None, eval_model="mockllm/model", rule="final")
    assert (first.rule, first.call_index, classify_reply(first).name) == ("first", 1, "silent")
    assert (final.rule, final.call_index, classify_reply(final).name) == ("final", 5, "answer")
    assert (first.failed_attempts, first.placeholders_skipped) == (1, 0)
    assert (final.failed_attempts, final.placeholders_skipped) == (2, 1)  # its own generation's only
    with pytest.raises(ValueError, match="reply rule 'last'"):
        choose_reply(events, None, eval_model="mockllm/model", rule="last")  # type: ignore[arg-type]
