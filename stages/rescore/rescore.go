// Package rescore is Part B of the pre-registration: it re-scores every
// collected reply under the routing policies P0-P3 with no new calls to the
// model under test, reusing the judge verdicts in the logs, and recomputes
// each eval's headline metric per eval × route × arm × policy with its own
// formula from the eval's profile. P0 must reproduce the metric inspect_ai
// stored in each log; p0_check records the comparison.
package rescore

import (
	"context"
	"fmt"
	"io"
	"sort"

	"github.com/urfave/cli/v3"

	"empties/internal/cliutil"
	"empties/internal/duck"
	"empties/internal/logset"
	"empties/internal/manifest"
	"empties/internal/store"
	"empties/internal/vocab"
	"empties/schema"
)

// Options configure a rescore run.
type Options struct {
	Data                string
	Manifest            string
	AllowPreregMismatch bool
}

// Command returns the `rescore` subcommand.
func Command() *cli.Command {
	return &cli.Command{
		Name:  "rescore",
		Usage: "re-score every reply under policies P0-P3 and recompute headline metrics",
		Description: `Maps every ingested log to an eval profile, route, arm and part (manifest),
then writes:

   log_assignments  where each log sits in the study, and how that was decided
   policy_scores    one row per sample × epoch × policy (P0 = the logged score)
   judge_verdicts   one row per judge call that produced a score
   headlines        each eval's headline metric per eval × route × arm × policy,
                    with a seeded bootstrap interval over samples
   p0_check         the P0 headline recomputed per log against the stored metric

Logs that match no profile keep their replies and classes and are listed.
No model is called: judge verdicts are reused from the logs, and a reply a
policy would send to a judge the run never called is counted (needs_judge)
until a Part B log (empties select partb, empties rerun) gives its verdict.

Examples:
   empties rescore --data data/study --manifest data/study.yaml
   empties check --data data/study
   empties sql "SELECT * FROM headlines WHERE eval = 'xstest_safe'" --data data/study`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "data", Aliases: []string{"d"}, Usage: "dataset `DIR` written by ingest", Required: true},
		}, cliutil.ManifestFlags(true)...),
		Action: func(ctx context.Context, c *cli.Command) error {
			return Run(ctx, Options{Data: c.String("data"), Manifest: c.String(cliutil.ManifestFlag), AllowPreregMismatch: c.Bool(cliutil.AllowPreregMismatchFlag)}, c.Root().Writer)
		},
	}
}

type sampleKey struct {
	LogID, SampleID string
	Epoch           int64
}

// Run re-scores the dataset.
func Run(ctx context.Context, opts Options, w io.Writer) error {
	if err := store.CheckReadable("rescore", opts.Data); err != nil {
		return err
	}
	if !store.HasTable(opts.Data, "replies") {
		return cliutil.Usagef("rescore: %s has no replies table; run `empties ingest LOGS --out %s` first", opts.Data, opts.Data)
	}
	m, err := manifest.Load(opts.Manifest, manifest.Options{AllowPreregMismatch: opts.AllowPreregMismatch})
	if err != nil {
		return err
	}
	ds, err := store.Create(store.Stage{Name: schema.StageRescore, Views: duck.ViewFile}, opts.Data)
	if err != nil {
		return err
	}
	defer ds.Close()

	assigned, unmatched, err := assignLogs(ds, m)
	if err != nil {
		return err
	}
	logged := map[sampleKey]*schema.Score{}
	err = store.Scan(opts.Data, "scores", func(s *schema.Score) error {
		a, ok := assigned[s.LogID]
		if ok && s.Scorer == m.Profiles[a.Eval].Score.Key {
			c := *s
			logged[sampleKey{s.LogID, s.SampleID, s.Epoch}] = &c
		}
		return nil
	})
	if err != nil {
		return err
	}
	judges, err := judgeCalls(opts.Data, m, assigned)
	if err != nil {
		return err
	}
	partB, evalIDs, err := partBVerdicts(opts.Data, assigned, logged)
	if err != nil {
		return err
	}

	ps, err := store.WriterOf(ds, schema.PolicyScores)
	if err != nil {
		return err
	}
	replies := map[sampleKey]*schema.Reply{}
	counts := map[string]int{}
	// One pass over replies (read only: replies belong to ingest): each
	// placed in the study gets its policy rows.
	err = store.Scan(opts.Data, "replies", func(r *schema.Reply) error {
		a, ok := assigned[r.LogID]
		if !ok {
			return nil
		}
		p := m.Profiles[a.Eval]
		k := sampleKey{r.LogID, r.SampleID, r.Epoch}
		f := replyFacts{Reply: r, Logged: logged[k], JudgeCalls: judges.count(k, p)}
		if a.Part == "A" {
			f.PartB = partB[partBKey{evalIDs[r.LogID], r.SampleID, r.Epoch}]
		}
		if p.Judge.Where == "solver" && r.MUTCalls > 1 {
			f.JudgeCalls = r.MUTCalls - 1
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
		return err
	}
	if err := ps.Keep(ds); err != nil {
		return err
	}
	if err := writeVerdicts(ds, m, assigned, judges, replies, logged); err != nil {
		return err
	}
	for _, mg := range []func() error{
		func() error { return store.MergeTable(ds, schema.LogAssignments) },
		func() error { return store.MergeTable(ds, schema.PolicyScores) },
		func() error { return store.MergeTable(ds, schema.JudgeVerdicts) },
	} {
		if err := mg(); err != nil {
			return err
		}
	}
	// The headlines read the policy rows, assignments and verdicts merged
	// above, before anything is committed: every table rescore writes goes
	// into the dataset in the one Commit below.
	d, err := computeHeadlines(ctx, opts.Data, ds.Merged(), m)
	if err != nil {
		return err
	}
	var planned []schema.PlannedRerun
	if store.HasTable(opts.Data, "planned_reruns") {
		if err := store.Scan(opts.Data, "planned_reruns", func(p *schema.PlannedRerun) error { planned = append(planned, *p); return nil }); err != nil {
			return err
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
			return err
		}
	}
	if err := ds.Commit(); err != nil {
		return err
	}
	printSummary(w, counts, unmatched, d.heads, d.checks)
	printPairing(w, reruns, d.tests)
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
			row.Eval = e
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

func printPairing(w io.Writer, reruns []schema.Rerun, tests []schema.JudgeTest) {
	status := map[string]int{}
	for _, r := range reruns {
		status[r.Status]++
	}
	if len(reruns) > 0 {
		fmt.Fprintf(w, "re-runs: %d paired, %d without an original, %d planned but not re-run\n", status["paired"], status["no_original"], status["not_rerun"])
		for _, r := range reruns {
			if r.Status != "paired" {
				fmt.Fprintf(w, "  %s: %s %s %s sample %s epoch %d\n", r.Status, r.Arm, r.Eval, r.Route, r.SampleID, r.Epoch)
			}
		}
	}
	if len(tests) > 0 {
		fmt.Fprintf(w, "judge tests (Part C): %d verdicts\n", len(tests))
	}
}

func printSummary(w io.Writer, counts map[string]int, unmatched []string, heads []schema.Headline, checks []schema.P0Check) {
	total := 0
	for _, n := range counts {
		total += n
	}
	fmt.Fprintf(w, "re-scored %d replies of %d evals under %d policies\n", total, len(counts), len(vocab.Policies))
	if len(unmatched) > 0 {
		fmt.Fprintf(w, "%d logs match no eval profile (replies and classes kept; not re-scored):\n", len(unmatched))
		for _, p := range unmatched {
			fmt.Fprintf(w, "  %s\n", p)
		}
	}
	status := map[string]int{}
	for _, c := range checks {
		status[c.Status]++
	}
	bad := status["mismatch"]
	fmt.Fprintf(w, "headlines: %d rows; P0 check: %d of %d logs reproduce the stored metric", len(heads), status["ok"], len(checks))
	if bad > 0 {
		fmt.Fprintf(w, " (run `empties check` for the mismatches)")
	}
	fmt.Fprintln(w)
}
