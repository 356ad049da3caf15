"""model_graded_qa handed straight to the Task: the judge grades an empty reply."""

from inspect_ai import Task, task
from inspect_ai.scorer import model_graded_qa as graded


@task
def bare_judge() -> Task:
    return Task(dataset=[], scorer=graded())
