"""The judge call sits in a function nested in the scorer's inner function."""

from inspect_ai import Task, task
from inspect_ai.model import get_model
from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState


@scorer(metrics=[])
def nested_judge_scorer() -> Scorer:
    async def score(state: TaskState, target: Target) -> Score:
        async def ask(prompt: str) -> str:
            model = get_model(role="grader")
            reply = await model.generate(prompt)
            return reply.completion

        verdict = await ask(f"Grade: {state.output.completion}")
        return Score(value=verdict)

    return score


@task
def nested_judge() -> Task:
    return Task(dataset=[], scorer=nested_judge_scorer())
