package vocab

import "regexp"

// Where an eval's judge runs (an eval profile's judge.where, study_evals.judge_where).
const (
	JudgeInScorer = "scorer" // a model-graded scorer calls it (model_graded_qa, a scorer's get_model().generate)
	JudgeInSolver = "solver" // the solver calls the model under test again to grade its own reply (AIR-Bench)
	NoJudge       = "none"
)

// JudgeWheres (study_evals.judge_where) are where a judge runs, in order.
var JudgeWheres = []string{JudgeInScorer, JudgeInSolver, NoJudge}

// graderRole matches model-role names that denote a grader.
var graderRole = regexp.MustCompile(`(?i)grad|judg|scor|critic|evaluat|rater|monitor|classif`)

// GraderRole reports whether a model event's role names a grader: ingest
// records such a call as a judge's (KindJudge) when no scorer span or step
// encloses it. Span ancestry is the stronger signal; role alone is not
// enough, since a grader that falls back to the default model has no role.
// Which calls graded a sample's reply also depends on where the eval's judge
// runs: is_judge_call (sql/macros/judge_calls.sql) is that one definition.
func GraderRole(role string) bool {
	return role != "" && graderRole.MatchString(role)
}
