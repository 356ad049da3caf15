"""The guard is a shared helper in utils/, imported by name: reported at the
call, and the judge is guarded."""

from inspect_ai import Task, task
from inspect_ai.scorer import INCORRECT, Score, Target, model_graded_qa
from inspect_ai.solver import TaskState

from inspect_evals.utils.checks import no_reply

judge = model_graded_qa()


async def guarded_score(state: TaskState, target: Target) -> Score | None:
    if no_reply(state):
        return Score(value=INCORRECT)
    return await judge(state, target)


@task
def shared_guard() -> Task:
    return Task(dataset=[], scorer=guarded_score)
