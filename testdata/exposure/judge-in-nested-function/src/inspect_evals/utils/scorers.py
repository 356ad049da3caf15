"""Shared scorers (a trimmed copy of inspect_evals.utils.scorers)."""

from inspect_ai.scorer import INCORRECT, Score, Scorer, Target, Value
from inspect_ai.solver import TaskState

NO_RESPONSE = "no_response"


def preset_score_on_no_response(
    grader: Scorer,
    no_response_value: Value = INCORRECT,
) -> Scorer:
    """Return no_response_value for an empty completion, without the grader."""

    async def score(state: TaskState, target: Target) -> Score | None:
        if not state.output.completion.strip():
            return Score(value=no_response_value, reason=NO_RESPONSE)
        return await grader(state, target)

    return score
