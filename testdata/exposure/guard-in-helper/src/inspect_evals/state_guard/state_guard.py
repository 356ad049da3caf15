"""The scorer calls a helper of its own module that tests the completion,
and returns early before the judge: guarded."""

from inspect_ai import Task, task
from inspect_ai.model import get_model
from inspect_ai.scorer import INCORRECT, Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState


def _no_answer(state: TaskState) -> bool:
    return not state.output.completion.strip()


@scorer(metrics=[])
def state_guard_scorer() -> Scorer:
    async def score(state: TaskState, target: Target) -> Score:
        if _no_answer(state):
            return Score(value=INCORRECT, reason="no_response")
        result = await get_model(role="grader").generate(state.output.completion)
        return Score(value=result.completion)

    return score


@task
def state_guard() -> Task:
    return Task(dataset=[], scorer=state_guard_scorer())
