"""``python -m empties rerun``'s runner on a small registered task: re-runs and replays through eval_set."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.log import list_eval_logs, read_eval_log
from inspect_ai.model import Model
from inspect_ai.scorer import model_graded_qa
from inspect_ai.solver import generate

import empties.study.rerun as rr
from empties.study.rerun import is_model_config, run_spec


@task
def empties_rerun_test_task(judge: Model | str = "mockllm/judge") -> Task:
    samples = [Sample(id=i, input=f"question {i}", target="yes") for i in (1, 2, 3)]
    return Task(dataset=samples, solver=generate(), scorer=model_graded_qa(model=judge))


HARNESS = '''
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.solver._task_state import sample_state

SEEN = []   # (who, sample id, epoch, max_tokens or the prompt's last line)


def model(name, group, role):
    def out(text):
        o = ModelOutput.from_content(name, text)
        o.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
        return o

    def mut(input, tools, tool_choice, config):
        st = sample_state()
        SEEN.append(("mut", st.sample_id, st.epoch, config.max_tokens))
        return out("yes")

    def judge(input, tools, tool_choice, config):
        st = sample_state()
        SEEN.append(("judge", st.sample_id, st.epoch, input[-1].text.split("[Submission]: ", 1)[1].split("\\n***", 1)[0]))
        return out("GRADE: C")

    return get_model(name, custom_outputs=mut if role == "model_under_test" else judge, memoize=False)
'''


def spec(tmp_path: Path, group: dict[str, Any]) -> dict[str, Any]:
    (tmp_path / "harness.py").write_text(HARNESS, encoding="utf-8")
    base = {"index": 1, "label": "test", "log_dir": str(tmp_path / "logs"), "task": "empties_rerun_test_task",
            "task_args": {"judge": {"model": "mockllm/judge", "config": {}, "base_url": None, "model_args": {}}},
            "metadata": {"empties_part": "A"}, "tags": ["t"]}
    return {"format": 1, "harness": str(tmp_path / "harness.py"), "groups": [{**base, **group}]}


def run(tmp_path: Path, s: dict[str, Any]) -> tuple[int, list[dict[str, Any]], Any]:
    events = io.StringIO()
    rr._events = events
    try:
        code = run_spec(s)
    finally:
        rr._events = None
    (info,) = list_eval_logs(str(tmp_path / "logs"))
    return code, [json.loads(x) for x in events.getvalue().splitlines()], read_eval_log(info.name)


def seen() -> list[tuple[Any, ...]]:
    import sys

    return list(sys.modules["empties_rerun_harness"].SEEN)


def test_model_configs() -> None:
    assert is_model_config({"model": "openai/gpt-4o", "config": {}, "base_url": None, "model_args": {}})
    assert is_model_config({"model": "mockllm/hle-grader", "config": {}, "base_url": None, "args": {}})
    assert not is_model_config({"model": "x", "scorer": "y"}) and not is_model_config("openai/gpt-4o")


def test_rerun_group_runs_planned_ids_epochs_and_settings(tmp_path: Path) -> None:
    code, events, log = run(tmp_path, spec(tmp_path, {"model": "mockllm/model", "config": {"max_tokens": 7, "bogus": 1},
                                                       "epochs": 2, "sample_ids": [2]}))
    assert code == 0
    assert [e["event"] for e in events] == ["group_start", "sample", "sample", "group_end"]
    assert events[-1]["ok"] and events[-1]["run"] == 2 and events[-1]["samples"] == 2
    assert sorted((s.id, s.epoch) for s in log.samples) == [(2, 1), (2, 2)]
    assert log.eval.metadata["empties_part"] == "A" and log.eval.tags == ["t"]
    assert sorted(x for x in seen() if x[0] == "mut") == [("mut", 2, 1, 7), ("mut", 2, 2, 7)]
    assert log.eval.task_args["judge"]["model"] == "mockllm/judge"


def test_replay_group_grades_each_reply_with_no_model_under_test(tmp_path: Path) -> None:
    replays = [
        {"id": 1, "new_id": "1__empty__r1", "text": "", "metadata": {"empties_form": "empty", "empties_repeat": 1}},
        {"id": 1, "new_id": "1__ws__r1", "text": " \n", "metadata": {"empties_form": "ws", "empties_repeat": 1}},
        {"id": 3, "new_id": "3__empty__r1", "text": "", "metadata": {"empties_form": "empty", "empties_repeat": 1}},
    ]
    code, events, log = run(tmp_path, spec(tmp_path, {"epochs": 1, "replay": replays}))
    assert code == 0 and events[-1]["ok"]
    assert log.eval.model == "none/none"
    got = {s.id: (s.output.completion, s.metadata["empties_replay"], s.metadata["empties_replayed"], s.input)
           for s in log.samples}
    assert got == {"1__empty__r1": ("", "", "", "question 1"), "1__ws__r1": (" \n", " \n", " \n", "question 1"),
                   "3__empty__r1": ("", "", "", "question 3")}
    assert not [x for x in seen() if x[0] == "mut"]
    assert sorted(x[3] for x in seen() if x[0] == "judge") == ["", "", " \n"]


def test_unknown_task_fails_the_group_not_the_run(tmp_path: Path) -> None:
    (tmp_path / "logs").mkdir()
    s = spec(tmp_path, {"task": "no_such_task", "model": "mockllm/model", "epochs": 1})
    events = io.StringIO()
    rr._events = events
    try:
        code = run_spec(s)
    finally:
        rr._events = None
    end = json.loads(events.getvalue().splitlines()[-1])
    assert code == 1 and end["event"] == "group_end" and not end["ok"] and "no task 'no_such_task'" in end["error"]
