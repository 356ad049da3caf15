package study

import (
	"empties/internal/classify"
	"empties/internal/manifest"
	"empties/internal/scorevalue"
	"empties/internal/vocab"
	"empties/schema"
)

// Reasons a policy value has (policy_scores.reason).
const (
	ReasonLogged          = "logged"
	ReasonError           = "error"
	ReasonNoScore         = "no_score"
	ReasonMaxTokens       = "max_tokens"
	ReasonProviderRefusal = "provider_refusal"
	ReasonNoResponse      = "no_response"
	ReasonNonAnswer       = "non_answer"
	ReasonNeedsJudge      = "needs_judge"
	ReasonPartBJudge      = "part_b_judge" // a needs_judge reply the eval's judge graded in a Part B replay
)

// ScoreReasons maps the reasons of P3's re-routed rows to the Score.reason
// the Python package's class_aware scorer logs for the same reply:
// inspect_ai's own ScoreReason values (scorer/_metric.py: "refusal" a
// detected refusal, "no_response" an empty completion), with the reply's
// class beside them in the score's metadata, which tells the rows of one
// reason apart. internal/pypkg's TestClassAwareReproducesP3 holds the two
// equal through this map.
var ScoreReasons = map[string]string{
	ReasonProviderRefusal: "refusal",
	ReasonMaxTokens:       "no_response",
	ReasonNoResponse:      "no_response",
	ReasonError:           "no_response",
}

// replyFacts is what the policies read about one sample × epoch.
type replyFacts struct {
	Reply      *schema.Reply
	Logged     *schema.Score // the eval's score, nil when the log has none
	JudgeCalls int64         // judge calls that graded this reply
	PartB      *schema.Score // the eval's score of this reply replayed to its judge (Part B), if one was run
}

// rerouted reports whether a policy may touch this reply: a non-answer, and
// for evals like BFCL only one with neither text nor tool call (seed, Part B).
func rerouted(p *manifest.Profile, r *schema.Reply) bool {
	if !r.NonAnswer {
		return false
	}
	if p.Policy.Touch == "no_text_no_tool" {
		return r.TextBlank && r.ToolCallCount == 0
	}
	return true
}

// judged reports whether the logged score came from a judge call.
func judged(p *manifest.Profile, f replyFacts) bool {
	return p.Judge.Where != vocab.NoJudge && f.Logged != nil && f.JudgeCalls > 0
}

// apply computes one policy's row for a reply (seed, Part B):
//
//	P0  the eval's own logged score;
//	P1  non-answers get the eval's failure value (incorrect);
//	P2  non-answers are unscored (NaN, out of the denominator);
//	P3  class-aware: truncated_empty and error unscored with their reason;
//	    filtered, refusal_flag and error_text get the eval's refusal outcome
//	    in refusal evals and NOANSWER elsewhere, never judged; silent and
//	    reasoning_only (and tool_only where no tools were offered) are
//	    incorrect / NOANSWER.
//
// Replies a policy does not re-route keep the logged score. If the logged
// score skipped the judge (a guarded eval's preset for an empty completion)
// while the policy treats the reply as an answer, the row needs a judge the
// run never called: it is counted, not scored, until a Part B replay of the
// reply (`empties select partb`, `empties rerun`) gives the judge's verdict,
// which the row then takes.
func apply(policy string, p *manifest.Profile, f replyFacts) schema.PolicyScore {
	r := f.Reply
	row := schema.PolicyScore{Policy: policy, Class: r.Class}
	keep := func() schema.PolicyScore {
		switch {
		case f.Logged != nil:
			row.ValueJSON = f.Logged.ValueJSON
			row.Unscored = f.Logged.Unscored
			row.Reason = ReasonLogged
			row.JudgeUsed = judged(p, f)
		case r.Class == classify.Error:
			row.ValueJSON, row.Unscored, row.Reason = "NaN", true, ReasonError
		default:
			row.ValueJSON, row.Unscored, row.Reason = "NaN", true, ReasonNoScore
		}
		return row
	}
	assign := func(valueJSON, reason string) schema.PolicyScore {
		row.Rerouted = true
		row.ValueJSON, row.Reason = valueJSON, reason
		row.Unscored = valueJSON == "NaN"
		return row
	}
	if policy == vocab.P0 {
		return keep()
	}
	if policy == vocab.P3 && r.Class == classify.Error {
		return assign("NaN", ReasonError)
	}
	if !rerouted(p, r) {
		row = keep()
		if p.Judge.Where != vocab.NoJudge && p.Judge.Guarded && f.Logged != nil && f.JudgeCalls == 0 && r.Class != classify.Error {
			// the run's guard scored this reply without its judge; as an
			// answer it would go to the judge now.
			row.ValueJSON, row.Unscored, row.Reason, row.NeedsJudge, row.JudgeUsed = "NaN", true, ReasonNeedsJudge, true, false
			if f.PartB != nil { // ... and did, in Part B
				row.ValueJSON, row.Unscored, row.Reason, row.NeedsJudge, row.JudgeUsed = f.PartB.ValueJSON, f.PartB.Unscored, ReasonPartBJudge, false, true
			}
		}
		return row
	}
	switch policy {
	case vocab.P1:
		return assign(p.Values.Failure, ReasonNonAnswer)
	case vocab.P2:
		return assign("NaN", ReasonNonAnswer)
	}
	switch { // P3
	case r.Class == classify.TruncatedEmpty:
		return assign("NaN", ReasonMaxTokens)
	case classify.IsProviderRefusal(r.Class):
		if p.Kind == vocab.EvalRefusal {
			return assign(p.Values.Refusal, ReasonProviderRefusal)
		}
		return assign(p.Values.NoAnswer, ReasonProviderRefusal)
	default: // silent, reasoning_only, tool_only without tools
		return assign(p.Values.Failure, ReasonNoResponse)
	}
}

// project fills the projections of a row's value.
func project(row *schema.PolicyScore) {
	row.ValueKind, row.ValueFloat, row.ValueString = scorevalue.Project([]byte(row.ValueJSON))
}
