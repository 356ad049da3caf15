"""A scorer calling its own judge model, with no guard."""

from inspect_ai import Task, task
from inspect_ai.model import get_model
from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState


def _grader():
    return get_model(role="grader", default="openai/gpt-4o")


@scorer(metrics=[])
def own_judge_scorer() -> Scorer:
    async def score(state: TaskState, target: Target) -> Score:
        grader = _grader()
        answer = state.output.completion
        result = await grader.generate(f"Grade this answer: {answer}")
        return Score(value=result.completion)

    return score


@task
def own_judge() -> Task:
    return Task(dataset=[], scorer=[own_judge_scorer()])
