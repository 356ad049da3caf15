"""A shared guard helper outside any eval folder."""

from inspect_ai.solver import TaskState


def no_reply(state: TaskState) -> bool:
    return len(state.output.completion) == 0
