"""The shipped vocabulary and the RE2 translation of its error forms."""

from __future__ import annotations

import pathlib
import re

import pytest

from empties import CLASSES, vocabulary
from empties.vocabulary import UnsupportedPattern, re2_to_python


def test_classes_are_the_vocabularys_in_order() -> None:
    v = vocabulary()
    assert v.classes == CLASSES
    assert v.classes[0] == "error" and v.classes[-1] == "answer"
    # the rules cover every class, in the classes' order
    seen: list[str] = []
    for r in v.rules:
        if not seen or seen[-1] != r.reply_class:
            seen.append(r.reply_class)
    assert tuple(seen) == v.classes


def test_reply_rules_are_first_then_final() -> None:
    # The names the Go side (internal/vocab ReplyRules) and the Python side
    # give the choice of which generation is a sample's reply.
    v = vocabulary()
    assert v.reply_rules == ("first", "final")
    assert all(r["meaning"] for r in v.raw["reply_rules"])


def test_every_error_form_compiles_and_has_a_rule() -> None:
    v = vocabulary()
    assert v.error_forms, "the vocabulary has no error forms"
    ids = {r.id for r in v.rules}
    for f in v.error_forms:
        assert f.compiled and len(f.compiled) == len(f.patterns)
        assert f"error_text.form.{f.name}" in ids


@pytest.mark.parametrize(
    ("pattern", "text", "go"),
    [
        # RE2's \s is [\t\n\f\r ]: no \v, no U+001C..U+001F, no Unicode spaces
        (r"^\s*x$", " x", True),
        (r"^\s*x$", "\vx", False),
        (r"^\s*x$", "\x1cx", False),
        (r"^\s*x$", "\u00a0x", False),
        (r"^\s*x$", "\tx", True),
        # RE2's $ (no (?m)) is the end of the text, not before a final newline
        (r"^x$", "x\n", False),
        (r"^x$", "x", True),
        (r"(?m)^x$", "x\ny", True),
        # Go's (?i) folds k with the Kelvin sign and s with the long s, not i with İ or ı
        (r"(?i)^kiss$", "\u212ai\u017f\u017f", True),
        (r"(?i)^i$", "\u0130", False),
        (r"(?i)^i$", "\u0131", False),
        (r"(?i)^i$", "I", True),
        # RE2's \d is ASCII
        (r"^\d+$", "\u0663", False),
        (r"^\d+$", "42", True),
        (r"^[A-Z_]+\s*(\n|$)", "SAFETY\n", True),
        (r"^\s*\(no content\)\s*$", "(no content)\n", True),
        (r"^\s*\(no content\)\s*$", "(no content)\v", False),
    ],
)
def test_re2_translation_matches_as_go_does(pattern: str, text: str, go: bool) -> None:
    # The expected values are Go's regexp.MatchString; internal/pypkg's
    # TestErrorFormsMatchAsGo checks the shipped forms against Go itself.
    assert bool(re2_to_python(pattern).search(text)) is go


@pytest.mark.parametrize("pattern", [r"\bword", r"(?i)[a-z]", r"(?i)é", r"(?P<n>x)", r"\pL", r"x(?i)y", r"(?U)x"])
def test_unsupported_re2_is_refused(pattern: str) -> None:
    with pytest.raises(UnsupportedPattern):
        re2_to_python(pattern)


def test_translation_is_a_python_pattern() -> None:
    assert isinstance(re2_to_python(r"(?is)^\s*abc"), re.Pattern)


def test_provider_refusals_come_from_the_export() -> None:
    # P3's refusal subset is the Go classifier's (classify.ProviderRefusals),
    # shipped in the vocabulary, not a copy in the scorer.
    from empties.scorer import PROVIDER_REFUSAL_CLASSES

    v = vocabulary()
    assert PROVIDER_REFUSAL_CLASSES is v.provider_refusals
    assert v.provider_refusals == frozenset(v.raw["provider_refusals"])
    assert v.provider_refusals and v.provider_refusals <= set(CLASSES)
    assert v.provider_refusals <= v.non_answer_classes


def test_folder_listing_reads_the_exported_names(tmp_path: pathlib.Path) -> None:
    """python -m empties classify lists a folder by the names Go exports (internal/logset, internal/store's marker)."""
    import os

    from empties.discover import list_logs

    d = vocabulary().discovery
    root = str(tmp_path)
    os.makedirs(os.path.join(root, "x" + d.companion_suffix))
    os.makedirs(os.path.join(root, d.hidden_prefix + "buffer"))
    os.makedirs(os.path.join(root, "sub"))
    os.makedirs(os.path.join(root, "ds"))
    open(os.path.join(root, "ds", d.dataset_marker), "wb").close()
    open(os.path.join(root, "ds", "e" + d.eval_suffix), "wb").close()
    for rel in ("a" + d.eval_suffix, "x" + d.companion_suffix + "/b" + d.eval_suffix,
                d.hidden_prefix + "buffer/c" + d.eval_suffix, "sub/d" + d.eval_suffix):
        open(os.path.join(root, rel), "wb").close()
    for name in d.not_logs:
        with open(os.path.join(root, name), "w") as f:
            f.write('{"%s": 1}' % d.json_first_keys[0])
    with open(os.path.join(root, "log" + d.json_suffix), "w") as f:
        f.write(' {"%s": 1}' % d.json_first_keys[-1])
    files, _ = list_logs([root])
    listed = sorted(os.path.relpath(p, root) for p in files)
    assert listed == sorted(["a" + d.eval_suffix, "log" + d.json_suffix, os.path.join("sub", "d" + d.eval_suffix)])
