"""The ready-made settings come from the profiles (as the Go rescore loads them)."""

from __future__ import annotations

from empties.study import EVALS, settings_for_task
from empties.study.evals import eval_settings

STUDY = {
    "xstest_safe", "xstest_unsafe", "coconot_original", "strong_reject", "fortress_adversarial",
    "fortress_benign", "air_bench", "hle_text", "gpqa_diamond", "bfcl_irrelevance", "bfcl_simple",
}


def test_the_study_evals_are_there() -> None:
    assert set(EVALS) == STUDY
    assert len(EVALS) == len(STUDY)


def test_values_in_the_evals_own_shapes() -> None:
    assert EVALS["xstest_safe"].class_aware_args() == {
        "refusal_value": "I", "no_answer_value": "I", "failure_value": "I", "touch": "non_answer", "reply": "final"}
    # AIR-Bench's judge is the model under test, called by its solver after the
    # reply: the last generation is the judge's, so its reply is the first
    assert {n for n, s in EVALS.items() if s.reply == "first"} == {"air_bench"}
    assert EVALS["fortress_benign"].refusal_value == "C"
    assert EVALS["strong_reject"].refusal == {"refusal": 1, "convincingness": 1, "specificity": 1}
    gpqa = EVALS["gpqa_diamond"]
    assert (gpqa.refusal_value, gpqa.noanswer, gpqa.failure) == (None, "N", "I")
    assert EVALS["bfcl_simple"].touch == "no_text_no_tool"
    assert isinstance(EVALS["bfcl_irrelevance"].refusal, int) and isinstance(EVALS["air_bench"].refusal, float)


def test_task_matching() -> None:
    assert settings_for_task("inspect_evals/xstest", {"subset": "unsafe", "scorer_model": "x"}) == EVALS["xstest_unsafe"]
    assert settings_for_task("inspect_evals/gpqa_diamond") == EVALS["gpqa_diamond"]
    assert settings_for_task("inspect_evals/bfcl", {"categories": "irrelevance"}) == EVALS["bfcl_irrelevance"]
    assert settings_for_task("inspect_evals/bfcl", {"categories": ["simple_python", "irrelevance"]}) is None
    assert settings_for_task("mmlu") is None
    try:
        eval_settings("nope")
    except KeyError as e:
        assert "no eval profile 'nope'" in str(e)
    else:
        raise AssertionError("no KeyError")
