"""A judge wrapped inline by the preset helper: guarded, so no criterion 2."""

from inspect_ai import Task, task
from inspect_ai.model import GenerateConfig
from inspect_ai.scorer import model_graded_qa
from inspect_ai.solver import generate

from inspect_evals.utils.scorers import preset_score_on_no_response


@task
def qa_eval() -> Task:
    return Task(
        dataset=[],
        solver=generate(),
        scorer=preset_score_on_no_response(
            model_graded_qa(model="openai/gpt-4o"),
        ),
        config=GenerateConfig(temperature=0, max_tokens=256),
    )
