"""The replay solver in a real eval: the reply stored as given, graded by the task's judge, no model call."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.event import ModelEvent
from inspect_ai.log import list_eval_logs, read_eval_log
from inspect_ai.model import ChatMessage, ChatMessageAssistant, Model, ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import accuracy, model_graded_qa

from empties import classify
from empties.study.replay import REPLAY_KEY, REPLAYED_KEY, replay

NO_CONTENT = "(no content)"  # inspect_ai's placeholder for an empty message (_util/constants.py NO_CONTENT)

# The Part C forms of data/study.yaml whose text a placeholder could replace.
TEXTS = {"empty": "", "whitespace": " \n", "no_content": NO_CONTENT, "blocked": "BLOCKED: BlockedReason.SAFETY"}


class Judge:
    """A mockllm judge that records the reply it was shown and grades it I."""

    def __init__(self) -> None:
        self.shown: list[str] = []

    def model(self) -> Model:
        def grade(input: list[ChatMessage], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
            prompt = input[-1].text
            self.shown.append(prompt.split("[Submission]: ", 1)[1].split("\n***\n", 1)[0])
            out = ModelOutput.from_content("mockllm/judge", "The submission does not answer.\nGRADE: I")
            out.usage = ModelUsage(input_tokens=40, output_tokens=8, total_tokens=48)  # (no tokenizer download)
            return out

        return get_model("mockllm/judge", custom_outputs=grade, memoize=False)


def task(judge: Judge, per_sample: bool) -> Task:
    samples = [
        Sample(id=f"q__{form}", input="What is the capital of France?", target="Paris",
               metadata={REPLAY_KEY: text} if per_sample else {})
        for form, text in TEXTS.items()
    ]
    return Task(dataset=samples, scorer=model_graded_qa(model=judge.model()), metrics=[accuracy()])


def run(tmp_path: Path, t: Task, **kwargs: Any) -> Path:
    (log,) = eval(t, model="none/none", log_dir=str(tmp_path), display="none", log_level="error",
                  score_display=False, **kwargs)
    assert log.status == "success", log.error
    (info,) = list_eval_logs(str(tmp_path))
    return Path(info.name.removeprefix("file://"))


def test_replayed_text_is_stored_exactly(tmp_path: Path) -> None:
    judge = Judge()
    path = run(tmp_path, task(judge, per_sample=True), solver=replay())
    log = read_eval_log(str(path))  # from the file, as every reader sees it
    assert log.samples is not None and len(log.samples) == len(TEXTS)
    for s in log.samples:
        want = TEXTS[str(s.id).split("__", 1)[1]]
        assistant = [m for m in s.messages if isinstance(m, ChatMessageAssistant)]
        assert len(assistant) == 1
        assert s.output.completion == want, s.id
        assert assistant[0].text == want, s.id
        assert s.output.choices[0].message.text == want, s.id
        assert s.metadata[REPLAYED_KEY] == want
        if want != NO_CONTENT:  # only the form that IS the placeholder may hold it
            stored = s.output.model_dump_json() + "".join(m.model_dump_json() for m in s.messages)
            assert NO_CONTENT not in stored, s.id
        # the model under test (none/none, which raises if called) was never called: the
        # only model events are the judge's
        calls = [e for e in s.events if isinstance(e, ModelEvent)]
        assert [e.model for e in calls] == ["mockllm/judge"], s.id
        assert s.scores is not None and s.scores["model_graded_qa"].value == "I"
        # empties reads the replayed reply as the reply (sample.output: no model event of its own)
        c = classify(s)
        assert c.reply.source == "sample_output" and c.reply.text == want, s.id
    # the judge was shown each text as it is (model_graded_qa has no empty guard)
    assert sorted(judge.shown) == sorted(TEXTS.values())


def test_one_text_for_every_sample(tmp_path: Path) -> None:
    judge = Judge()
    path = run(tmp_path, task(judge, per_sample=False), solver=replay(text=""))
    log = read_eval_log(str(path))
    assert log.samples is not None
    assert {s.output.completion for s in log.samples} == {""}
    assert judge.shown == [""] * len(TEXTS)
    assert log.plan.steps[0].params == {"text": ""}


def test_sample_without_text_is_an_error(tmp_path: Path) -> None:
    judge = Judge()
    (log,) = eval(task(judge, per_sample=False), model="none/none", solver=replay(), log_dir=str(tmp_path),
                  display="none", log_level="error", score_display=False, fail_on_error=False)
    assert log.samples is not None
    for s in log.samples:
        assert s.error is not None and "no text to replay" in s.error.message
    assert judge.shown == []


@pytest.mark.parametrize("text", ["", " \n"])
def test_replay_output(text: str) -> None:
    from empties.study.replay import replay_output

    out = replay_output(text, "none/none")
    assert out.completion == text and out.stop_reason == "stop" and out.message.text == text
