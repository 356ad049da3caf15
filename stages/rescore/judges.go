package rescore

import (
	"sort"

	"empties/internal/classify"
	"empties/internal/manifest"
	"empties/internal/store"
	"empties/internal/vocab"
	"empties/schema"
)

// judgeIndex holds the judge calls of every re-scored sample.
type judgeIndex struct {
	calls map[sampleKey][]schema.ModelCall
}

// judgeCalls collects judge calls: model calls under a scorer, and for evals
// whose judge runs in the solver (AIR-Bench), the model-under-test calls
// after the first.
func judgeCalls(dir string, m *manifest.Manifest, assigned map[string]manifest.Assigned) (*judgeIndex, error) {
	idx := &judgeIndex{calls: map[sampleKey][]schema.ModelCall{}}
	err := store.Scan(dir, "model_calls", func(c *schema.ModelCall) error {
		a, ok := assigned[c.LogID]
		if !ok {
			return nil
		}
		p := m.Profiles[a.Eval]
		isJudge := c.Kind == vocab.KindJudge && p.Judge.Where == "scorer" ||
			p.Judge.Where == "solver" && c.Kind == vocab.KindMUT && !c.IsReply
		if isJudge {
			k := sampleKey{c.LogID, c.SampleID, c.Epoch}
			idx.calls[k] = append(idx.calls[k], *c)
		}
		return nil
	})
	return idx, err
}

// forScore returns the judge calls that produced the profile's score: those
// under the scorer's span when any are, else every judge call of the sample.
func (j *judgeIndex) forScore(k sampleKey, p *manifest.Profile) []schema.ModelCall {
	all := j.calls[k]
	var named []schema.ModelCall
	for _, c := range all {
		if c.Scorer != nil && *c.Scorer == p.Score.Key {
			named = append(named, c)
		}
	}
	if len(named) > 0 {
		return named
	}
	return all
}

func (j *judgeIndex) count(k sampleKey, p *manifest.Profile) int64 {
	return int64(len(j.forScore(k, p)))
}

func writeVerdicts(ds *store.Dataset, m *manifest.Manifest, assigned map[string]manifest.Assigned, j *judgeIndex,
	replies map[sampleKey]*schema.Reply, logged map[sampleKey]*schema.Score) error {
	wr, err := store.NewWriter[schema.JudgeVerdict](ds, "judge_verdicts")
	if err != nil {
		return err
	}
	keys := make([]sampleKey, 0, len(j.calls))
	for k := range j.calls {
		keys = append(keys, k)
	}
	sortKeys(keys)
	for _, k := range keys {
		a := assigned[k.LogID]
		p := m.Profiles[a.Eval]
		s, r := logged[k], replies[k]
		if s == nil || r == nil {
			continue // no score produced: not a verdict
		}
		for _, c := range j.forScore(k, p) {
			var class string
			if c.JudgeClass != nil {
				class = *c.JudgeClass
			} else { // a judge inside the solver: classified here
				class = classify.Judge(classify.JudgeInput{NChoices: c.NChoices, StopReason: deref(c.StopReason), Refusal: c.Refusal, Text: c.Text})
			}
			v := schema.JudgeVerdict{
				LogID: k.LogID, Eval: a.Eval, Route: a.Route, Arm: a.Arm, SampleID: k.SampleID, Epoch: k.Epoch,
				CallIndex: c.CallIndex, Scorer: s.Scorer, JudgeModel: c.Model, JudgeRole: c.Role,
				Temperature: c.Temperature, MaxTokens: c.MaxTokens, JudgeText: c.Text, JudgeClass: class,
				VerdictJSON: s.ValueJSON, VerdictFloat: s.ValueFloat, ReplyClass: r.Class, ReplyNonAns: r.NonAnswer,
			}
			if err := wr.Write(v); err != nil {
				return err
			}
		}
	}
	return wr.Keep(ds)
}

func sortKeys(keys []sampleKey) {
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.LogID != b.LogID {
			return a.LogID < b.LogID
		}
		if a.SampleID != b.SampleID {
			return a.SampleID < b.SampleID
		}
		return a.Epoch < b.Epoch
	})
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
