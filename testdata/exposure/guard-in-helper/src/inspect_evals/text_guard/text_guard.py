"""The helper gets the completion text, not the state: its parameter is
traced to the completion through the call. The judge runs in the else
branch."""

from inspect_ai import Task, task
from inspect_ai.model import get_model
from inspect_ai.scorer import INCORRECT, Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState


def is_blank(text: str) -> bool:
    return text.strip() == ""


@scorer(metrics=[])
def text_guard_scorer() -> Scorer:
    async def score(state: TaskState, target: Target) -> Score:
        completion = state.output.completion
        if is_blank(completion):
            value = INCORRECT
        else:
            judge = get_model(role="grader")
            value = (await judge.generate(completion)).completion
        return Score(value=value)

    return score


@task
def text_guard() -> Task:
    return Task(dataset=[], scorer=text_guard_scorer())
