"""The guard is a helper in another module of the same eval, imported
relatively, called as a statement: it raises on an empty reply."""

from inspect_ai import Task, task
from inspect_ai.model import get_model
from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from .checks import reply_missing


@scorer(metrics=[])
def module_guard_scorer() -> Scorer:
    async def score(state: TaskState, target: Target) -> Score:
        reply_missing(state)
        result = await get_model(role="grader").generate(state.output.completion)
        return Score(value=result.completion)

    return score


@task
def module_guard() -> Task:
    return Task(dataset=[], scorer=module_guard_scorer())
