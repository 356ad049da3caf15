"""A scorer factory whose inner function calls the judge, and which returns
the inner function wrapped by the preset helper: guarded."""

from inspect_ai.scorer import CORRECT, Score, Scorer, Target, model_graded_fact, scorer
from inspect_ai.solver import TaskState

from inspect_evals.utils import scorers as shared


@scorer(metrics=[])
def factory_scorer() -> Scorer:
    grader = model_graded_fact()

    async def score(state: TaskState, target: Target) -> Score | None:
        return await grader(state, target)

    return shared.preset_score_on_no_response(score, no_response_value=CORRECT)
