package study

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"

	json "github.com/goccy/go-json"

	"empties/internal/bootstrap"
	"empties/internal/duck"
	"empties/internal/evallog"
	"empties/internal/manifest"
	"empties/internal/measures"
	"empties/internal/vocab"
	"empties/schema"
)

// profileHoles fills the holes of headline_cells and p0_recomputed with an
// eval profile's SQL: each component evaluated on a score row, its mean
// over a sample's epochs, the scored_when predicate and the headline formula.
// The mean is exact_avg (sql/macros/rates.sql): a sum in decimal, the same
// whatever order DuckDB's threads add the epochs in.
func profileHoles(p *manifest.Profile) map[string]string {
	var avgs []string
	for _, c := range p.ComponentNames() {
		avgs = append(avgs, fmt.Sprintf("exact_avg(%s) AS %s", duck.Ident(c), duck.Ident(c)))
	}
	return map[string]string{
		"components":  strings.Join(componentColumns(p), ", "),
		"averages":    strings.Join(avgs, ", "),
		"scored_when": p.ScoredWhen(),
		"formula":     p.Headline.Formula,
	}
}

// componentColumns evaluates a profile's components on one score row: NULL
// when the row is unscored or the component is NaN.
func componentColumns(p *manifest.Profile) []string {
	var out []string
	for _, c := range p.ComponentNames() {
		out = append(out, fmt.Sprintf("CASE WHEN unscored THEN NULL ELSE nan_null(TRY_CAST((%s) AS DOUBLE)) END AS %s", p.Score.Components[c], duck.Ident(c)))
	}
	return out
}

// derived are the tables computed in SQL from the committed policy scores.
type derived struct {
	heads    []schema.Headline
	checks   []schema.P0Check
	outcomes []schema.ReplyOutcome
	tests    []schema.JudgeTest
}

// computeHeadlines recomputes every eval's headline per eval × route × arm ×
// policy with bootstrap intervals, and per log for the P0 check; then each
// reply's outcome and the Part C judge tests.
//
// dir is the dataset; merged holds the tables this run has merged and not
// yet committed (policy_scores, log_assignments, judge_verdicts), which
// replace the dataset's.
func computeHeadlines(ctx context.Context, dir, merged string, m *manifest.Manifest) (*derived, error) {
	db, queries, err := openQueries(ctx, m, dir, merged)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	level := *m.Thresholds.Interval
	d := &derived{}
	for _, name := range m.EvalNames {
		p := m.Profiles[name]
		if err := fillBoot(ctx, db, queries, m, name); err != nil {
			return nil, err
		}
		h, err := evalHeadlines(ctx, db, queries, m, p, level)
		if err != nil {
			return nil, fmt.Errorf("eval %s (%s): %w", name, p.File, err)
		}
		d.heads = append(d.heads, h...)
		c, err := p0Checks(ctx, db, queries, p)
		if err != nil {
			return nil, fmt.Errorf("eval %s (%s): %w", name, p.File, err)
		}
		d.checks = append(d.checks, c...)
	}
	if d.outcomes, err = replyOutcomes(ctx, db, queries, m); err != nil {
		return nil, err
	}
	if d.tests, err = judgeTests(ctx, db, queries, m); err != nil {
		return nil, err
	}
	return d, nil
}

// openQueries opens an in-memory DuckDB of one connection with the reader
// views of each folder of tables in dirs (a later folder's tables replace an
// earlier's), the query files loaded and their macros created. The caller
// closes the database.
func openQueries(ctx context.Context, m *manifest.Manifest, dirs ...string) (*sql.DB, *measures.Queries, error) {
	db, err := duck.Open("")
	if err != nil {
		return nil, nil, err
	}
	db.SetMaxOpenConns(1) // one in-memory database, one connection
	queries, err := func() (*measures.Queries, error) {
		for _, dir := range dirs {
			if _, err := duck.CreateViews(ctx, db, dir, duck.ReaderViews); err != nil {
				return nil, err
			}
		}
		queries, err := measures.LoadQueries()
		if err != nil {
			return nil, err
		}
		return queries, queries.Prepare(ctx, db, measures.ParamsFrom(m))
	}()
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	return db, queries, nil
}

// fillBoot draws the bootstrap resamples of every cell of an eval: for each
// eval × route × arm, R resamples of its samples with replacement, from a
// PCG stream seeded by the manifest seed and the cell. Every policy of a cell
// uses the same draws, so policy differences are paired.
func fillBoot(ctx context.Context, db *sql.DB, queries *measures.Queries, m *manifest.Manifest, eval string) error {
	if _, err := db.ExecContext(ctx, "CREATE OR REPLACE TABLE headline_boot (route VARCHAR, arm VARCHAR, resample INTEGER, sample_id VARCHAR)"); err != nil {
		return err
	}
	rows, err := queries.Rows(ctx, db, "headline_boot_samples", nil, sql.Named("eval", eval))
	if err != nil {
		return err
	}
	cells := map[[2]string][]string{}
	var order [][2]string
	for rows.Next() {
		var route, arm, id string
		if err := rows.Scan(&route, &arm, &id); err != nil {
			rows.Close()
			return err
		}
		k := [2]string{route, arm}
		if _, ok := cells[k]; !ok {
			order = append(order, k)
		}
		cells[k] = append(cells[k], id)
	}
	rows.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return duck.Append(conn, "headline_boot", func(add func(...driver.Value) error) (err error) {
		for _, k := range order {
			ids := cells[k]
			bootstrap.ForEachResample(m.Bootstrap.Seed, m.Bootstrap.Resamples, len(ids), []string{eval, k[0], k[1]}, func(r int, idx []int) {
				for _, i := range idx {
					if err == nil {
						err = add(k[0], k[1], int32(r), ids[i])
					}
				}
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
}

func evalHeadlines(ctx context.Context, db *sql.DB, queries *measures.Queries, m *manifest.Manifest, p *manifest.Profile, level float64) ([]schema.Headline, error) {
	rows, err := queries.Rows(ctx, db, "headline_cells", profileHoles(p), sql.Named("eval", p.Name))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []schema.Headline
	for rows.Next() {
		var h schema.Headline
		var value, lo, hi, delta, dlo, dhi sql.NullFloat64
		if err := rows.Scan(&h.Route, &h.Arm, &h.Policy, &h.Samples, &h.Scored, &value, &lo, &hi, &h.NeedsJudge, &delta, &dlo, &dhi); err != nil {
			return nil, err
		}
		h.Eval, h.Metric, h.Level = p.Name, p.Headline.Metric, level
		h.Unscored = h.Samples - h.Scored
		h.Scale, h.HigherIsBetter = p.Headline.Scale, p.Headline.HigherIsBetter
		h.Resamples, h.Seed = int64(m.Bootstrap.Resamples), int64(m.Bootstrap.Seed)
		h.Value = nullable(value)
		if h.Value == nil && p.Headline.EmptyValue != nil {
			v := *p.Headline.EmptyValue
			h.Value = &v
		}
		h.Low, h.High = nullable(lo), nullable(hi)
		h.DeltaP0, h.DeltaLow, h.DeltaHigh = nullable(delta), nullable(dlo), nullable(dhi)
		if h.Low != nil && h.High != nil {
			hw := (*h.High - *h.Low) / 2
			h.HalfWidth = &hw
		}
		out = append(out, h)
	}
	return out, rows.Err()
}

func nullable(v sql.NullFloat64) *float64 {
	if !v.Valid || math.IsNaN(v.Float64) {
		return nil
	}
	f := v.Float64
	return &f
}

// p0Checks recomputes P0 per log and compares it with the stored metric.
func p0Checks(ctx context.Context, db *sql.DB, queries *measures.Queries, p *manifest.Profile) ([]schema.P0Check, error) {
	rows, err := queries.Rows(ctx, db, "p0_recomputed", profileHoles(p), sql.Named("eval", p.Name))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []schema.P0Check
	for rows.Next() {
		var c schema.P0Check
		var results sql.NullString
		var value sql.NullFloat64
		if err := rows.Scan(&c.LogID, &c.Path, &results, &value); err != nil {
			return nil, err
		}
		c.Eval = p.Name
		c.Recomputed = nullable(value)
		if c.Recomputed == nil && p.Headline.EmptyValue != nil {
			v := *p.Headline.EmptyValue
			c.Recomputed = &v
		}
		stored, key, err := storedMetric(results.String, p.Headline.Results)
		c.Metric = key
		switch {
		case results.String == "":
			c.Status, c.OK, c.Detail = vocab.P0Unchecked, true, "the log stores no results (a running or killed run): nothing to compare"
		case err != nil:
			c.Status, c.Detail = vocab.P0Mismatch, err.Error()
		default:
			c.Stored = stored
			c.OK, c.Detail = same(c.Stored, c.Recomputed)
			c.Status = map[bool]string{true: vocab.P0OK, false: vocab.P0Mismatch}[c.OK]
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// storedMetric finds the profile's metric in a log's results JSON.
func storedMetric(results string, loc manifest.ResultsLocation) (*float64, string, error) {
	if results == "" {
		return nil, "", fmt.Errorf("the log stores no results (unfinished or unscored run)")
	}
	var r struct {
		Scores []struct {
			Name    string `json:"name"`
			Metrics map[string]struct {
				Value evallog.Float `json:"value"`
			} `json:"metrics"`
		} `json:"scores"`
	}
	clean, _ := evallog.SanitizeNonFinite([]byte(results))
	if err := json.Unmarshal(clean, &r); err != nil {
		return nil, "", fmt.Errorf("results: %v", err)
	}
	var names []string
	for _, s := range r.Scores {
		names = append(names, s.Name)
		if s.Name != loc.Score {
			continue
		}
		keys := make([]string, 0, len(s.Metrics))
		for k := range s.Metrics {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			match := k == loc.Metric
			if loc.MetricRegex != "" {
				match, _ = regexp.MatchString(loc.MetricRegex, k)
			}
			if match {
				v := s.Metrics[k].Value
				if !v.Valid {
					return nil, k, nil
				}
				f := v.V
				return &f, k, nil
			}
		}
		return nil, "", fmt.Errorf("results score %q has no metric %s%s (metrics: %s)", loc.Score, loc.Metric, loc.MetricRegex, strings.Join(keys, ", "))
	}
	return nil, "", fmt.Errorf("results hold no score named %q (scores: %s)", loc.Score, strings.Join(names, ", "))
}

// same compares stored and recomputed metrics to float precision.
func same(stored, recomputed *float64) (bool, string) {
	isNaN := func(p *float64) bool { return p == nil || math.IsNaN(*p) }
	switch {
	case isNaN(stored) && isNaN(recomputed):
		return true, ""
	case isNaN(stored) || isNaN(recomputed):
		return false, "one side is NaN or missing"
	}
	d := math.Abs(*stored - *recomputed)
	if d <= 1e-9*math.Max(1, math.Abs(*stored)) {
		return true, ""
	}
	return false, fmt.Sprintf("differs by %.3g", d)
}
