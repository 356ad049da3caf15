"""The same nested judge, but the caller returns early on an empty reply."""

from inspect_ai import Task, task
from inspect_ai.model import get_model
from inspect_ai.scorer import INCORRECT, Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState


@scorer(metrics=[])
def nested_guarded_scorer() -> Scorer:
    async def score(state: TaskState, target: Target) -> Score:
        async def ask(prompt: str) -> str:
            reply = await get_model(role="grader").generate(prompt)
            return reply.completion

        if not state.output.completion.strip():
            return Score(value=INCORRECT)
        verdict = await ask(state.output.completion)
        return Score(value=verdict)

    return score


@task
def nested_guarded() -> Task:
    return Task(dataset=[], scorer=nested_guarded_scorer())
