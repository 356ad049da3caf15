// Package reclassify applies the classifier (internal/classify) again to
// an ingested dataset: the classify command's job.
package reclassify

import (
	"context"

	"empties/internal/classify"
	"empties/internal/duck"
	"empties/internal/store"
	"empties/internal/vocab"
	"empties/schema"
)

// Result is what Dataset did to a dataset.
type Result struct {
	Changed int64 // replies whose class_rule or final_class_rule changed
	// Turns is how many generations of the model under test changed
	// class_rule (model_calls.class_rule).
	Turns   int64
	Counts  map[string]int64 // replies per class, after
	Dropped []string         // the tables computed from the old classes, removed
}

// sampleKey names a sample × epoch of a log.
type sampleKey struct {
	log, id string
	epoch   int64
}

// turns is what the replies row of a sample takes from its generations.
type turns struct {
	n, nonAnswer int64
	last         int64 // call_index of the last generation
	// The last generation's class as the final reply's (with the sample's
	// error), kept rather than its text.
	class, rule string
	na          bool
}

// Dataset applies the rules to the replies and model_calls tables of the
// dataset at data in place, from the raw fields ingest stored, as one new
// generation: every reply's class (classify.Apply), the class of every
// generation of the model under test (classify.ApplyCall) and, from the
// last of them, the reply's final class, as ingest gives them; and the
// judge class of each call ingest found a judge's (classify.JudgeCallClass;
// no other call has one, as ingest writes them). When a class changed rule,
// every table computed from the old classes is removed with it
// (schema.KeptWhenRepliesChange are kept).
func Dataset(ctx context.Context, data string) (*Result, error) {
	ds, err := store.Create(store.Stage{Name: schema.StageClassify, Views: duck.ViewFile}, data)
	if err != nil {
		return nil, err
	}
	defer ds.Close()
	res := &Result{Counts: map[string]int64{}}
	// The final reply reads the sample's error, which only replies holds.
	raised := map[sampleKey]*string{}
	files, err := ds.CurrentFiles(schema.Replies.Name)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		if err := store.ReadFile(f, func(rows []schema.Reply) error {
			for i := range rows {
				if e := rows[i].SampleError; e != nil {
					raised[sampleKey{rows[i].LogID, rows[i].SampleID, rows[i].Epoch}] = e
				}
			}
			return nil
		}); err != nil {
			return nil, err
		}
	}
	gens := map[sampleKey]*turns{}
	if store.HasTable(data, "model_calls") {
		err = store.RewriteTable(ds, schema.ModelCalls, func(c *schema.ModelCall) error {
			c.JudgeClass = nil
			if c.Kind == vocab.KindJudge {
				jc := classify.JudgeCallClass(c)
				c.JudgeClass = &jc
			}
			before := c.ClassRule
			c.Class, c.ClassRule, c.NonAnswer = nil, nil, nil
			if vocab.IsGeneration(c.Kind, c.CallStatus) {
				classify.ApplyCall(c)
				k := sampleKey{c.LogID, c.SampleID, c.Epoch}
				g := gens[k]
				if g == nil {
					g = &turns{last: -1}
					gens[k] = g
				}
				g.n++
				if *c.NonAnswer {
					g.nonAnswer++
				}
				if c.CallIndex > g.last {
					g.last = c.CallIndex
					g.class, g.rule, g.na = classify.AsReply(c, raised[k])
				}
			}
			if (before == nil) != (c.ClassRule == nil) || (before != nil && *before != *c.ClassRule) {
				res.Turns++
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	err = store.RewriteTable(ds, schema.Replies, func(r *schema.Reply) error {
		before, beforeFinal := r.ClassRule, r.FinalClassRule
		classify.Apply(r)
		r.FinalCallIndex, r.FinalClass, r.FinalClassRule, r.FinalNonAnswer = nil, r.Class, r.ClassRule, r.NonAnswer
		r.Generations, r.NonAnswerGenerations = 0, 0
		if g := gens[sampleKey{r.LogID, r.SampleID, r.Epoch}]; g != nil {
			last := g.last
			r.FinalCallIndex, r.FinalClass, r.FinalClassRule, r.FinalNonAnswer = &last, g.class, g.rule, g.na
			r.Generations, r.NonAnswerGenerations = g.n, g.nonAnswer
		}
		res.Counts[r.Class]++
		if r.ClassRule != before || r.FinalClassRule != beforeFinal {
			res.Changed++
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if res.Changed > 0 || res.Turns > 0 {
		res.Dropped = store.TablesExcept(data, schema.KeptWhenRepliesChange()...)
		if err := ds.Drop(res.Dropped...); err != nil {
			return nil, err
		}
	}
	return res, ds.Commit()
}
