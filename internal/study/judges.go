package study

import (
	"context"
	"database/sql/driver"
	"maps"
	"slices"
	"sort"

	json "github.com/goccy/go-json"

	"empties/internal/classify"
	"empties/internal/duck"
	"empties/internal/manifest"
	"empties/internal/store"
	"empties/internal/vocab"
	"empties/schema"
)

// judgeIndex holds the judge calls of every re-scored sample.
type judgeIndex struct {
	calls map[sampleKey][]schema.ModelCall
}

// callKey names a model call: its sample and its call index.
type callKey struct {
	sampleKey
	CallIndex int64
}

// judgeCalls collects the judge calls of the logs placed in an eval: those
// sql/queries/judge_call_keys.sql finds by is_judge_call
// (sql/macros/judge_calls.sql, the one definition: model calls under a
// scorer, and for evals whose judge runs in the solver, AIR-Bench, the
// model-under-test calls other than the reply).
func judgeCalls(ctx context.Context, dir string, m *manifest.Manifest, assigned map[string]manifest.Assigned) (*judgeIndex, error) {
	idx := &judgeIndex{calls: map[sampleKey][]schema.ModelCall{}}
	if !store.HasTable(dir, "model_calls") {
		return idx, nil
	}
	keys, err := judgeCallKeys(ctx, dir, m, assigned)
	if err != nil || len(keys) == 0 {
		return idx, err
	}
	err = store.Scan(dir, "model_calls", func(c *schema.ModelCall) error {
		k := sampleKey{c.LogID, c.SampleID, c.Epoch}
		if keys[callKey{k, c.CallIndex}] {
			idx.calls[k] = append(idx.calls[k], *c)
		}
		return nil
	})
	return idx, err
}

// judgeCallKeys runs judge_call_keys over the dataset's model calls, with
// log_judges holding where the judge of each placed log's eval runs.
func judgeCallKeys(ctx context.Context, dir string, m *manifest.Manifest, assigned map[string]manifest.Assigned) (map[callKey]bool, error) {
	db, queries, err := openQueries(ctx, m, dir)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "CREATE OR REPLACE TABLE log_judges (log_id VARCHAR, judge_where VARCHAR)"); err != nil {
		return nil, err
	}
	logs := slices.Sorted(maps.Keys(assigned))
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	err = duck.Append(conn, "log_judges", func(add func(...driver.Value) error) error {
		for _, id := range logs {
			if err := add(id, m.Profiles[assigned[id].Eval].Judge.Where); err != nil {
				return err
			}
		}
		return nil
	})
	conn.Close()
	if err != nil {
		return nil, err
	}
	rows, err := queries.Rows(ctx, db, "judge_call_keys", nil)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	keys := map[callKey]bool{}
	for rows.Next() {
		var k callKey
		if err := rows.Scan(&k.LogID, &k.SampleID, &k.Epoch, &k.CallIndex); err != nil {
			return nil, err
		}
		keys[k] = true
	}
	return keys, rows.Err()
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
	wr, err := store.WriterOf(ds, schema.JudgeVerdicts)
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
				class = classify.JudgeCallClass(&c)
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

// partBKey names the reply a Part B replay graded: the eval id of its log,
// its sample id and its epoch (the replayed sample's metadata
// empties_original_eval_id, empties_sample_id, empties_epoch).
type partBKey struct {
	EvalID, SampleID string
	Epoch            int64
}

// partBVerdicts reads the Part B logs (part B: replies replayed to the
// eval's judge because a policy sends them there and the original run did
// not): the score each gave, by the reply it graded. It also returns every
// log's eval id. A reply graded in two Part B logs keeps the first found.
func partBVerdicts(dir string, assigned map[string]manifest.Assigned, logged map[sampleKey]*schema.Score) (map[partBKey]*schema.Score, map[string]string, error) {
	evalIDs := map[string]string{}
	if err := store.Scan(dir, "logs", func(l *schema.Log) error { evalIDs[l.LogID] = deref(l.EvalID); return nil }); err != nil {
		return nil, nil, err
	}
	out := map[partBKey]*schema.Score{}
	any := false
	for _, a := range assigned {
		any = any || a.Part == vocab.PartB
	}
	if !any {
		return out, evalIDs, nil
	}
	err := store.Scan(dir, "replies", func(r *schema.Reply) error {
		if a, ok := assigned[r.LogID]; !ok || a.Part != vocab.PartB || r.SampleMetadata == nil {
			return nil
		}
		var md struct {
			EvalID   string `json:"empties_original_eval_id"`
			SampleID string `json:"empties_sample_id"`
			Epoch    int64  `json:"empties_epoch"`
		}
		if json.Unmarshal([]byte(*r.SampleMetadata), &md) != nil || md.EvalID == "" {
			return nil
		}
		s := logged[sampleKey{r.LogID, r.SampleID, r.Epoch}]
		k := partBKey{md.EvalID, md.SampleID, md.Epoch}
		if _, seen := out[k]; s != nil && !seen {
			out[k] = s
		}
		return nil
	})
	return out, evalIDs, err
}
