package measures

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"empties/internal/duck"
	"empties/schema"
)

// Params are what the manifest gives the analysis.
type Params struct {
	Level       float64      // interval level (thresholds.interval), e.g. 0.95
	Seed        uint64       // bootstrap seed
	Resamples   int          // bootstrap resamples
	RouteModels []RouteModel // routes[].models: the log model strings of each route
	// NoManifest is a run without a manifest: the outputs that need one
	// (manifestSteps, or a table a manifest stage writes) are skipped, with
	// "manifest" among their missing inputs; the others run at Level.
	NoManifest bool
	// ExamplesSeed and ExamplesPerClass drive class_examples' draw; 0 per
	// class means DefaultExamplesPerClass.
	ExamplesSeed     uint64
	ExamplesPerClass int
}

// DefaultExamplesPerClass is how many real replies of each class
// class_examples draws unless told otherwise.
const DefaultExamplesPerClass = 3

// NoManifestParams are the parameters of a run without a manifest: the
// pre-registration's 95% intervals (§6) and no bootstrap.
func NoManifestParams() Params { return Params{Level: 0.95, NoManifest: true} }

// manifestInput is the pseudo input a step lacks when it needs the manifest
// and the run has none; analyze_runs lists it among missing_inputs.
const manifestInput = "manifest"

// ingestTables are the source tables that need no manifest: what ingest and
// exposure write. Every other table of schema/ is written from the
// manifest (rescore, select, decide).
var ingestTables = map[string]bool{"logs": true, "replies": true, "scores": true, "model_calls": true,
	"ingest_errors": true, "exposure": true}

// manifestSteps are the steps built in Go from the manifest.
var manifestSteps = map[string]bool{"route_models": true, "boot_tight_default": true}

// RouteModel says that a log model string is served by a route.
type RouteModel struct {
	Route string
	Model string
}

// Z is the two-sided normal quantile of the interval level: 1.959963984540054
// for 0.95, as scipy.stats.norm.isf((1 - level) / 2).
func (p Params) Z() float64 { return math.Sqrt2 * math.Erfinv(p.Level) }

// Result is what happened to one step.
type Result struct {
	Step    *Step
	Missing []string // source tables it needs that the dataset lacks (then built empty)
	Rows    int64    // rows of a table or output
	Elapsed time.Duration
}

// Status is ok (rows), empty (it ran; its inputs hold nothing it counts) or
// skipped (an input table is missing, so it was written empty).
func (r *Result) Status() string {
	switch {
	case len(r.Missing) > 0:
		return "skipped"
	case r.Rows == 0:
		return "empty"
	}
	return "ok"
}

// runner builds steps on one DuckDB connection (variables and the appender
// are per connection).
type runner struct {
	conn    *sql.Conn
	params  Params
	present map[string]bool // source tables that hold data in the dataset
	results map[string]*Result
}

func newRunner(ctx context.Context, conn *sql.Conn, p Params, present map[string]bool) (*runner, error) {
	if err := setVariables(ctx, conn, p); err != nil {
		return nil, err
	}
	return &runner{conn: conn, params: p, present: present, results: map[string]*Result{}}, nil
}

// setVariables sets the run's Variables on the connection.
func setVariables(ctx context.Context, q querier, p Params) error {
	perClass := p.ExamplesPerClass
	if perClass == 0 {
		perClass = DefaultExamplesPerClass
	}
	// SET VARIABLE takes no prepared parameters; these are numbers formatted
	// here, never text from a file.
	for _, v := range []struct{ name, value string }{
		{"interval_level", strconv.FormatFloat(p.Level, 'g', -1, 64) + "::DOUBLE"},
		{"interval_z", strconv.FormatFloat(p.Z(), 'g', -1, 64) + "::DOUBLE"},
		{"bootstrap_seed", strconv.FormatInt(int64(p.Seed), 10) + "::BIGINT"},
		{"bootstrap_resamples", strconv.Itoa(p.Resamples) + "::BIGINT"},
		{"examples_seed", strconv.FormatUint(p.ExamplesSeed, 10) + "::UBIGINT"},
		{"examples_per_class", strconv.Itoa(perClass) + "::BIGINT"},
	} {
		if _, err := q.ExecContext(ctx, "SET VARIABLE "+v.name+" = "+v.value); err != nil {
			return err
		}
	}
	return nil
}

// missing lists the source tables a step needs, directly or through the
// steps it needs, that the dataset lacks.
func (r *runner) missing(st *Step) []string {
	seen := map[string]bool{}
	if r.params.NoManifest && manifestSteps[st.Output] {
		seen[manifestInput] = true
	}
	for _, n := range st.Needs {
		if _, ok := schema.Lookup(n); ok {
			if !r.present[n] {
				seen[n] = true
			}
			if r.params.NoManifest && !ingestTables[n] {
				seen[manifestInput] = true
			}
			continue
		}
		if dep, ok := r.results[n]; ok {
			for _, m := range dep.Missing {
				seen[m] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for m := range seen {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}

// run builds the steps in order. An output or table whose needs are missing
// is created with its columns and no rows.
func (r *runner) run(ctx context.Context, steps []*Step) error {
	for _, st := range steps {
		if err := ctx.Err(); err != nil {
			return err
		}
		res := &Result{Step: st, Missing: r.missing(st)}
		start := time.Now()
		skip := len(res.Missing) > 0
		var err error
		name := duck.Ident(st.Output)
		switch {
		case st.build != nil:
			err = st.build(ctx, r, skip)
		case st.Kind == KindMacro:
			_, err = r.conn.ExecContext(ctx, st.Body)
		case st.Kind == KindView:
			_, err = r.conn.ExecContext(ctx, "CREATE OR REPLACE VIEW "+name+" AS "+st.Body)
		case skip:
			_, err = r.conn.ExecContext(ctx, "CREATE OR REPLACE TABLE "+name+" AS SELECT * FROM ("+st.Body+") LIMIT 0")
		default:
			_, err = r.conn.ExecContext(ctx, "CREATE OR REPLACE TABLE "+name+" AS "+st.Body)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", st.where(), err)
		}
		if st.Kind == KindTable || st.Kind == KindOutput {
			if err := r.conn.QueryRowContext(ctx, "SELECT count(*) FROM "+name).Scan(&res.Rows); err != nil {
				return fmt.Errorf("%s: %w", st.where(), err)
			}
		}
		res.Elapsed = time.Since(start)
		r.results[st.Output] = res
	}
	return nil
}

func (st *Step) where() string {
	if st.File != "" {
		return "sql/" + st.File
	}
	return st.Output + " (built in Go)"
}

// sourceViews are the views the measures read: the staging view of every
// table of schema/ (internal/duck), leaving superseded logs' rows out, and
// an empty view with the declared columns of each table the dataset lacks,
// so every file runs and a measure without data yields an empty table.
var sourceViews = duck.Views{Counted: true, Empty: true}

// createSourceViews creates the measures' views over the current generation
// of the dataset at dataDir and returns the tables present.
func createSourceViews(ctx context.Context, q querier, dataDir string, v duck.Views) (map[string]bool, error) {
	found, err := duck.CreateViews(ctx, q, dataDir, v)
	if err != nil {
		return nil, err
	}
	present := map[string]bool{}
	for _, t := range found {
		present[t] = true
	}
	return present, nil
}

// createSourceTables creates empty tables with the declared columns of the
// named schema tables: the inputs of a test, filled with INSERTs.
func createSourceTables(ctx context.Context, q querier, names []string) error {
	for _, n := range names {
		t, ok := schema.Lookup(n)
		if !ok {
			return fmt.Errorf("no table %q in schema/", n)
		}
		var cols []string
		for _, c := range t.Columns() {
			cols = append(cols, duck.Ident(c.Name)+" "+c.Type)
		}
		if _, err := q.ExecContext(ctx, fmt.Sprintf("CREATE TABLE %s (%s)", duck.Ident(n), strings.Join(cols, ", "))); err != nil {
			return err
		}
	}
	return nil
}
