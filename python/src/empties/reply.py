"""Which output is the reply of the model under test.

The reply of a sample is one **completed generation of the model under test**,
read from the sample's model events in their logged order, exactly as
empties' ingest reads it (internal/ingest/extract.go; README "How the reply is
chosen"). Two rules name which one (:data:`ReplyRule`, the vocabulary's
``reply_rules``):

* ``first``: the first, the reply as the empty-responses study reads it, so
  that an output a solver replaced with a judge's text (AIR-Bench's
  ``annotate()``) is never taken for the model's;
* ``final``: the last, which is what ``state.output`` holds when the scorer
  runs unless a solver replaced it: the reply a scorer grades on a multi-turn
  or agent task. Where a solver calls the model under test itself as a judge
  (AIR-Bench) the last generation is that judge's: use ``first`` there.

On a sample with one generation both are the same call. Which calls count:

* **Whose call.** A model event under a span of type ``scorer``/``scorers``
  (older logs: inside a scorer ``step``) is a judge's; so is one whose ``role``
  names a grader. Another role, or another model than the eval's, is
  ``other``. The rest is the model under test's.
* **Placeholders are skipped.** inspect_ai records a model event before each
  provider call (``pending``) and completes it when the call returns or fails;
  an event still pending never completed.
* **Retried attempts are skipped.** inspect_ai's retry loop records one event
  per attempt, in the same span, for the same model and role, with the same
  input: an errored event followed by such an event is a failed attempt; an
  errored event without one failed for good and can be the reply.
* **Fallback to sample.output** (``state.output`` while scoring) when the model
  under test made no such call, unless that output is a judge's or another
  call's (its text is one of theirs: AIR-Bench-style solvers overwrite it).

The events come from an :class:`~inspect_ai.log.EvalSample` read from a log,
or, for a :class:`~inspect_ai.solver.TaskState` while a scorer runs, from the
sample's live transcript.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, get_args

from inspect_ai.event import Event, ModelEvent, SpanBeginEvent, StepEvent
from inspect_ai.model import ChatMessageAssistant, ModelOutput

from .vocabulary import vocabulary

__all__ = [
    "GRADER_ROLE",
    "REPLY_RULES",
    "Call",
    "CallKind",
    "CallStatus",
    "Reply",
    "ReplyRule",
    "ReplySource",
    "choose_reply",
    "generations",
    "model_calls",
    "view_output",
]

CallKind = Literal["model_under_test", "judge", "other"]
CallStatus = Literal["completed", "placeholder", "retried", "failed"]
ReplySource = Literal["model_event", "sample_output", "none"]
ReplyRule = Literal["first", "final"]
"""Which completed generation of the model under test is the reply: the first or the last."""

REPLY_RULES: tuple[ReplyRule, ...] = get_args(ReplyRule)

if REPLY_RULES != vocabulary().reply_rules:  # pragma: no cover - a drift the Go test also catches
    raise ImportError(
        f"empties: the shipped vocabulary's reply rules {vocabulary().reply_rules} are not {REPLY_RULES}: "
        "the package and its data are from different versions"
    )

# Model-role names that denote a grader (ingest's graderRole).
GRADER_ROLE = re.compile(r"(?i)grad|judg|scor|critic|evaluat|rater|monitor|classif")

# Go's unicode.IsSpace, which ingest's text_blank trims with (strings.TrimSpace).
# Python's str.isspace also counts U+001C..U+001F; they are left out here so
# both sides read the same texts as blank.
GO_SPACE = "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"


def blank(text: str) -> bool:
    """Empty or whitespace only, as ingest's ``text_blank``."""
    return text.strip(GO_SPACE) == ""


@dataclass
class Call:
    """One model event with whose call it is and how it ended."""

    event: ModelEvent
    index: int  # position among the sample's model events (model_calls.call_index)
    kind: CallKind
    kind_reason: str
    scorer: str | None
    scope: tuple[str, object]
    status: CallStatus = "completed"


@dataclass
class Reply:
    """What the classifier reads about one reply (the columns of ``replies``)."""

    source: ReplySource
    rule: ReplyRule = "first"
    call_index: int | None = None
    sample_error: str | None = None
    n_choices: int | None = None
    stop_reason: str | None = None
    output_error: str | None = None
    text: str = ""
    refusal: bool = False
    reasoning_present: bool = False
    tool_calls: int = 0
    tools_offered: bool | None = None  # None: the log does not show it
    call_error: str | None = None
    failed_attempts: int = 0
    placeholders_skipped: int = 0
    calls: list[Call] = field(default_factory=list)

    @property
    def text_blank(self) -> bool:
        return blank(self.text)


def model_calls(events: Sequence[Event], eval_model: str | None) -> list[Call]:
    """The sample's model events in order, each with kind, scope and status."""
    spans = {e.id: e for e in events if isinstance(e, SpanBeginEvent) and e.id}
    steps: list[tuple[int, StepEvent]] = []
    out: list[Call] = []
    for i, e in enumerate(events):
        if isinstance(e, StepEvent):
            if e.action == "begin":
                steps.append((i, e))
            elif e.action == "end":
                for j in range(len(steps) - 1, -1, -1):
                    if steps[j][1].name == e.name and steps[j][1].type == e.type:
                        del steps[j:]
                        break
            continue
        if not isinstance(e, ModelEvent):
            continue
        kind, reason, scorer = _kind(e, spans, steps, eval_model)
        scope: tuple[str, object] = ("span", e.span_id or "") if e.span_id or not steps else ("step", steps[-1][0])
        out.append(Call(event=e, index=len(out), kind=kind, kind_reason=reason, scorer=scorer, scope=scope))
    for c in out:
        c.status = _status(out, c.index)
    return out


def _kind(
    e: ModelEvent,
    spans: Mapping[str, SpanBeginEvent],
    steps: Sequence[tuple[int, StepEvent]],
    eval_model: str | None,
) -> tuple[CallKind, str, str | None]:
    # Span ancestry is the reliable signal; role alone is not, since a grader
    # that falls back to the default model has no role.
    # The whole ancestry counts, whatever its depth; a parent chain that
    # loops (a damaged log) is walked once around.
    judge, scorer = False, None
    sid, seen = e.span_id, set()
    while sid and sid in spans and sid not in seen:
        seen.add(sid)
        s = spans[sid]
        if s.type in ("scorer", "scorers"):
            if scorer is None and s.type == "scorer":
                scorer = s.name
            judge = True
        sid = s.parent_id
    if judge:
        return "judge", "scorer_span", scorer
    for _, st in reversed(steps):
        if st.type == "scorer":
            return "judge", "scorer_step", st.name
    if e.role and GRADER_ROLE.search(e.role):
        return "judge", "grader_role", None
    if e.role:
        return "other", "other_role", None
    if eval_model and e.model and e.model != eval_model:
        return "other", "other_model", None
    return "model_under_test", "eval_model", None


def _status(calls: Sequence[Call], i: int) -> CallStatus:
    e = calls[i].event
    if e.pending:
        return "placeholder"
    if not e.error:
        return "completed"
    for f in calls[i + 1 :]:
        fe = f.event
        if fe.pending or f.scope != calls[i].scope or (fe.model or "") != (e.model or "") or (fe.role or "") != (e.role or ""):
            continue
        if _same_input(fe, e):
            return "retried"
    return "failed"


def _same_input(a: ModelEvent, b: ModelEvent) -> bool:
    if a.input_refs or b.input_refs:
        if a.input_refs != b.input_refs:
            return False
    return [m.model_dump(mode="json") for m in a.input] == [m.model_dump(mode="json") for m in b.input]


def _resolve(s: str, attachments: Mapping[str, str]) -> str:
    for prefix in ("attachment://", "tc://"):
        if s.startswith(prefix):
            return attachments.get(s[len(prefix) :], s)
    return s


def message_text(m: ChatMessageAssistant, attachments: Mapping[str, str]) -> str:
    """``message.text`` with attachment references resolved."""
    if isinstance(m.content, str):
        return _resolve(m.content, attachments)
    return "\n".join(_resolve(c.text, attachments) for c in m.content if c.type == "text")


def _completion(o: ModelOutput, attachments: Mapping[str, str]) -> str:
    if o.completion:
        return _resolve(o.completion, attachments)
    if o.choices:
        return message_text(o.choices[0].message, attachments)
    return ""


def view_output(r: Reply, o: ModelOutput | None, attachments: Mapping[str, str]) -> None:
    """Fill the reply's fields from one output (ingest's viewOutput and fill)."""
    if o is None:
        return
    r.n_choices = len(o.choices)
    r.output_error = o.error
    if not o.choices:
        return
    c = o.choices[0]
    sr: str = c.stop_reason
    if sr == "length":  # legacy spelling, in logs before the Literal had max_tokens
        sr = "max_tokens"
    r.stop_reason = sr or "unknown"
    r.text = message_text(c.message, attachments)
    if not isinstance(c.message.content, str):
        for item in c.message.content:
            if item.type == "text" and item.refusal:
                r.refusal = True
            elif item.type == "reasoning":
                r.reasoning_present = True
    r.tool_calls = len(c.message.tool_calls or [])


def generations(calls: Sequence[Call]) -> list[Call]:
    """The completed generations of the model under test: its calls that completed or failed for good."""
    return [c for c in calls if c.kind == "model_under_test" and c.status in ("completed", "failed")]


def choose_reply(
    events: Sequence[Event],
    output: ModelOutput | None,
    *,
    eval_model: str | None,
    sample_error: str | None = None,
    attachments: Mapping[str, str] | None = None,
    rule: ReplyRule = "first",
) -> Reply:
    """The reply of the model under test among a sample's events (its first or its final
    completed generation, by ``rule``), or its output as fallback."""
    if rule not in REPLY_RULES:
        raise ValueError(f"reply rule {rule!r}: the rules are {', '.join(REPLY_RULES)}")
    att: Mapping[str, str] = attachments or {}
    calls = model_calls(events, eval_model)
    r = Reply(source="none", rule=rule, sample_error=sample_error, calls=calls)
    found = generations(calls)
    reply = (found[0] if rule == "first" else found[-1]) if found else None
    # the placeholders and failed attempts of the reply's own generation: those
    # after the generation before it (for "first", every one before the reply)
    after = found[-2].index if rule == "final" and len(found) > 1 else -1
    for c in calls:
        if c.kind != "model_under_test" or c.index <= after or (reply is not None and c.index >= reply.index):
            continue
        if c.status == "placeholder":
            r.placeholders_skipped += 1
        elif c.status == "retried" and reply is not None:
            r.failed_attempts += 1
    if reply is not None:
        e = reply.event
        r.source, r.call_index = "model_event", reply.index
        r.call_error = e.error or None
        if "tools" in e.model_fields_set:
            r.tools_offered = len(e.tools) > 0
        view_output(r, e.output, att)
        return r
    others: set[str] = set()
    for c in calls:
        o = c.event.output
        if c.kind != "model_under_test" and o is not None and o.choices:
            t = message_text(o.choices[0].message, att)
            if not blank(t):
                others.add(t)
    if output is not None and output.choices:
        text, completion = message_text(output.choices[0].message, att), _completion(output, att)
        if text not in others and completion not in others:
            r.source = "sample_output"
            view_output(r, output, att)
    return r
