"""Reads stop_reason of the judge's reply, after the judge ran: no guard for
the model's empty reply."""

from inspect_ai import Task, task
from inspect_ai.model import get_model
from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState


@scorer(metrics=[])
def judge_refusal_scorer() -> Scorer:
    async def score(state: TaskState, target: Target) -> Score:
        result = await get_model(role="grader").generate(state.output.completion)
        if result.stop_reason == "content_filter":
            return Score.unscored(reason="grader_failed")
        return Score(value=result.completion)

    return score


@task
def judge_refusal() -> Task:
    return Task(dataset=[], scorer=judge_refusal_scorer())
