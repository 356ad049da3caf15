from inspect_ai.solver import TaskState


def reply_missing(state: TaskState) -> bool:
    reply = state.output.completion
    if not reply:
        raise ValueError("empty reply")
    return False
