// Package exposure is the static scan of inspect_evals for evals exposed to
// the empty-reply problem (`empties exposure`, stages/exposurecmd) (pre-registration section 4, "Exposure search";
// issue 7). It parses every Python file of the package with tree-sitter and
// reports, per eval, each of four criteria it meets, with file, line and
// code:
//
//  1. empty_check: it calls preset_score_on_no_response (or another helper
//     that tests the completion), or tests the completion itself:
//     `not state.output.completion.strip()`, `completion == ""`,
//     `len(text) == 0`, `if state.output.completion:`, `output.empty`. A
//     truthiness test of the ModelOutput itself (`if not state.output`) is
//     reported too, as a check that never fires.
//  2. unguarded_judge: a judge — model_graded_qa, model_graded_fact, or
//     `<model>.generate(...)` on a model from get_model reached from a
//     scorer — that some path reaches with no test of the completion (or of
//     the model's stop_reason or refusal flag) before it. See judgepaths.go
//     for what ends a path screened (the pre-registration's "guarded").
//  3. max_tokens: every `max_tokens=` keyword, its value resolved through
//     constants, parameter defaults and imported constants, and which model
//     it configures.
//  4. refusal_signal: reads of stop_reason, stop_details or a refusal flag,
//     and the fail_on_refusal and retry_refusals keywords.
//
// An eval is a top-level folder of the package that defines a @task (so the
// tasks of cyberseceval_4/mitre/ and cyberseceval_4/mitre_frr/ are one eval,
// cyberseceval_4). Modules outside eval folders (utils/, the package root)
// are helpers: their tests and judges are reported at the eval's call into
// them.
//
// Limits of the resolution, by design:
//   - Names resolve within a module (nested defs, module defs, self.method)
//     and through imports of the package's own modules by name or as a
//     module (`from inspect_evals.utils.scorers import f`, `from . import
//     m; m.f`), re-exports in __init__ files included. Not followed: methods
//     called on instances (`judge.check_refusal(...)`, as in AgentHarm),
//     getattr, registries (scorer specs in YAML, registry_info) and library
//     code (inspect_ai itself). A scorer found only through the registry
//     counts as entered by the framework, unguarded.
//   - The completion is recognised as state.output.completion or
//     .message.text/.content of a TaskState's output (a name `state` or a
//     parameter annotated TaskState/AgentState) and values derived from it
//     by assignment, string methods, slicing and `or ""`; values are traced
//     through assignments in enclosing scopes, parameters (with the origins
//     their callers pass, one level up) and self.<attr>, not through
//     containers, loops or returns of arbitrary functions. Text taken from
//     state.messages is not recognised.
//   - A judge is model_graded_qa/model_graded_fact anywhere, or generate on
//     a Model on a path that runs through a scorer; a judge called from a
//     solver (AIR-Bench's annotate) is not counted.
//   - A screen is a test in a condition that decides whether the judge call
//     runs (see controls); which branch of the test leads to the judge is not
//     checked. A read of the model's stop_reason or refusal flag counts as a
//     screen (criterion 2 says "emptiness or refusal check"), although it does
//     not catch an empty text with stop_reason "stop".
//   - max_tokens set in YAML run configs, in dict literals or through
//     GenerateConfig(**config) is not seen; which model a max_tokens
//     configures is read from the calls around it, and said to be unclear
//     when an unknown call stands in between.
package exposure

import (
	"path/filepath"
)

// Write writes a scan's findings into dir, the exposure table's folder of a
// dataset generation: exposure.parquet (one row per eval × criterion × file ×
// line) and exposure.md (the same, grouped by eval).
func Write(dir string, res *Result) error {
	if err := writeParquet(filepath.Join(dir, "exposure.parquet"), res.Findings); err != nil {
		return err
	}
	return writeMarkdown(filepath.Join(dir, "exposure.md"), res)
}
