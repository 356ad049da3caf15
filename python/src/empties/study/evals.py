"""Ready-made ``class_aware`` settings for the study's evals.

Each setting is read from the eval's profile (``data/profiles/<eval>.yaml`` of
empties: its kind, its refusal, failure and no-answer values in the eval's own
value shape, which replies are re-routed, and which reply is classified) as
empties' Go code loads it; the package ships that export as
``_data/profiles.json`` and the Go test ``internal/pypkg TestShippedData``
fails when it differs from the profiles. So ``EVALS["xstest_safe"].wrap(scorer)``
scores as empties' ``rescore`` scores the class-aware policy for XSTest (the Go
test ``TestClassAwareReproducesP3`` runs every study eval both ways).

Example (inspect_evals' XSTest, replacing ``preset_score_on_no_response``)::

    from empties.study import EVALS

    scorer = EVALS["xstest_safe"].wrap(model_graded_qa(model=scorer_model, ...))
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib.resources import files
from types import MappingProxyType
from typing import Any, Literal, cast

from inspect_ai.scorer import Scorer, Value

from ..reply import ReplyRule
from ..scorer import Touch, class_aware

__all__ = ["EVALS", "EvalSettings", "eval_settings", "settings_for_task"]


@dataclass(frozen=True)
class EvalSettings:
    """The class_aware settings of one eval, from its profile."""

    name: str
    title: str
    kind: Literal["refusal", "capability"]
    tasks: tuple[str, ...]  # eval.task values the profile matches
    task_args: Mapping[str, Any]  # task args the profile requires
    score_key: str  # the score the headline reads (sample.scores key)
    refusal: Value  # values.refusal
    failure: Value  # values.failure
    noanswer: Value  # values.noanswer
    touch: Touch
    judge_where: Literal["scorer", "solver", "none"]
    judge_guarded: bool
    headline_metric: str
    reply: ReplyRule = "final"  # "first" where the eval's judge runs in its solver (AIR-Bench)
    profile_file: str = field(default="")

    @property
    def refusal_value(self) -> Value | None:
        """The refusal outcome provider refusals get: only in a refusal eval."""
        return self.refusal if self.kind == "refusal" else None

    def class_aware_args(self) -> dict[str, Any]:
        """The keyword arguments of :func:`empties.class_aware` for this eval."""
        return {
            "refusal_value": self.refusal_value,
            "no_answer_value": self.noanswer,
            "failure_value": self.failure,
            "touch": self.touch,
            "reply": self.reply,
        }

    def wrap(self, scorer: Scorer) -> Scorer:
        """``class_aware(scorer)`` with this eval's settings."""
        return class_aware(scorer, **self.class_aware_args())

    def matches(self, task: str, task_args: Mapping[str, Any] | None = None) -> bool:
        """Whether a log of ``task`` run with ``task_args`` is this eval (the profile's match)."""
        args = task_args or {}
        return task in self.tasks and all(k in args and args[k] == v for k, v in self.task_args.items())


@cache
def _load() -> Mapping[str, EvalSettings]:
    raw = json.loads(files("empties.study").joinpath("_data", "profiles.json").read_text(encoding="utf-8"))
    out: dict[str, EvalSettings] = {}
    for p in raw["profiles"]:
        out[p["name"]] = EvalSettings(
            name=p["name"],
            title=p["title"],
            kind=p["kind"],
            tasks=tuple(p["match"]["task"]),
            task_args=MappingProxyType(dict(p["match"]["task_args"])),
            score_key=p["score"]["key"],
            refusal=cast(Value, p["values"]["refusal"]),
            failure=cast(Value, p["values"]["failure"]),
            noanswer=cast(Value, p["values"]["noanswer"]),
            touch=p["policy"]["touch"],
            judge_where=p["judge"]["where"],
            judge_guarded=p["judge"]["guarded"],
            headline_metric=p["headline"]["metric"],
            reply=p["reply"],
            profile_file=p["file"],
        )
    return MappingProxyType(out)


class _Evals(Mapping[str, EvalSettings]):
    """The settings by profile name, loaded on first use."""

    def __getitem__(self, name: str) -> EvalSettings:
        try:
            return _load()[name]
        except KeyError:
            raise KeyError(f"no eval profile {name!r}; profiles: {', '.join(_load())}") from None

    def __iter__(self) -> Iterator[str]:
        return iter(_load())

    def __len__(self) -> int:
        return len(_load())


EVALS: Mapping[str, EvalSettings] = _Evals()
"""The study's evals by profile name (xstest_safe, xstest_unsafe, coconot_original,
strong_reject, fortress_adversarial, fortress_benign, air_bench, hle_text,
gpqa_diamond, bfcl_irrelevance, bfcl_simple)."""


def eval_settings(name: str) -> EvalSettings:
    """The settings of one eval profile by name."""
    return EVALS[name]


def settings_for_task(task: str, task_args: Mapping[str, Any] | None = None) -> EvalSettings | None:
    """The profile a log of ``task`` (with ``task_args``) belongs to, if exactly one matches."""
    found = [s for s in EVALS.values() if s.matches(task, task_args)]
    return found[0] if len(found) == 1 else None
