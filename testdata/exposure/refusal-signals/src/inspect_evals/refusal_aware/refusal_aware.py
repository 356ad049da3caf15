"""Reads the model's refusal signals before the judge (a guard), and sets
fail_on_refusal and retry_refusals."""

from inspect_ai import Task, task
from inspect_ai.agent import react
from inspect_ai.model import ContentText, GenerateConfig, get_model
from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState


@scorer(metrics=[])
def refusal_aware_scorer() -> Scorer:
    async def score(state: TaskState, target: Target) -> Score:
        output = state.output
        if output.stop_reason == "content_filter":
            return Score.unscored(reason="refusal")
        refused = any(
            isinstance(c, ContentText) and c.refusal for c in output.message.content
        )
        reply = await get_model(role="grader").generate(output.completion)
        return Score(value=reply.completion, metadata={"refused": refused})

    return score


@task
def refusal_aware() -> Task:
    return Task(
        dataset=[],
        solver=react(retry_refusals=3),
        scorer=refusal_aware_scorer(),
        config=GenerateConfig(fail_on_refusal=True),
    )
