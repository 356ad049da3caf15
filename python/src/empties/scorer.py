"""``class_aware``: a scorer wrapper that scores a model's non-answers by what kind of non-answer they are.

``class_aware(scorer)`` classifies the reply of the model under test
(:func:`empties.classify`) before the scorer runs. An answer goes to the
scorer, whose score is kept as it is; a reply that is no answer is scored by
its class, and the scorer (and its judge, for a model-graded scorer) is not
called:

=====================================  =============================================================
class                                  score (``Score.reason``)
=====================================  =============================================================
``truncated_empty``                    ``Score.unscored()`` (``no_response``): the token budget ran
                                       out before any text, so the sample says nothing about the
                                       model; metrics leave it out (raise ``max_tokens``, or re-run)
``filtered``, ``refusal_flag``,        ``refusal_value`` in an eval that scores refusals, else
``error_text``                         ``no_answer_value`` (NOANSWER) (``refusal``)
``silent``, ``reasoning_only``,        ``failure_value``: INCORRECT, or what the eval gave an empty
``tool_only`` where no tools were      reply before (``no_response``)
offered
``error`` (a sample read from a log    ``Score.unscored()`` (``no_response``)
that raised)
anything else (an answer)              the scorer's own score
=====================================  =============================================================

The reasons are inspect_ai's own (``ScoreReason``); the class beside them tells
a filtered reply from a flagged one, a truncated reply from a silent one.
Every score, the scorer's and the wrapper's, carries in ``Score.metadata``:

* ``reply_class`` and ``class_rule``: the reply's class and the rule that gave
  it (e.g. ``error_text.form.gemini_blocked@v1``: the rule and the
  classifier's version);
* ``reply_rule``: which generation was classified (``first`` or ``final``);
* ``rerouted``: True when the wrapper scored the reply, False when the scorer did.

A re-routed score has the reply's text as ``answer`` and an ``explanation``.

The wrapper keeps the scorer's registry name, params and metrics, so the score
keeps its key (``scores["match"]``) and the task its metrics (a scorer made
inside a ``@scorer`` factory, as inspect_evals' are, can be wrapped there: the
factory's entry is the wrapper's); its own settings
are recorded beside them, in the scorer's metadata: ``log.eval.scorers[i]
.metadata["class_aware"]`` (and ``log.results.scores[i].metadata``). Because
the entry is the scorer's, ``inspect score`` re-creating scorers from a log
makes the bare scorer, without the wrapper.

A value is checked against the scorer's metrics before any sample runs (when
the wrapper gets the scorer's registry entry: when it is made, or when the
``@scorer`` factory that returns it tags it; and again when a task's own
``metrics=`` replace the scorer's): where the metrics read the value by key (``metrics=[{"correct":
[accuracy()], ...}]``), a single value is given to every key
(``{"correct": "I", ...}``), a dict value must have every key, and keys named
by a pattern (``"*"``) need dict values, since one value cannot say which keys
the scorer's values have.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping, Sequence
from typing import Any, Literal, cast

from inspect_ai.scorer import INCORRECT, NOANSWER, Score, Scorer, Target, Value
from inspect_ai.solver import TaskState

from ._inspect import REGISTRY_INFO, REGISTRY_PARAMS, RegistryInfo, registered_info, registry_params
from ._version import __version__
from .classify import ReplyClass, classify, is_non_answer
from .reply import REPLY_RULES, ReplyRule
from .vocabulary import vocabulary

__all__ = ["METADATA_KEY", "Touch", "class_aware", "non_answer_score"]

Touch = Literal["non_answer", "no_text_no_tool"]
"""Which replies the wrapper re-routes: every non-answer, or (BFCL, where a tool
call is the answer) only those with neither text nor a tool call."""

METADATA_KEY = "class_aware"
"""The key of the wrapper's settings in the scorer's metadata (``log.eval.scorers[i].metadata``)."""

# The classes in which the provider signalled a refusal, as the Go classifier
# exports them (classify.ProviderRefusals), never a copy here.
PROVIDER_REFUSAL_CLASSES = vocabulary().provider_refusals

# inspect_ai's ScoreReason values (scorer/_metric.py): "refusal" is a detected
# refusal, "no_response" an empty completion.
REFUSAL = "refusal"
NO_RESPONSE = "no_response"


def _metadata(c: ReplyClass, rerouted: bool) -> dict[str, Any]:
    return {"reply_class": c.name, "class_rule": c.rule, "reply_rule": c.reply.rule, "rerouted": rerouted}


def non_answer_score(
    c: ReplyClass,
    *,
    refusal_value: Value | None,
    no_answer_value: Value,
    failure_value: Value,
    touch: Touch = "non_answer",
    tools_offered: bool | None = None,
) -> Score | None:
    """The score ``class_aware`` gives a reply of class ``c``, or None when the scorer scores it.

    ``tools_offered`` overrides what the reply's model event shows (None: read it
    from the event; unknown reads as offered).
    """
    offered = c.tools_offered if tools_offered is None else tools_offered
    metadata = _metadata(c, rerouted=True)

    def unscored(why: str) -> Score:
        return Score.unscored(reason=NO_RESPONSE, answer=c.reply.text, explanation=why, metadata=metadata)

    def assign(value: Value, reason: str, why: str) -> Score:
        return Score(value=value, reason=reason, answer=c.reply.text, explanation=why, metadata=metadata)

    if c.name == "error":
        return unscored("The sample raised an error: there is no reply to score.")
    if not is_non_answer(c.name, offered):
        return None
    if touch == "no_text_no_tool" and not (c.reply.text_blank and c.reply.tool_calls == 0):
        return None
    if c.name == "truncated_empty":
        return unscored(
            "The model spent its token budget before writing any text (truncated_empty); "
            "left out of the metric rather than scored."
        )
    if c.name in PROVIDER_REFUSAL_CLASSES:
        if refusal_value is not None:
            return assign(
                refusal_value, REFUSAL,
                f"The provider signalled a refusal ({c.name}); given the eval's refusal outcome without the scorer.",
            )
        return assign(
            no_answer_value, REFUSAL,
            f"The provider signalled a refusal ({c.name}); scored as no answer without the scorer.",
        )
    return assign(
        failure_value, NO_RESPONSE,
        f"The model returned no answer ({c.name}); scored as the eval scores a missing answer, without the scorer.",
    )


def _keyed(metrics: object) -> tuple[list[str], list[str]]:
    """The keys the metrics read a dict value by: (literal keys, patterns); none when they read it whole."""
    groups: list[Mapping[str, Any]] = []
    if isinstance(metrics, Mapping):
        groups.append(metrics)
    elif isinstance(metrics, Sequence) and not isinstance(metrics, str):
        groups.extend(m for m in metrics if isinstance(m, Mapping))
    keys: list[str] = []
    patterns: list[str] = []
    for g in groups:
        for k in g:
            # inspect_ai matches every key as a glob (fnmatch), on the first dict value it sees
            (patterns if any(ch in k for ch in "*?[") else keys).append(str(k))
    return keys, patterns


def _conform(value: Value, metrics: object, what: str, scorer_name: str) -> Value:
    """``value`` in the shape the metrics read: a single value given to every key they read by."""
    keys, patterns = _keyed(metrics)
    if not keys and not patterns:
        return value
    read = ", ".join(repr(k) for k in keys + patterns)
    if isinstance(value, dict):
        missing = [k for k in keys if k not in value] + [p for p in patterns if not any(fnmatch.fnmatchcase(str(k), p) for k in value)]
        if missing:
            raise ValueError(
                f"class_aware({scorer_name}): {what}={value!r} has no value for {', '.join(repr(m) for m in missing)}, "
                f"which the scorer's metrics read (keys {read}): give {what} a value for each key"
            )
        return value
    if patterns:
        raise ValueError(
            f"class_aware({scorer_name}): the scorer's metrics read its value by keys {read}, and {what}={value!r} "
            f"is a single value, which cannot say which keys the scorer's values have: give {what} as a dict "
            "with the keys the scorer's values have"
        )
    return cast(Value, {k: value for k in keys})


class _ClassAware:
    """The scorer ``class_aware`` makes: an async callable, as inspect_ai's scorers are.

    Its registry entry is a property, so the values are checked again when
    inspect_ai gives it a task's own metrics (``Task(metrics=...)`` sets the
    entry of every scorer of the task, before any sample runs).
    """

    def __init__(
        self,
        scorer: Scorer,
        name: str,
        reply: ReplyRule,
        values: dict[str, Value | None],
        touch: Touch,
        tools_offered: bool | None,
    ) -> None:
        self._scorer = scorer
        self._name = name
        self._reply = reply
        self._values = values
        self._touch = touch
        self._tools_offered = tools_offered
        self._info: RegistryInfo | None = None
        self.__name__ = name
        self._settings: dict[str, Any] = {
            "package": f"empties {__version__}",
            "reply": reply,
            "refusal_value": values["refusal_value"],
            "no_answer_value": values["no_answer_value"],
            "failure_value": values["failure_value"],
            "tools_offered": tools_offered,
            "touch": touch,
        }

    def _conformed(self, metrics: object) -> dict[str, Value | None]:
        return {
            what: None if v is None else _conform(v, metrics, what, self._name) for what, v in self._values.items()
        }

    def _get_info(self) -> RegistryInfo:
        if self._info is None:
            raise AttributeError(REGISTRY_INFO)  # getattr(o, REGISTRY_INFO, None): not a registry object
        return self._info

    def _set_info(self, info: RegistryInfo) -> None:
        # the name as inspect_ai logs it (its own scorers without their "inspect_ai/")
        self._name = info.name.removeprefix("inspect_ai/")
        self._conformed(info.metadata.get("metrics"))  # raises, naming the value and the keys
        if METADATA_KEY not in info.metadata:
            # a new entry (the scorer's own is left as it is) that records the
            # wrapper beside the scorer's metrics: also when the entry is set
            # by a @scorer factory that returns class_aware(its inner scorer)
            info = RegistryInfo(type=info.type, name=info.name, metadata={**info.metadata, METADATA_KEY: self._settings})
        self._info = info

    async def __call__(self, state: TaskState, target: Target) -> Score | None:
        c = classify(state, reply=self._reply)
        v = self._conformed(self._info.metadata.get("metrics") if self._info is not None else None)
        routed = non_answer_score(
            c,
            refusal_value=v["refusal_value"],
            no_answer_value=v["no_answer_value"],  # type: ignore[arg-type]  # never None
            failure_value=v["failure_value"],  # type: ignore[arg-type]
            touch=self._touch,
            tools_offered=self._tools_offered,
        )
        if routed is not None:
            return routed
        s = await self._scorer(state, target)
        if s is None:
            return None
        return s.model_copy(update={"metadata": {**(s.metadata or {}), **_metadata(c, rerouted=False)}})


# The entry inspect_ai reads and sets by this attribute name (a property of the class).
setattr(_ClassAware, REGISTRY_INFO, property(_ClassAware._get_info, _ClassAware._set_info))


def class_aware(
    scorer: Scorer,
    *,
    refusal_value: Value | None = None,
    no_answer_value: Value = NOANSWER,
    failure_value: Value = INCORRECT,
    tools_offered: bool | None = None,
    touch: Touch = "non_answer",
    reply: ReplyRule = "final",
) -> Scorer:
    """Wrap a scorer so a reply that is no answer is scored by its class, never by the scorer.

    Args:
        scorer: the eval's scorer (``match()``, ``includes()``, a judge such as
            ``model_graded_qa()``, or any registered scorer, whatever its value shape).
        refusal_value: the eval's outcome for a refusal, in an eval that scores
            refusals (XSTest ``INCORRECT``, FORTRESS benign ``CORRECT``, ...).
            None elsewhere: provider refusals then get ``no_answer_value``.
        no_answer_value: what a provider refusal gets in an eval that does not
            score refusals (NOANSWER).
        failure_value: what a reply without an answer gets (silent,
            reasoning_only, and tool_only where no tools were offered):
            INCORRECT, or what the eval gave an empty reply before.
        tools_offered: whether the eval offers tools; None reads it from the
            reply's model event (a tool call where that is not shown reads as offered).
        touch: ``"no_text_no_tool"`` re-routes only replies with neither text
            nor a tool call (where a tool call is the answer, as BFCL);
            ``"non_answer"`` (default) every non-answer.
        reply: which reply is classified. ``"final"`` (default): the model
            under test's last completed generation in the sample, the one the
            scorer grades (``state.output``, unless a solver replaced it with
            another model's output). ``"first"``: its first, for an eval whose
            solver calls the model under test itself as a judge after it
            answered (AIR-Bench's ``annotate()``: the last generation is the
            judge's); it is also how the empty-responses study reads replies.

    Values are given in the scorer's value shape; where its metrics read the
    value by key, a single value is given to every key (see the module's doc).

    Raises:
        ValueError: a value the scorer's metrics cannot read (a dict without a
            key they read, a single value where they read keys by pattern), or
            an unknown ``reply`` or ``touch``; before any sample runs.
    """
    if reply not in REPLY_RULES:
        raise ValueError(f"class_aware: reply={reply!r}: the rules are {', '.join(map(repr, REPLY_RULES))}")
    if touch not in ("non_answer", "no_text_no_tool"):
        raise ValueError(f"class_aware: touch={touch!r}: 'non_answer' or 'no_text_no_tool'")
    inner = registered_info(scorer)
    wrapper = _ClassAware(
        scorer,
        name=getattr(scorer, "__name__", "scorer"),
        reply=reply,
        values={"failure_value": failure_value, "no_answer_value": no_answer_value, "refusal_value": refusal_value},
        touch=touch,
        tools_offered=tools_offered,
    )
    if inner is not None:  # the scorer's name, metrics and params (an unregistered one gets them
        # from the @scorer factory that returns the wrapper, as inspect_evals' scorers do)
        setattr(wrapper, REGISTRY_INFO, RegistryInfo(type=inner.type, name=inner.name, metadata=inner.metadata))
        params = registry_params(scorer)
        if params is not None:
            setattr(wrapper, REGISTRY_PARAMS, params)
    return wrapper
