package measures

import (
	"context"
	"database/sql/driver"
	"fmt"
	"runtime"

	"golang.org/x/sync/errgroup"

	"empties/internal/bootstrap"
	"empties/internal/classify"
	"empties/internal/duck"
)

// builder builds a step in Go. skip is true when the step's inputs are
// missing: it must still create its table, empty.
type builder func(ctx context.Context, r *runner, skip bool) error

// builtins are the steps built in Go rather than SQL: lists that have one
// home elsewhere (the classifier's classes, the manifest's routes), and the
// bootstrap draws, which need a seeded PCG stream.
var builtins = []struct {
	Header
	build builder
}{
	{Header{Output: "reply_classes", Kind: KindTable,
		Grain:   "one row per reply class, in the seed's first-match order (is_reply: false for error and no_choices, which are no reply at all)",
		Measure: "Reply classes (pre-registration §3 \"Reply classes\"), from internal/classify.Rules"},
		buildReplyClasses},
	{Header{Output: "route_models", Kind: KindTable,
		Grain:   "one row per route × log model string",
		Measure: "Cost (design.md ruling): the manifest's routes[].models, which price a judge call whose model a route serves"},
		buildRouteModels},
	{Header{Output: "boot_tight_default", Kind: KindTable,
		Grain:   "one row per eval × route × measure × bootstrap resample",
		Measure: "default versus tight with bootstrap intervals over samples (pre-registration §6): the mean paired delta of each resample of whole samples",
		Needs:   []string{"tight_vs_default_samples"}},
		buildBootTightDefault},
}

func buildReplyClasses(ctx context.Context, r *runner, _ bool) error {
	if _, err := r.conn.ExecContext(ctx, "CREATE OR REPLACE TABLE reply_classes (class VARCHAR, ordinal INTEGER, is_reply BOOLEAN)"); err != nil {
		return err
	}
	for i, c := range classify.Classes() {
		if _, err := r.conn.ExecContext(ctx, "INSERT INTO reply_classes VALUES (?, ?, ?)", c, i+1, classify.IsReply(c)); err != nil {
			return err
		}
	}
	return nil
}

func buildRouteModels(ctx context.Context, r *runner, _ bool) error {
	if _, err := r.conn.ExecContext(ctx, "CREATE OR REPLACE TABLE route_models (route VARCHAR, model VARCHAR, ordinal INTEGER)"); err != nil {
		return err
	}
	for i, rm := range r.params.RouteModels {
		if _, err := r.conn.ExecContext(ctx, "INSERT INTO route_models VALUES (?, ?, ?)", rm.Route, rm.Model, i+1); err != nil {
			return err
		}
	}
	return nil
}

// bootCell is one eval × route of tight_vs_default_samples: the paired
// samples in sample_id order and each measure's per-sample delta.
type bootCell struct {
	eval, route string
	samples     []string
	measures    []string
	deltas      map[string][]float64 // measure → delta per sample
}

// buildBootTightDefault draws, for each eval × route with paired samples,
// the manifest's number of resamples of its samples with replacement, from
// a PCG stream seeded by the manifest seed and the cell, and stores each
// resample's mean delta per measure. Both measures of a cell use the same
// draws. The mean is taken here rather than in SQL so the draws never have to
// be materialised (resamples × samples rows), which is what keeps a
// million-reply run fast; tight_vs_default reads the resample means.
func buildBootTightDefault(ctx context.Context, r *runner, skip bool) error {
	if _, err := r.conn.ExecContext(ctx, "CREATE OR REPLACE TABLE boot_tight_default (eval VARCHAR, route VARCHAR, measure VARCHAR, resample INTEGER, delta DOUBLE)"); err != nil {
		return err
	}
	if skip {
		return nil
	}
	cells, err := readBootCells(ctx, r)
	if err != nil {
		return err
	}
	// Each cell has its own stream, so cells can be drawn in parallel and
	// the result does not depend on the scheduling.
	means := make([]map[string][]float64, len(cells))
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, c := range cells {
		g.Go(func() error {
			means[i] = resampleMeans(r.params.Seed, r.params.Resamples, c)
			return ctx.Err()
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return duck.Append(r.conn, "boot_tight_default", func(add func(...driver.Value) error) error {
		for ci, c := range cells {
			for _, m := range c.measures {
				for i, v := range means[ci][m] {
					if err := add(c.eval, c.route, m, int32(i), v); err != nil {
						return err
					}
				}
			}
		}
		return nil
	})
}

func readBootCells(ctx context.Context, r *runner) ([]*bootCell, error) {
	rows, err := r.conn.QueryContext(ctx, `SELECT eval, route, measure, sample_id, delta
		FROM tight_vs_default_samples ORDER BY eval, route, sample_id, measure`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var cells []*bootCell
	var c *bootCell
	for rows.Next() {
		var eval, route, measure, id string
		var delta float64
		if err := rows.Scan(&eval, &route, &measure, &id, &delta); err != nil {
			return nil, err
		}
		if c == nil || c.eval != eval || c.route != route {
			c = &bootCell{eval: eval, route: route, deltas: map[string][]float64{}}
			cells = append(cells, c)
		}
		if n := len(c.samples); n == 0 || c.samples[n-1] != id {
			c.samples = append(c.samples, id)
		}
		if _, ok := c.deltas[measure]; !ok {
			c.measures = append(c.measures, measure)
		}
		c.deltas[measure] = append(c.deltas[measure], delta)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for _, c := range cells {
		for _, m := range c.measures {
			if len(c.deltas[m]) != len(c.samples) {
				return nil, fmt.Errorf("tight_vs_default_samples: %s × %s: measure %s has %d samples, the cell %d", c.eval, c.route, m, len(c.deltas[m]), len(c.samples))
			}
		}
	}
	return cells, nil
}

// resampleMeans returns, per measure, the mean delta of each resample.
func resampleMeans(seed uint64, resamples int, c *bootCell) map[string][]float64 {
	n := len(c.samples)
	sums := make([][]float64, len(c.measures))
	for i := range sums {
		sums[i] = make([]float64, resamples)
	}
	vals := make([][]float64, len(c.measures))
	for i, m := range c.measures {
		vals[i] = c.deltas[m]
	}
	bootstrap.ForEachResample(seed, resamples, n, []string{"tight_vs_default", c.eval, c.route}, func(r int, idx []int) {
		for i, v := range vals {
			sum := 0.0
			for _, j := range idx {
				sum += v[j]
			}
			sums[i][r] = sum
		}
	})
	out := map[string][]float64{}
	for i, m := range c.measures {
		for r := range sums[i] {
			sums[i][r] /= float64(n)
		}
		out[m] = sums[i]
	}
	return out
}
