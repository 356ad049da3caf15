"""Uses the shared judge from utils/: reported at the call into the helper."""

from inspect_ai import Task, task

from inspect_evals.utils.judges import grade_with_llm


@task
def shared_judge() -> Task:
    return Task(dataset=[], scorer=grade_with_llm())
