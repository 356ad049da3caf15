"""A file with a syntax error: tree-sitter recovers, the scan still reports
what it can read and lists the file."""

from inspect_ai import Task, task
from inspect_ai.model import GenerateConfig
from inspect_ai.scorer import model_graded_qa
from inspect_ai.solver import TaskState


@task
def broken() -> Task:
    return Task(dataset=[], scorer=model_graded_qa(), config=GenerateConfig(max_tokens=128))


def half_written(state: TaskState) -> bool:
    if not state.output.completion
        return True
    return False
