package vocab

import "testing"

// A judge call depends on where the eval's judge runs: a judge's call under
// a scorer, the model under test's calls other than the reply inside the
// solver, nothing where the eval has no judge.
func TestIsJudgeCall(t *testing.T) {
	for _, c := range []struct {
		kind    string
		isReply bool
		where   string
		want    bool
	}{
		{KindJudge, false, JudgeInScorer, true},
		{KindMUT, false, JudgeInScorer, false},
		{KindOther, false, JudgeInScorer, false},
		{KindMUT, false, JudgeInSolver, true},
		{KindMUT, true, JudgeInSolver, false},
		{KindJudge, false, JudgeInSolver, false},
		{KindJudge, false, NoJudge, false},
		{KindMUT, false, NoJudge, false},
	} {
		if got := IsJudgeCall(c.kind, c.isReply, c.where); got != c.want {
			t.Errorf("IsJudgeCall(%s, reply %v, %s) = %v", c.kind, c.isReply, c.where, got)
		}
	}
	for role, want := range map[string]bool{"grader": true, "Judge": true, "red_team": false, "": false, "scorer_model": true} {
		if GraderRole(role) != want {
			t.Errorf("GraderRole(%q) = %v", role, !want)
		}
	}
}
