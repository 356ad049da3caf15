package study

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"

	"empties/internal/classify"
	"empties/internal/manifest"
	"empties/internal/measures"
	"empties/internal/store"
	"empties/internal/vocab"
	"empties/schema"
)

// studyTables writes the tables that describe the study itself (routes,
// evals, primary cells) from the manifest.
func studyTables(ds *store.Dataset, m *manifest.Manifest) error {
	var routes []schema.StudyRoute
	for _, r := range m.Routes {
		routes = append(routes, schema.StudyRoute{Route: r.Name, Model: r.Model, Provider: r.Provider, Adapter: r.Adapter,
			Reasoning: r.Reasoning, PriceInput: r.Prices.Input, PriceOutput: r.Prices.Output,
			PriceReasoning: r.Prices.Reasoning, PriceCacheRead: r.Prices.CacheRead})
	}
	var evals []schema.StudyEval
	for _, name := range m.EvalNames {
		p := m.Profiles[name]
		evals = append(evals, schema.StudyEval{Eval: name, Title: p.Title, Kind: p.Kind, Metric: p.Headline.Metric,
			Scale: p.Headline.Scale, HigherIsBetter: p.Headline.HigherIsBetter, JudgeWhere: p.Judge.Where,
			JudgeGuarded: p.Judge.Guarded, Profile: p.File})
	}
	var cells []schema.PrimaryCell
	seen := map[[2]string]bool{}
	for _, c := range m.PrimaryCells {
		for _, want := range c.Routes {
			for _, r := range m.Routes {
				if want == "all" || want == r.Name || want == "reasoning" && r.Reasoning {
					k := [2]string{c.Eval, r.Name}
					if !seen[k] {
						seen[k] = true
						cells = append(cells, schema.PrimaryCell{Eval: c.Eval, Route: r.Name})
					}
				}
			}
		}
	}
	sort.Slice(cells, func(i, j int) bool {
		return cells[i].Eval+"\x00"+cells[i].Route < cells[j].Eval+"\x00"+cells[j].Route
	})
	if err := store.WriteTable(ds, schema.StudyRoutes, routes); err != nil {
		return err
	}
	if err := store.WriteTable(ds, schema.StudyEvals, evals); err != nil {
		return err
	}
	return store.WriteTable(ds, schema.PrimaryCells, cells)
}

// replyOutcomes evaluates, per re-scored reply, whether the eval's own
// scorer counted it as a refusal (the profile's refused predicate over the
// logged score: sql/queries/reply_outcomes.sql) and its D2 refusal form.
func replyOutcomes(ctx context.Context, db *sql.DB, queries *measures.Queries, m *manifest.Manifest) ([]schema.ReplyOutcome, error) {
	var out []schema.ReplyOutcome
	for _, name := range m.EvalNames {
		p := m.Profiles[name]
		holes := map[string]string{"components": strings.Join(componentColumns(p), ", "), "refused": predicate(p.Refused)}
		rows, err := queries.Rows(ctx, db, "reply_outcomes", holes, sql.Named("eval", name))
		if err != nil {
			return nil, fmt.Errorf("eval %s (%s): refused: %w", name, p.File, err)
		}
		for rows.Next() {
			var o schema.ReplyOutcome
			var ref sql.NullBool
			if err := rows.Scan(&o.LogID, &o.Eval, &o.Route, &o.Arm, &o.Part, &o.SampleID, &o.Epoch, &o.Class, &o.NonAnswer, &ref); err != nil {
				rows.Close()
				return nil, err
			}
			if ref.Valid {
				b := ref.Bool
				o.Refused = &b
			}
			o.Form = form(o.Class, o.Refused)
			o.PairKey = PairKey(o.Eval, o.Route, o.SampleID, o.Epoch)
			out = append(out, o)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// predicate is a profile's SQL predicate in parentheses, NULL when it has
// none.
func predicate(sql string) string {
	if sql == "" {
		return "NULL"
	}
	return "(" + sql + ")"
}

// form is a reply's refusal form for D2 (design.md): its class when a
// provider signalled the refusal, vocab.FormText for an answer the eval's
// scorer counts as a refusal, else vocab.FormNone.
func form(class string, refused *bool) string {
	if classify.IsProviderRefusal(class) {
		return class
	}
	if refused != nil && *refused && (class == classify.Answer || class == classify.TruncatedText) {
		return vocab.FormText
	}
	return vocab.FormNone
}

// PairKey pairs a re-run with the reply it re-runs: eval, route, sample id
// and epoch.
func PairKey(eval, route, sampleID string, epoch int64) string {
	return fmt.Sprintf("%s/%s/%s/%d", eval, route, sampleID, epoch)
}

// pairReruns pairs every wide and control re-run with its default-arm
// original, and reports re-runs without an original and planned re-runs
// that never ran.
func pairReruns(outcomes []schema.ReplyOutcome, planned []schema.PlannedRerun) []schema.Rerun {
	orig := map[string]*schema.ReplyOutcome{}
	for i := range outcomes {
		o := &outcomes[i]
		if o.Arm == vocab.ArmDefault && o.Part == vocab.PartA {
			if _, dup := orig[o.PairKey]; !dup {
				orig[o.PairKey] = o
			}
		}
	}
	seen := map[string]bool{}
	var out []schema.Rerun
	for i := range outcomes {
		o := &outcomes[i]
		if o.Arm != vocab.ArmWide && o.Arm != vocab.ArmControl {
			continue
		}
		seen[o.Arm+"|"+o.PairKey] = true
		r := schema.Rerun{Eval: o.Eval, Route: o.Route, Arm: o.Arm, SampleID: o.SampleID, Epoch: o.Epoch,
			RerunLogID: ptr(o.LogID), RerunClass: ptr(o.Class), RerunRefused: o.Refused, Status: vocab.RerunNoOriginal}
		if og, ok := orig[o.PairKey]; ok {
			r.Status, r.OrigLogID, r.OrigClass = vocab.RerunPaired, ptr(og.LogID), ptr(og.Class)
		}
		out = append(out, r)
	}
	for _, p := range planned {
		if seen[p.Arm+"|"+PairKey(p.Eval, p.Route, p.SampleID, p.Epoch)] {
			continue
		}
		r := schema.Rerun{Eval: p.Eval, Route: p.Route, Arm: p.Arm, SampleID: p.SampleID, Epoch: p.Epoch, Status: vocab.RerunNotRerun}
		if og, ok := orig[PairKey(p.Eval, p.Route, p.SampleID, p.Epoch)]; ok {
			r.OrigLogID, r.OrigClass = ptr(og.LogID), ptr(og.Class)
		}
		out = append(out, r)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Eval+a.Route+a.Arm != b.Eval+b.Route+b.Arm {
			return a.Eval+"\x00"+a.Route+"\x00"+a.Arm < b.Eval+"\x00"+b.Route+"\x00"+b.Arm
		}
		if a.SampleID != b.SampleID {
			return a.SampleID < b.SampleID
		}
		return a.Epoch < b.Epoch
	})
	return out
}

// judgeTests reads Part C replay logs: each sample substitutes one
// non-answer form (sample metadata empties_form) for the response, and the
// eval's judge grades it; the profile's judge.pass predicate says whether
// the verdict passes the non-answer (seed section 5). A repeat is the
// sample's empties_repeat (empties rerun makes one sample per repeat), else
// its epoch (sql/queries/judge_tests.sql).
func judgeTests(ctx context.Context, db *sql.DB, queries *measures.Queries, m *manifest.Manifest) ([]schema.JudgeTest, error) {
	var out []schema.JudgeTest
	for _, name := range m.EvalNames {
		p := m.Profiles[name]
		holes := map[string]string{"components": strings.Join(componentColumns(p), ", "), "pass": predicate(p.Judge.Pass)}
		rows, err := queries.Rows(ctx, db, "judge_tests", holes, sql.Named("eval", name), sql.Named("judge_where", p.Judge.Where))
		if err != nil {
			return nil, fmt.Errorf("eval %s (%s): judge.pass: %w", name, p.File, err)
		}
		for rows.Next() {
			t := schema.JudgeTest{Eval: name}
			var temp, vf sql.NullFloat64
			var passed sql.NullBool
			if err := rows.Scan(&t.LogID, &t.JudgeModel, &temp, &t.Form, &t.SampleID, &t.Repeat, &t.VerdictJSON, &vf, &passed, &t.JudgeClass); err != nil {
				rows.Close()
				return nil, err
			}
			t.Temperature, t.VerdictFloat = nullable(temp), nullable(vf)
			if passed.Valid {
				b := passed.Bool
				t.Passed = &b
			}
			out = append(out, t)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func ptr(s string) *string { return &s }
