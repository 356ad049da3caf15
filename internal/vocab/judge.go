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
func GraderRole(role string) bool {
	return role != "" && graderRole.MatchString(role)
}

// IsJudgeCall is the one definition of a call that graded a sample's reply,
// given whose call ingest found it to be (model_calls.kind: a judge's when a
// scorer span or step encloses it or its role is a grader's, GraderRole),
// whether it is the sample's reply, and where the eval's judge runs: in a
// scorer, a judge's call; inside the solver, a call of the model under test
// other than the reply; nowhere, none.
func IsJudgeCall(kind string, isReply bool, where string) bool {
	switch where {
	case JudgeInScorer:
		return kind == KindJudge
	case JudgeInSolver:
		return kind == KindMUT && !isReply
	}
	return false
}
