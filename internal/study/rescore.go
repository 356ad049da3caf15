// Package study is Part B of the pre-registration (`empties rescore`,
// stages/rescorecmd): it places every log in the study, re-scores every
// collected reply under the routing policies P0-P3 with no new calls to the
// model under test, reusing the judge verdicts in the logs, and recomputes
// each eval's headline metric per eval × route × arm × policy with its own
// formula from the eval's profile (the SQL in sql/queries/). P0 must
// reproduce the metric inspect_ai stored in each log; p0_check records the
// comparison. It also writes the study's own tables (routes, evals, primary
// cells), each reply's outcome, the re-run pairs and the Part C judge tests.
package study

import (
	"context"
	"sort"

	"empties/internal/duck"
	"empties/internal/logset"
	"empties/internal/manifest"
	"empties/internal/store"
	"empties/internal/vocab"
	"empties/schema"
)

// Config is what a rescore run reads: the dataset written by ingest and the
// manifest that places its logs in the study.
type Config struct {
	Data                string
	Manifest            string
	AllowPreregMismatch bool
}

// Result is what a rescore run wrote, for the command's summary.
type Result struct {
	Counts    map[string]int // re-scored replies per eval
	Unmatched []string       // paths of the logs no eval profile matches, sorted
	Heads     []schema.Headline
	Checks    []schema.P0Check
	Reruns    []schema.Rerun
	Tests     []schema.JudgeTest
}

type sampleKey struct {
	LogID, SampleID string
	Epoch           int64
}

// Rescore re-scores the dataset cfg.Data (which holds ingest's replies) and
// commits every table it writes in one generation.
func Rescore(ctx context.Context, cfg Config) (*Result, error) {
	m, err := manifest.Load(cfg.Manifest, manifest.Options{AllowPreregMismatch: cfg.AllowPreregMismatch})
	if err != nil {
		return nil, err
	}
	ds, err := store.Create(store.Stage{Name: schema.StageRescore, Views: duck.ViewFile}, cfg.Data)
	if err != nil {
		return nil, err
	}
	defer ds.Close()

	assigned, unmatched, err := assignLogs(ds, m)
	if err != nil {
		return nil, err
	}
	logged := map[sampleKey]*schema.Score{}
	err = store.Scan(cfg.Data, "scores", func(s *schema.Score) error {
		a, ok := assigned[s.LogID]
		if ok && s.Scorer == m.Profiles[a.Eval].Score.Key {
			c := *s
			logged[sampleKey{s.LogID, s.SampleID, s.Epoch}] = &c
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	judges, err := judgeCalls(ctx, cfg.Data, m, assigned)
	if err != nil {
		return nil, err
	}
	partB, evalIDs, err := partBVerdicts(cfg.Data, assigned, logged)
	if err != nil {
		return nil, err
	}

	ps, err := store.WriterOf(ds, schema.PolicyScores)
	if err != nil {
		return nil, err
	}
	replies := map[sampleKey]*schema.Reply{}
	counts := map[string]int{}
	// One pass over replies (read only: replies belong to ingest): each
	// placed in the study gets its policy rows.
	err = store.Scan(cfg.Data, "replies", func(r *schema.Reply) error {
		a, ok := assigned[r.LogID]
		if !ok {
			return nil
		}
		p := m.Profiles[a.Eval]
		k := sampleKey{r.LogID, r.SampleID, r.Epoch}
		f := replyFacts{Reply: r, Logged: logged[k], JudgeCalls: judges.count(k, p)}
		if a.Part == vocab.PartA {
			f.PartB = partB[partBKey{evalIDs[r.LogID], r.SampleID, r.Epoch}]
		}
		for _, pol := range vocab.Policies {
			row := apply(pol, p, f)
			row.LogID, row.Eval, row.Route, row.Arm = r.LogID, a.Eval, a.Route, a.Arm
			row.SampleID, row.Epoch = r.SampleID, r.Epoch
			project(&row)
			if err := ps.Write(row); err != nil {
				return err
			}
		}
		counts[a.Eval]++
		c := *r
		replies[k] = &c
		return ctx.Err()
	})
	if err != nil {
		ps.Discard()
		return nil, err
	}
	if err := ps.Keep(ds); err != nil {
		return nil, err
	}
	if err := writeVerdicts(ds, m, assigned, judges, replies, logged); err != nil {
		return nil, err
	}
	for _, mg := range []func() error{
		func() error { return store.MergeTable(ds, schema.LogAssignments) },
		func() error { return store.MergeTable(ds, schema.PolicyScores) },
		func() error { return store.MergeTable(ds, schema.JudgeVerdicts) },
	} {
		if err := mg(); err != nil {
			return nil, err
		}
	}
	// The headlines read the policy rows, assignments and verdicts merged
	// above, before anything is committed: every table rescore writes goes
	// into the dataset in the one Commit below.
	d, err := computeHeadlines(ctx, cfg.Data, ds.Merged(), m)
	if err != nil {
		return nil, err
	}
	var planned []schema.PlannedRerun
	if store.HasTable(cfg.Data, "planned_reruns") {
		if err := store.Scan(cfg.Data, "planned_reruns", func(p *schema.PlannedRerun) error { planned = append(planned, *p); return nil }); err != nil {
			return nil, err
		}
	}
	reruns := pairReruns(d.outcomes, planned)
	for _, step := range []func() error{
		func() error { return store.WriteTable(ds, schema.Headlines, d.heads) },
		func() error { return store.WriteTable(ds, schema.P0Checks, d.checks) },
		func() error { return store.WriteTable(ds, schema.ReplyOutcomes, d.outcomes) },
		func() error { return store.WriteTable(ds, schema.Reruns, reruns) },
		func() error { return store.WriteTable(ds, schema.JudgeTests, d.tests) },
		func() error { return studyTables(ds, m) },
	} {
		if err := step(); err != nil {
			return nil, err
		}
	}
	if err := ds.Commit(); err != nil {
		return nil, err
	}
	return &Result{Counts: counts, Unmatched: unmatched, Heads: d.heads, Checks: d.checks, Reruns: reruns, Tests: d.tests}, nil
}

// assignLogs maps every log to its place in the study and stages the
// log_assignments table. It returns the logs with an eval, and the paths of
// those without. Superseded logs (logs.set_status) are skipped.
func assignLogs(ds *store.Dataset, m *manifest.Manifest) (map[string]manifest.Assigned, []string, error) {
	var logs []schema.Log
	if err := store.Scan(ds.Dir, "logs", func(l *schema.Log) error { logs = append(logs, *l); return nil }); err != nil {
		return nil, nil, err
	}
	wr, err := store.WriterOf(ds, schema.LogAssignments)
	if err != nil {
		return nil, nil, err
	}
	out := map[string]manifest.Assigned{}
	var unmatched []string
	for _, l := range logs {
		if l.SetStatus == logset.Superseded {
			continue // another log holds its samples (ingest's log set): no assignment, no scores
		}
		info := manifest.LogInfo{Path: l.Path, Task: l.Task, Model: l.Model, Tags: l.Tags}
		if l.TaskArgs != nil {
			info.TaskArgs = *l.TaskArgs
		}
		if l.Metadata != nil {
			info.Metadata = *l.Metadata
		}
		a := m.Assign(info)
		row := schema.LogAssignment{LogID: l.LogID, Path: l.Path, Task: l.Task, Model: l.Model,
			Route: a.Route, Arm: a.Arm, Part: a.Part, How: a.How}
		if a.Eval != "" {
			e := a.Eval
			row.Eval = &e
			out[l.LogID] = a
		} else {
			unmatched = append(unmatched, l.Path)
		}
		if err := wr.Write(row); err != nil {
			return nil, nil, err
		}
	}
	sort.Strings(unmatched)
	return out, unmatched, wr.Keep(ds)
}
