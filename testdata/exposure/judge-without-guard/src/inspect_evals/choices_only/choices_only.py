"""The only check before the judge is output.empty: true only with no
choices, so an empty text still reaches the judge."""

from inspect_ai import Task, task
from inspect_ai.model import Model, get_model
from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState


@scorer(metrics=[])
def choices_only_scorer(judge: Model) -> Scorer:
    async def score(state: TaskState, target: Target) -> Score:
        if state.output.empty:
            raise ValueError("no output: did generation run?")
        result = await judge.generate(state.output.completion)
        return Score(value=result.completion)

    return score


@task
def choices_only() -> Task:
    return Task(dataset=[], scorer=choices_only_scorer(get_model("openai/gpt-4o")))
