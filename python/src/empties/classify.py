"""The reply classes, first match wins, as empties' Go classifier assigns them.

The order of the rules, the provider error forms and the non-answer rule are
data: the vocabulary the Go classifier exports (``empties schema --format
json``), shipped with this package. Only how each structural rule reads a
reply is written here, one predicate per rule id, the same reading as
internal/classify/rules.go; a rule id the vocabulary has and this module does
not know raises, so the two cannot drift apart silently.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal, cast, get_args

from inspect_ai.log import EvalSample
from inspect_ai.solver import TaskState

from .reply import Reply, ReplyRule, choose_reply
from .vocabulary import vocabulary

__all__ = [
    "CLASSES",
    "ClassName",
    "ReplyClass",
    "classify",
    "classify_reply",
    "is_non_answer",
]

ClassName = Literal[
    "error",
    "no_choices",
    "filtered",
    "refusal_flag",
    "error_text",
    "truncated_empty",
    "tool_only",
    "reasoning_only",
    "silent",
    "truncated_text",
    "answer",
]
"""The reply classes in first-match order."""

CLASSES: tuple[ClassName, ...] = get_args(ClassName)

if CLASSES != vocabulary().classes:  # pragma: no cover - a drift the Go test also catches
    raise ImportError(
        f"empties: the shipped vocabulary's classes {vocabulary().classes} are not {CLASSES}: "
        "the package and its data are from different versions"
    )


@dataclass(frozen=True)
class ReplyClass:
    """The class of one reply, the rule that gave it, and what it was read from."""

    name: ClassName
    rule: str  # class_rule, e.g. "error_text.form.gemini_blocked@v1"
    non_answer: bool
    reply: Reply

    @property
    def tools_offered(self) -> bool | None:
        return self.reply.tools_offered

    def __str__(self) -> str:
        return self.name


def _stop(r: Reply) -> str:
    return r.stop_reason or ""


# How each structural rule reads a reply (internal/classify Rules). Rules run
# in the exported order, so a rule may assume those before it did not match.
_PREDICATES: Mapping[str, Callable[[Reply], bool]] = {
    "error": lambda r: r.sample_error is not None,
    "no_choices": lambda r: not r.n_choices,
    "filtered": lambda r: _stop(r) == "content_filter",
    "refusal_flag": lambda r: r.refusal,
    "error_text.output_error": lambda r: bool(r.output_error),
    "truncated_empty": lambda r: r.text_blank and r.tool_calls == 0 and _stop(r) in ("max_tokens", "model_length"),
    "tool_only": lambda r: r.text_blank and r.tool_calls > 0,
    "reasoning_only": lambda r: r.text_blank and r.reasoning_present,
    "silent": lambda r: r.text_blank,
    "truncated_text": lambda r: _stop(r) == "max_tokens",
    "answer": lambda r: True,
}
_FORM_RULE = "error_text.form."


def _rules() -> list[tuple[str, ClassName, Callable[[Reply], bool]]]:
    out: list[tuple[str, ClassName, Callable[[Reply], bool]]] = []
    v = vocabulary()
    for rule in v.rules:
        if rule.id.startswith(_FORM_RULE):
            form = v.form(rule.id.removeprefix(_FORM_RULE))
            match: Callable[[Reply], bool] = lambda r, form=form: form.matches(r.text)  # type: ignore[misc]
        elif rule.id in _PREDICATES:
            match = _PREDICATES[rule.id]
        else:
            raise ImportError(
                f"empties: the vocabulary has a rule {rule.id!r} this package does not know; "
                "upgrade the package together with empties"
            )
        out.append((rule.id, cast(ClassName, rule.reply_class), match))
    return out


_RULES = _rules()


def is_non_answer(name: str, tools_offered: bool | None) -> bool:
    """The non-answer rule: tool_only counts only when the eval is known to have offered no tools.

    ``tools_offered`` is None when the log does not show it; a tool call is then
    read as offered (a provider returns tool calls only for tools in the request).
    """
    v = vocabulary()
    return name in v.non_answer_classes or (name in v.non_answer_unless_tools_offered and tools_offered is False)


def classify_reply(reply: Reply) -> ReplyClass:
    """The class of a reply already chosen (first match wins)."""
    version = vocabulary().classifier_version
    for rule_id, name, match in _RULES:
        if match(reply):
            return ReplyClass(name, f"{rule_id}@{version}", is_non_answer(name, reply.tools_offered), reply)
    raise AssertionError("the answer rule matches everything")


def classify(
    subject: TaskState | EvalSample, *, eval_model: str | None = None, reply: ReplyRule = "first"
) -> ReplyClass:
    """The class of the reply of the model under test in a sample.

    ``subject`` is a :class:`~inspect_ai.log.EvalSample` (read from a log) or a
    :class:`~inspect_ai.solver.TaskState` inside a running sample (a scorer or
    solver: the events are that sample's live transcript). ``eval_model`` is the
    eval's model (``log.eval.model``): a call of another model with no role is
    not the model under test's. For a TaskState it defaults to ``state.model``.
    ``reply`` says which generation is the reply: ``"first"`` (the model's
    first completed generation, as empties' ingest reads it) or ``"final"``
    (its last, which the eval's scorer grades; see :mod:`empties.reply`).
    """
    if isinstance(subject, EvalSample):
        r = choose_reply(
            subject.events,
            subject.output,
            eval_model=eval_model,
            sample_error=subject.error.message if subject.error is not None else None,
            attachments=subject.attachments,
            rule=reply,
        )
    else:
        from inspect_ai.log import transcript

        t = transcript()
        if not t.history.full_history_available:
            # a bounded transcript that evicted early events and cannot read them
            # back: the first generation may be gone, and a class read from what
            # is left could be wrong
            raise RuntimeError(
                "empties.classify: the sample's transcript no longer holds its early events "
                "(INSPECT_TRANSCRIPT_BOUNDED without a history provider); the reply cannot be found"
            )
        r = choose_reply(
            t.events,
            subject.output,
            eval_model=eval_model if eval_model is not None else str(subject.model),
            attachments=t.attachments,
            rule=reply,
        )
    return classify_reply(r)
