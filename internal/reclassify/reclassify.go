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
	Changed int64            // replies whose class_rule changed
	Counts  map[string]int64 // replies per class, after
	Dropped []string         // the tables computed from the old classes, removed
}

// Dataset applies the rules to the replies and model_calls tables of the
// dataset at data in place, from the raw fields ingest stored, as one new
// generation: every reply's class (classify.Apply), and the judge class of
// each call ingest found a judge's (classify.JudgeCallClass; no other call
// has one, as ingest writes them). When a reply changed rule, every table
// computed from the old classes is removed with it
// (schema.KeptWhenRepliesChange are kept).
func Dataset(ctx context.Context, data string) (*Result, error) {
	ds, err := store.Create(store.Stage{Name: schema.StageClassify, Views: duck.ViewFile}, data)
	if err != nil {
		return nil, err
	}
	defer ds.Close()
	res := &Result{Counts: map[string]int64{}}
	err = store.RewriteTable(ds, schema.Replies, func(r *schema.Reply) error {
		before := r.ClassRule
		classify.Apply(r)
		res.Counts[r.Class]++
		if r.ClassRule != before {
			res.Changed++
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if store.HasTable(data, "model_calls") {
		err = store.RewriteTable(ds, schema.ModelCalls, func(c *schema.ModelCall) error {
			c.JudgeClass = nil
			if c.Kind == vocab.KindJudge {
				jc := classify.JudgeCallClass(c)
				c.JudgeClass = &jc
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if res.Changed > 0 {
		res.Dropped = store.TablesExcept(data, schema.KeptWhenRepliesChange()...)
		if err := ds.Drop(res.Dropped...); err != nil {
			return nil, err
		}
	}
	return res, ds.Commit()
}
