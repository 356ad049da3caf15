package measures

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"strings"
	"testing"

	"empties/internal/bootstrap"
	"empties/internal/testutil"
)

// python runs scripts/stats_check.py in the project's virtual environment
// (statsmodels, scipy and numpy pinned in requirements.txt) on req and
// decodes its answer into resp. A missing environment fails the test: these
// checks are part of what the tests prove.
func python(t *testing.T, req, resp any) {
	t.Helper()
	py := testutil.Path(t, ".venv", "bin", "python")
	if _, err := os.Stat(py); err != nil {
		t.Fatalf("the project's Python environment is missing (%s): run `make venv`, or `python3 -m venv .venv && .venv/bin/pip install -r requirements.txt`, from the repository root", py)
	}
	in, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, testutil.Path(t, "scripts", "stats_check.py"))
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("scripts/stats_check.py: %v\n%s(statsmodels and scipy missing? run .venv/bin/pip install -r requirements.txt)", err, stderr.String())
	}
	if err := json.Unmarshal(out, resp); err != nil {
		t.Fatalf("scripts/stats_check.py answered %s: %v", out, err)
	}
}

type wilsonCase struct {
	X     float64 `json:"x"`
	N     float64 `json:"n"`
	Level float64 `json:"level"`
}

type statsReply struct {
	Versions map[string]string `json:"versions"`
	Wilson   []struct {
		Low, High, Z float64
	} `json:"wilson"`
	Bootstrap []struct {
		Replicates []float64 `json:"replicates"`
		Low        float64   `json:"low"`
		High       float64   `json:"high"`
		ScipyLow   float64   `json:"scipy_low"`
		ScipyHigh  float64   `json:"scipy_high"`
	} `json:"bootstrap"`
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12 }

// The wilson_low / wilson_high macros equal statsmodels'
// proportion_confint(x, n, alpha, method="wilson"), fractional x included,
// at two interval levels; the z the stage derives from the level equals
// scipy's norm.isf.
func TestWilsonMatchesStatsmodels(t *testing.T) {
	var cases []wilsonCase
	for _, level := range []float64{0.95, 0.9} {
		for _, xn := range [][2]float64{
			{0, 1}, {1, 1}, {0, 3}, {3, 3}, {0.5, 1}, {1.5, 3}, {4.0 / 3, 2}, {2.5, 4}, {7, 450}, {22.5, 450},
			{0, 450}, {449.5, 450}, {1, 40}, {13.25, 150}, {199, 200}, {12345.5, 1000000},
		} {
			cases = append(cases, wilsonCase{X: xn[0], N: xn[1], Level: level})
		}
	}
	var ref statsReply
	python(t, map[string]any{"wilson": cases}, &ref)
	t.Logf("reference: %v", ref.Versions)
	if len(ref.Wilson) != len(cases) {
		t.Fatalf("%d answers for %d cases", len(ref.Wilson), len(cases))
	}
	s := loadSuite(t)
	ctx := context.Background()
	for _, level := range []float64{0.95, 0.9} {
		conn := testDB(t)
		p := testParams
		p.Level = level
		r, err := newRunner(ctx, conn, p, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.run(ctx, s.Closure("rates")); err != nil {
			t.Fatal(err)
		}
		for i, c := range cases {
			if c.Level != level {
				continue
			}
			if !near(p.Z(), ref.Wilson[i].Z) {
				t.Errorf("level %v: z %.17g, scipy %.17g", level, p.Z(), ref.Wilson[i].Z)
			}
			var lo, hi float64
			if err := conn.QueryRowContext(ctx, "SELECT wilson_low(?::DOUBLE, ?::BIGINT), wilson_high(?::DOUBLE, ?::BIGINT)", c.X, int64(c.N), c.X, int64(c.N)).Scan(&lo, &hi); err != nil {
				t.Fatal(err)
			}
			if !near(lo, ref.Wilson[i].Low) || !near(hi, ref.Wilson[i].High) {
				t.Errorf("x=%v n=%v level=%v: [%.17g, %.17g], statsmodels [%.17g, %.17g]", c.X, c.N, level, lo, hi, ref.Wilson[i].Low, ref.Wilson[i].High)
			}
		}
		var nLow, nHigh *float64
		if err := conn.QueryRowContext(ctx, "SELECT wilson_low(0, 0), wilson_high(0, 0)").Scan(&nLow, &nHigh); err != nil || nLow != nil || nHigh != nil {
			t.Errorf("n = 0 gives [%v, %v], %v; want NULLs", nLow, nHigh, err)
		}
	}
}

// pairedTight is 40 HLE samples on two routes in both arms, with classes that
// vary by sample, so the bootstrap has something to resample.
const pairedTight = `
INSERT INTO log_assignments (log_id, eval, route, arm, part) VALUES
  ('D1', 'hle', 'r1', 'default', 'A'), ('T1', 'hle', 'r1', 'tight', 'A'),
  ('D2', 'hle', 'r2', 'default', 'A'), ('T2', 'hle', 'r2', 'tight', 'A');
INSERT INTO replies (log_id, task, model, sample_id, epoch, class, non_answer)
  SELECT log_id, 'hle', 'm', 's' || lpad(i::VARCHAR, 2, '0'), 1, class, class <> 'answer'
  FROM range(40) r(i),
  LATERAL (VALUES
    ('D1', CASE WHEN i % 3 = 0 THEN 'truncated_empty' WHEN i % 5 = 0 THEN 'silent' ELSE 'answer' END),
    ('T1', CASE WHEN i % 2 = 0 THEN 'truncated_empty' WHEN i % 7 = 0 THEN 'silent' ELSE 'answer' END),
    ('D2', CASE WHEN i % 4 = 0 THEN 'truncated_empty' ELSE 'answer' END),
    ('T2', CASE WHEN i % 4 = 0 OR i % 9 = 0 THEN 'truncated_empty' WHEN i % 11 = 0 THEN 'reasoning_only' ELSE 'answer' END)
  ) v(log_id, class);
`

// The bootstrap's resample means and percentile interval equal numpy's
// (numpy.percentile, linear) and scipy's (scoreatpercentile) on the same
// resamples: the draws come from the stage's own seeded stream, passed to
// Python as indices.
func TestBootstrapMatchesNumpy(t *testing.T) {
	s := loadSuite(t)
	conn, _ := buildStep(t, s, "tight_vs_default", pairedTight, nil)
	ctx := context.Background()
	type cell struct{ route, measure string }
	var cells []cell
	var req []map[string]any
	for _, route := range []string{"r1", "r2"} {
		samples := queryColumn[string](t, conn, "SELECT DISTINCT sample_id FROM tight_vs_default_samples WHERE route = ? ORDER BY sample_id", route)
		if len(samples) != 40 {
			t.Fatalf("%s: %d paired samples", route, len(samples))
		}
		draws := make([][]int, testParams.Resamples)
		bootstrap.ForEachResample(testParams.Seed, testParams.Resamples, len(samples), []string{"tight_vs_default", "hle", route}, func(r int, idx []int) {
			draws[r] = append([]int{}, idx...)
		})
		for _, measure := range []string{"non_answer", "truncated_empty"} {
			values := queryColumn[float64](t, conn, "SELECT delta FROM tight_vs_default_samples WHERE route = ? AND measure = ? ORDER BY sample_id", route, measure)
			cells = append(cells, cell{route, measure})
			req = append(req, map[string]any{"values": values, "draws": draws, "level": testParams.Level})
		}
	}
	var ref statsReply
	python(t, map[string]any{"bootstrap": req}, &ref)
	for i, c := range cells {
		want := ref.Bootstrap[i]
		if !near(want.Low, want.ScipyLow) || !near(want.High, want.ScipyHigh) {
			t.Fatalf("%v: numpy [%v, %v] and scipy [%v, %v] disagree", c, want.Low, want.High, want.ScipyLow, want.ScipyHigh)
		}
		reps := queryColumn[float64](t, conn, "SELECT delta FROM boot_tight_default WHERE route = ? AND measure = ? ORDER BY resample", c.route, c.measure)
		if len(reps) != len(want.Replicates) {
			t.Fatalf("%v: %d resamples, numpy %d", c, len(reps), len(want.Replicates))
		}
		for j := range reps {
			if !near(reps[j], want.Replicates[j]) {
				t.Fatalf("%v: resample %d mean %.17g, numpy %.17g", c, j, reps[j], want.Replicates[j])
			}
		}
		var lo, hi float64
		if err := conn.QueryRowContext(ctx, "SELECT ci_low, ci_high FROM tight_vs_default WHERE route = ? AND measure = ?", c.route, c.measure).Scan(&lo, &hi); err != nil {
			t.Fatal(err)
		}
		if !near(lo, want.Low) || !near(hi, want.High) {
			t.Errorf("%v: interval [%.17g, %.17g], numpy [%.17g, %.17g]", c, lo, hi, want.Low, want.High)
		}
		if lo == hi {
			t.Errorf("%v: a degenerate interval [%v, %v] checks little", c, lo, hi)
		}
	}
}

// exact_sum and exact_avg give the same double whatever order the rows are
// added in, where a sum of doubles does not (0.1 + 0.2 + 0.3 is
// 0.6000000000000001, 0.3 + 0.2 + 0.1 is 0.6): DuckDB's threads add a
// group's rows in no fixed order, and two runs of one build gave shares
// that differed in their last bits and swapped tied rows in the report.
func TestExactSumIsOrderFree(t *testing.T) {
	ctx := context.Background()
	conn := testDB(t)
	r, err := newRunner(ctx, conn, testParams, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.run(ctx, loadSuite(t).Closure("rates")); err != nil {
		t.Fatal(err)
	}
	orders := []string{"(0.1), (0.2), (0.3)", "(0.3), (0.2), (0.1)", "(0.2), (0.3), (0.1)"}
	var plain, avgs []float64
	for _, o := range orders {
		var s, a, p float64
		// ORDER BY inside the aggregate fixes the order the rows are added in.
		q := "SELECT exact_sum(x), exact_avg(x), sum(x ORDER BY i) FROM (SELECT x::DOUBLE AS x, row_number() OVER () AS i FROM (VALUES " + o + ") v(x))"
		if err := conn.QueryRowContext(ctx, q).Scan(&s, &a, &p); err != nil {
			t.Fatal(err)
		}
		if s != 0.6 {
			t.Errorf("rows %s: exact_sum %.17g, want 0.6", o, s)
		}
		plain, avgs = append(plain, p), append(avgs, a)
	}
	if avgs[0] != avgs[1] || avgs[0] != avgs[2] {
		t.Errorf("exact_avg by order: %.17g", avgs)
	}
	// A sample's three replies weigh 1/3 each: their share is 1, a tie
	// with every other sample whose replies all count.
	var third float64
	if err := conn.QueryRowContext(ctx, "SELECT exact_sum(w) FROM (SELECT 1.0::DOUBLE / 3 AS w FROM range(3))").Scan(&third); err != nil || third != 1 {
		t.Errorf("three weights of 1/3: %.17g, %v; want 1", third, err)
	}
	if plain[0] == plain[1] {
		t.Logf("plain sums agreed here (%.17g): the case no longer shows the order effect", plain[0])
	}
}

// exact_avg is the exact mean, bit for bit exact_sum(x) / count(x), for a
// group of values a DECIMAL(38, 18) holds and adds safely (below 1e9), and
// avg's for a group with NaN, ±Inf or a value at or above 1e9, where the
// cast to DECIMAL fails or its sum could overflow.
func TestExactAvgFallsBackOutOfRange(t *testing.T) {
	ctx := context.Background()
	conn := testDB(t)
	r, err := newRunner(ctx, conn, testParams, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.run(ctx, loadSuite(t).Closure("rates")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		values string
		exact  bool
	}{
		{"0.1, 0.2, 0.3", true},
		{"1.0 / 3, 2.0 / 3, 1e-17", true},
		{"999999999.5, -999999999.25, 0.125", true},
		{"'inf'::DOUBLE, 1", false},
		{"'-inf'::DOUBLE, 1", false},
		{"'nan'::DOUBLE, 1", false},
		{"1e25, 1", false},
		{"-1e25, 0.5", false},
		{"1e9, 0.5", false},
		{"1e300, 1e300", false},
	} {
		var vals []string
		for _, v := range strings.Split(c.values, ", ") {
			vals = append(vals, "("+v+")")
		}
		from := " FROM (SELECT v::DOUBLE AS x FROM (VALUES " + strings.Join(vals, ", ") + ") t(v))"
		var got, want float64
		if err := conn.QueryRowContext(ctx, "SELECT exact_avg(x)"+from).Scan(&got); err != nil {
			t.Errorf("%s: %v", c.values, err)
			continue
		}
		ref := "SELECT avg(x)"
		if c.exact {
			ref = "SELECT exact_sum(x) / count(x)"
		}
		if err := conn.QueryRowContext(ctx, ref+from).Scan(&want); err != nil {
			t.Fatal(err)
		}
		if !(got == want || math.IsNaN(got) && math.IsNaN(want)) {
			t.Errorf("exact_avg(%s) = %.17g; %s gives %.17g", c.values, got, ref, want)
		}
	}
}
