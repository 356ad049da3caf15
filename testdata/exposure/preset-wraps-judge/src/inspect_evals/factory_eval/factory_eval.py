from inspect_ai import Task, task

from .scorer import factory_scorer


@task
def factory_eval() -> Task:
    return Task(dataset=[], scorer=factory_scorer())
