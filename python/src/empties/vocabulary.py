"""The classifier's vocabulary, as the Go classifier exports it.

`empties schema --format json` exports the reply classes in first-match order,
the rules in evaluation order, the provider error forms and the non-answer rule
from the Go code that defines them (internal/classify, internal/vocab). The
package ships that export as ``_data/vocabulary.json``; the Go test
``internal/pypkg TestShippedData`` fails when the two differ, so the Python
classifier can never run on a stale copy.

The error forms are RE2 patterns (Go's regexp). Python's ``re`` reads the same
text differently in a few places (``\\s`` also matches ``\\v``, ``\\x1c``-``\\x1f``
and Unicode spaces; ``$`` also matches before a final newline; ``(?i)`` folds
``i`` with ``İ`` and ``ı``), so each pattern is translated into a Python pattern
with RE2's meaning (:func:`re2_to_python`). A pattern outside the translated
subset raises at import, so a new Go pattern cannot be read wrongly in silence.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from typing import Any

__all__ = [
    "Discovery",
    "ErrorForm",
    "Rule",
    "Vocabulary",
    "re2_to_python",
    "vocabulary",
]


@dataclass(frozen=True)
class Rule:
    """One classifier rule: ``id`` is the class_rule without ``@version``."""

    id: str
    reply_class: str
    seed: str


@dataclass(frozen=True)
class ErrorForm:
    """A provider error text that a model cannot plausibly write itself."""

    name: str
    provider: str
    source: str
    patterns: tuple[str, ...]  # RE2, as exported
    compiled: tuple[re.Pattern[str], ...]  # the same in Python's re, RE2's meaning

    def matches(self, text: str) -> bool:
        """Whether ``text`` is this form (any pattern matches, as Go's MatchString)."""
        return any(p.search(text) for p in self.compiled)


@dataclass(frozen=True)
class Discovery:
    """Which files of a folder are logs, as ingest lists them (internal/logset)."""

    eval_suffix: str
    json_suffix: str
    json_first_keys: tuple[str, ...]
    json_head_bytes: int
    not_logs: frozenset[str]
    hidden_prefix: str
    companion_suffix: str
    dataset_marker: str


@dataclass(frozen=True)
class Vocabulary:
    """Every closed set of the classifier, from the shipped export."""

    classifier_version: str
    classes: tuple[str, ...]
    rules: tuple[Rule, ...]
    error_forms: tuple[ErrorForm, ...]
    non_answer_classes: frozenset[str]
    non_answer_unless_tools_offered: frozenset[str]
    provider_refusals: frozenset[str]
    not_replies: frozenset[str]
    judge_classes: tuple[str, ...]
    policies: tuple[str, ...]
    call_kinds: tuple[str, ...]
    reply_rules: tuple[str, ...]  # which generation is the reply: "first" or "final" (empties.reply)
    discovery: Discovery
    raw: dict[str, Any]

    def form(self, name: str) -> ErrorForm:
        for f in self.error_forms:
            if f.name == name:
                return f
        raise KeyError(f"no error form {name!r} in the vocabulary")


@cache
def vocabulary() -> Vocabulary:
    """The shipped vocabulary (read once)."""
    raw = json.loads(files("empties").joinpath("_data", "vocabulary.json").read_text(encoding="utf-8"))
    return parse_vocabulary(raw)


def parse_vocabulary(raw: dict[str, Any]) -> Vocabulary:
    """Build a :class:`Vocabulary` from the JSON of ``empties schema --format json``."""
    forms = tuple(
        ErrorForm(
            name=f["name"],
            provider=f["provider"],
            source=f["source"],
            patterns=tuple(f["patterns"]),
            compiled=tuple(re2_to_python(p) for p in f["patterns"]),
        )
        for f in raw["error_forms"]
    )
    na = raw["non_answer"]
    d = raw["discovery"]
    return Vocabulary(
        classifier_version=raw["classifier_version"],
        classes=tuple(raw["classes"]),
        rules=tuple(Rule(r["id"], r["class"], r["seed"]) for r in raw["rules"]),
        error_forms=forms,
        non_answer_classes=frozenset(na["classes"]),
        non_answer_unless_tools_offered=frozenset(na["unless_tools_offered"] or []),
        provider_refusals=frozenset(raw["provider_refusals"]),
        not_replies=frozenset(raw["not_replies"] or []),
        judge_classes=tuple(raw["judge_classes"]),
        policies=tuple(raw["policies"]),
        call_kinds=tuple(raw["call_kinds"]),
        reply_rules=tuple(r["name"] for r in raw["reply_rules"]),
        discovery=Discovery(
            eval_suffix=d["eval_suffix"],
            json_suffix=d["json_suffix"],
            json_first_keys=tuple(d["json_first_keys"]),
            json_head_bytes=d["json_head_bytes"],
            not_logs=frozenset(d["not_logs"]),
            hidden_prefix=d["hidden_prefix"],
            companion_suffix=d["companion_suffix"],
            dataset_marker=d["dataset_marker"],
        ),
        raw=raw,
    )


# RE2's Perl classes are ASCII (re2/syntax: \s is [\t\n\f\r ], no \v).
_PERL = {
    "s": "\\t\\n\\f\\r ",
    "d": "0-9",
    "w": "0-9A-Za-z_",
}
# Go's (?i) matches a letter with every rune of its simple case-folding orbit
# (unicode.SimpleFold): for ASCII letters that is the two cases, plus the
# Kelvin sign for k and the long s for s. Python's re.IGNORECASE also folds
# i with U+0130 and U+0131, which Go does not, so letters are spelled out.
_FOLD_EXTRA = {"k": "\u212a", "s": "\u017f"}
_ESCAPES_KEPT = set("\\.+*?()|[]{}^$-/ntfr:'\"#&~=!<>,@%`;_ ")


class UnsupportedPattern(ValueError):
    """An RE2 construct the translation does not reproduce exactly."""


def re2_to_python(pattern: str) -> re.Pattern[str]:
    """Compile an RE2 pattern (Go's regexp) as a Python pattern that matches the same texts.

    Supported: leading flags ``(?i)``, ``(?s)``, ``(?m)`` (any combination),
    literals, groups, alternation, quantifiers, ``.``, ``^``, ``$``, character
    classes of ASCII literals and ranges, and ``\\s \\S \\d \\D \\w \\W`` (ASCII, as
    RE2 has them). Under ``(?i)`` only ASCII letters are folded, Go's way.
    Anything else raises :class:`UnsupportedPattern`.
    """
    flags = ""
    i = 0
    m = re.match(r"\(\?([a-zA-Z]+)\)", pattern)
    if m:
        flags = m.group(1)
        if set(flags) - set("ism"):
            raise UnsupportedPattern(f"{pattern!r}: flags {flags!r}")
        i = m.end()
    fold = "i" in flags
    multiline = "m" in flags
    out: list[str] = []
    in_class = False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            if i + 1 >= len(pattern):
                raise UnsupportedPattern(f"{pattern!r}: trailing backslash")
            e = pattern[i + 1]
            i += 2
            if e.lower() in _PERL:
                body = _PERL[e.lower()]
                if e.islower():
                    out.append(body if in_class else f"[{body}]")
                elif in_class:
                    raise UnsupportedPattern(f"{pattern!r}: \\{e} inside a class")
                else:
                    out.append(f"[^{body}]")
            elif e == "z" and not in_class:
                out.append(r"\Z")
            elif e == "A" and not in_class:
                out.append(r"\A")
            elif e in _ESCAPES_KEPT:
                if fold and e.isalpha() and e not in "ntfr":
                    raise UnsupportedPattern(f"{pattern!r}: \\{e} under (?i)")
                out.append("\\" + e)
            else:
                raise UnsupportedPattern(f"{pattern!r}: escape \\{e}")
            continue
        if not c.isascii():
            if fold:
                raise UnsupportedPattern(f"{pattern!r}: non-ASCII {c!r} under (?i)")
            out.append(re.escape(c))
            i += 1
            continue
        if in_class:
            if c == "]":
                in_class = False
            elif c == "[":
                raise UnsupportedPattern(f"{pattern!r}: '[' inside a class")
            elif fold and c.isalpha():
                raise UnsupportedPattern(f"{pattern!r}: letter {c!r} in a class under (?i)")
            out.append(c)
            i += 1
            continue
        if c == "[":
            in_class = True
            out.append(c)
            if pattern[i + 1 : i + 2] == "^":
                out.append("^")
                i += 1
            i += 1
            continue
        if c == "(" and pattern[i + 1 : i + 2] == "?":
            if pattern[i + 2 : i + 3] != ":":
                raise UnsupportedPattern(f"{pattern!r}: group syntax at {i}")
            out.append("(?:")
            i += 3
            continue
        if c == "$" and not multiline:
            out.append(r"\Z")  # RE2 without (?m): the end of the text only
        elif fold and c.isalpha():
            out.append("[" + c.lower() + c.upper() + _FOLD_EXTRA.get(c.lower(), "") + "]")
        else:
            out.append(c)
        i += 1
    if in_class:
        raise UnsupportedPattern(f"{pattern!r}: unterminated class")
    py_flags = re.DOTALL if "s" in flags else 0
    if multiline:
        py_flags |= re.MULTILINE
    return re.compile("".join(out), py_flags)
