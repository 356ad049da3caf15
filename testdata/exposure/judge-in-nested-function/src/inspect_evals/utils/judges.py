"""A shared judge scorer outside any eval folder, with no guard, and one no
eval uses."""

from inspect_ai.model import get_model
from inspect_ai.scorer import Score, Scorer, Target, model_graded_qa, scorer
from inspect_ai.solver import TaskState


@scorer(metrics=[])
def grade_with_llm(role: str = "grader") -> Scorer:
    async def score(state: TaskState, target: Target) -> Score:
        reply = await get_model(role=role).generate(state.output.completion)
        return Score(value=reply.completion)

    return score


def unused_judge() -> Scorer:
    return model_graded_qa()
