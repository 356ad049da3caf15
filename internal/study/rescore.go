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
// commits every table it writes in one generation: the logs placed in the
// study (assignLogs), what the logs recorded of their samples (readEvidence),
// every placed reply under each policy (scoreReplies) and the judge verdicts
// (writeVerdicts), merged (mergeScored); then what the SQL computes from
// them (computeHeadlines), the re-run pairs and the study's tables
// (writeDerived).
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
	ev, err := readEvidence(ctx, cfg.Data, m, assigned)
	if err != nil {
		return nil, err
	}
	replies, counts, err := scoreReplies(ctx, ds, cfg.Data, ev)
	if err != nil {
		return nil, err
	}
	if err := writeVerdicts(ds, m, assigned, ev.judges, replies, ev.logged); err != nil {
		return nil, err
	}
	if err := mergeScored(ds); err != nil {
		return nil, err
	}
	// The headlines read the policy rows, assignments and verdicts merged
	// above, before anything is committed: every table rescore writes goes
	// into the dataset in the one Commit below.
	d, err := computeHeadlines(ctx, cfg.Data, ds.Merged(), m)
	if err != nil {
		return nil, err
	}
	planned, err := plannedReruns(cfg.Data)
	if err != nil {
		return nil, err
	}
	reruns := pairReruns(d.outcomes, planned)
	if err := writeDerived(ds, m, d, reruns); err != nil {
		return nil, err
	}
	if err := ds.Commit(); err != nil {
		return nil, err
	}
	return &Result{Counts: counts, Unmatched: unmatched, Heads: d.heads, Checks: d.checks, Reruns: reruns, Tests: d.tests}, nil
}

// evidence is what the logs recorded of the samples placed in the study,
// read before their replies are re-scored.
type evidence struct {
	m        *manifest.Manifest
	assigned map[string]manifest.Assigned // the logs with an eval (assignLogs)
	logged   map[sampleKey]*schema.Score  // each sample's score by its eval's scorer
	judges   *judgeIndex
	partB    map[partBKey]*schema.Score // partBVerdicts
	evalIDs  map[string]string          // log id → eval id
}

// readEvidence reads the scores the logs hold, the judge calls and the Part
// B verdicts of the logs placed in the study.
func readEvidence(ctx context.Context, dir string, m *manifest.Manifest, assigned map[string]manifest.Assigned) (*evidence, error) {
	ev := &evidence{m: m, assigned: assigned}
	var err error
	if ev.logged, err = loggedScores(dir, m, assigned); err != nil {
		return nil, err
	}
	if ev.judges, err = judgeCalls(ctx, dir, m, assigned); err != nil {
		return nil, err
	}
	if ev.partB, ev.evalIDs, err = partBVerdicts(dir, assigned, ev.logged); err != nil {
		return nil, err
	}
	return ev, nil
}

// loggedScores are the scores each placed sample's log holds from its
// eval's scorer (the profile's score key).
func loggedScores(dir string, m *manifest.Manifest, assigned map[string]manifest.Assigned) (map[sampleKey]*schema.Score, error) {
	logged := map[sampleKey]*schema.Score{}
	err := store.Scan(dir, "scores", func(s *schema.Score) error {
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
	return logged, nil
}

// scoreReplies stages policy_scores: every reply of the dataset dir placed
// in the study under each policy. It returns those replies by sample, and
// their count per eval.
func scoreReplies(ctx context.Context, ds *store.Dataset, dir string, ev *evidence) (map[sampleKey]*schema.Reply, map[string]int, error) {
	ps, err := store.WriterOf(ds, schema.PolicyScores)
	if err != nil {
		return nil, nil, err
	}
	replies := map[sampleKey]*schema.Reply{}
	counts := map[string]int{}
	// One pass over replies (read only: replies belong to ingest): each
	// placed in the study gets its policy rows.
	err = store.Scan(dir, "replies", func(r *schema.Reply) error {
		a, ok := ev.assigned[r.LogID]
		if !ok {
			return nil
		}
		p := ev.m.Profiles[a.Eval]
		k := sampleKey{r.LogID, r.SampleID, r.Epoch}
		f := replyFacts{Reply: r, Logged: ev.logged[k], JudgeCalls: ev.judges.count(k, p)}
		if a.Part == vocab.PartA {
			f.PartB = ev.partB[partBKey{ev.evalIDs[r.LogID], r.SampleID, r.Epoch}]
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
		return nil, nil, err
	}
	if err := ps.Keep(ds); err != nil {
		return nil, nil, err
	}
	return replies, counts, nil
}

// mergeScored merges the tables staged so far (log_assignments,
// policy_scores, judge_verdicts), which the headlines read.
func mergeScored(ds *store.Dataset) error {
	for _, mg := range []func() error{
		func() error { return store.MergeTable(ds, schema.LogAssignments) },
		func() error { return store.MergeTable(ds, schema.PolicyScores) },
		func() error { return store.MergeTable(ds, schema.JudgeVerdicts) },
	} {
		if err := mg(); err != nil {
			return err
		}
	}
	return nil
}

// plannedReruns reads the re-runs select planned, if the dataset holds any.
func plannedReruns(dir string) ([]schema.PlannedRerun, error) {
	var planned []schema.PlannedRerun
	if store.HasTable(dir, "planned_reruns") {
		if err := store.Scan(dir, "planned_reruns", func(p *schema.PlannedRerun) error { planned = append(planned, *p); return nil }); err != nil {
			return nil, err
		}
	}
	return planned, nil
}

// writeDerived writes the tables computed from the merged ones: headlines,
// p0_check, reply_outcomes, the re-run pairs and the Part C judge tests;
// and the study's own tables.
func writeDerived(ds *store.Dataset, m *manifest.Manifest, d *derived, reruns []schema.Rerun) error {
	for _, step := range []func() error{
		func() error { return store.WriteTable(ds, schema.Headlines, d.heads) },
		func() error { return store.WriteTable(ds, schema.P0Checks, d.checks) },
		func() error { return store.WriteTable(ds, schema.ReplyOutcomes, d.outcomes) },
		func() error { return store.WriteTable(ds, schema.Reruns, reruns) },
		func() error { return store.WriteTable(ds, schema.JudgeTests, d.tests) },
		func() error { return studyTables(ds, m) },
	} {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
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
