"""``replay``: a solver that gives a sample a set reply instead of calling the model under test.

Part B and Part C of the empty-responses study grade replies the model under
test did not (or need not) give again: Part C substitutes each non-answer form
(an empty completion, whitespace, ``(no content)``, a provider's error text)
for the response and lets the eval's own judge grade it; Part B sends a reply
the original run never showed its judge (its guard preset the score) to that
judge. Both need the reply in ``state.output`` and ``state.messages`` exactly
as given, with no model call.

``replay`` is registered with inspect_ai through the package's ``inspect_ai``
entry point, so an installed ``empties`` makes it available by name::

    inspect eval inspect_evals/xstest --model none/none \\
        --solver empties/replay -S text="BLOCKED: BlockedReason.SAFETY"

(inspect reads ``-S`` values as YAML: an empty reply is ``-S 'text=""'``, a
whitespace one ``-S 'text=" \\n"'``; a bare ``text=`` is no text at all.)

With no ``text`` it replays each sample's own ``metadata["empties_replay"]``
(what ``empties rerun`` writes for every replayed sample). The solver appends
the text as the assistant's message, sets ``state.output`` to one choice with
that message (stop reason ``stop``) and records the text it set in
``metadata["empties_replayed"]``; the task's scorer (and its judge) then grade
it, and the model under test is never called.

The text is stored as given: an empty reply stays ``""`` and whitespace stays
whitespace. inspect_ai's ``(no content)`` placeholder (``NO_CONTENT``, which
some provider adapters put in a request for an empty message) never enters
the stored output; ``tests/test_replay.py`` reads the written log to check it.
"""

from __future__ import annotations

from inspect_ai.model import ChatCompletionChoice, ChatMessageAssistant, ModelOutput
from inspect_ai.solver import Generate, Solver, TaskState, solver

__all__ = ["REPLAY_KEY", "REPLAYED_KEY", "replay", "replay_output"]

REPLAY_KEY = "empties_replay"
"""Sample metadata key holding the text to replay (when the solver is given none)."""

REPLAYED_KEY = "empties_replayed"
"""Sample metadata key where the solver records the text it set as the reply."""


def replay_output(text: str, model: str) -> ModelOutput:
    """The model output of a replayed reply: one choice, the text as given, stop reason ``stop``."""
    message = ChatMessageAssistant(content=text, model=model)
    return ModelOutput(model=model, choices=[ChatCompletionChoice(message=message, stop_reason="stop")])


@solver(name="replay")
def replay(text: str | None = None) -> Solver:
    """Set the model under test's reply to ``text`` (or the sample's ``metadata["empties_replay"]``) without calling it.

    Args:
        text: the reply, stored exactly as given (``""`` stays empty). None
            replays each sample's own ``metadata["empties_replay"]``; a sample
            without one is an error naming the sample.
    """

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        reply = text
        if reply is None:
            value = (state.metadata or {}).get(REPLAY_KEY)
            if not isinstance(value, str):
                raise ValueError(
                    f"sample {state.sample_id!r}: no text to replay: give replay(text=...) "
                    f"or put the reply in the sample's metadata[{REPLAY_KEY!r}]"
                )
            reply = value
        output = replay_output(reply, str(state.model))
        state.messages.append(output.message)
        state.output = output
        state.metadata[REPLAYED_KEY] = reply
        return state

    return solve
