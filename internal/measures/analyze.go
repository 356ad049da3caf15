// Package measures is the measure suite of `empties analyze`: it runs the
// pre-registered measures (seed §5, §6) over a dataset, every .sql file of
// sql/ (package sqlfiles) in dependency order over the typed staging views
// of the dataset's Parquet tables, and writes each output as a Parquet table
// beside them, checked against its contract. Thresholds are not applied
// here: the outputs carry the numbers the decide stage compares with the
// manifest's thresholds. Select reads a measure through Query and check
// verifies the outputs through CheckOutputs, on the same views.
//
// Layers: internal/duck creates the staging view of every table of schema/
// (each declared column cast to its declared type; superseded logs' rows
// left out; an empty view with the same columns when the dataset lacks the
// table); then the runner sets the run's variables (interval_level,
// interval_z, bootstrap_seed, bootstrap_resamples) and builds the steps:
// macros (rates.sql: the sample weight, rate, Wilson and percentile intervals), intermediate views and tables (sql/intermediate/: study_replies,
// priced_calls, tight_vs_default_samples), tables built in Go (reply_classes,
// route_models, boot_tight_default) and the outputs.
//
// To add a measure: write sql/marts/<output>.sql, one query (WITH ... SELECT), one
// CTE per step, opening with the header (output, kind: output, grain,
// measure naming the pre-registration section, needs, optional); write
// sql/marts/<output>.yml beside it (grain, key, columns with type and doc,
// invariants as queries returning the rows that break them); and add a case
// folder testdata/measures/<output>/<case>/ with given rows as CSV and the
// exact expected rows (its README; TestMeasureFolders fails for a step
// without one). LoadSuite rejects a file or contract that
// does not fit before anything runs.
package measures

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"empties/internal/duck"
	"empties/internal/manifest"
	"empties/internal/numfmt"
	"empties/internal/store"
	"empties/schema"
	sqlfiles "empties/sql"
)

// Config configures an analyze run (the flags of `empties analyze`).
type Config struct {
	Data                string
	Manifest            string
	AllowPreregMismatch bool
	// ExamplesSeed and ExamplesPerClass drive class_examples' draw; 0 per
	// class means DefaultExamplesPerClass.
	ExamplesSeed     uint64
	ExamplesPerClass int
	// SQL is the analysis SQL; nil means the embedded sql/ files.
	SQL fs.FS
}

// ParamsFrom takes the analysis parameters from a loaded manifest.
func ParamsFrom(m *manifest.Manifest) Params {
	p := Params{Level: *m.Thresholds.Interval, Seed: m.Bootstrap.Seed, Resamples: m.Bootstrap.Resamples}
	for _, r := range m.Routes {
		for _, model := range r.Models {
			p.RouteModels = append(p.RouteModels, RouteModel{Route: r.Name, Model: model})
		}
	}
	return p
}

// Run analyzes the dataset and writes the outputs into it.
func Run(ctx context.Context, opts Config, w io.Writer) error {
	if err := store.RequireTables("analyze", opts.Data, "replies"); err != nil {
		return err
	}
	fsys := opts.SQL
	if fsys == nil {
		fsys = sqlfiles.FS
	}
	suite, err := LoadSuite(fsys)
	if err != nil {
		return err
	}
	params, manifestPath := NoManifestParams(), ""
	if opts.Manifest != "" {
		m, err := manifest.Load(opts.Manifest, manifest.Options{AllowPreregMismatch: opts.AllowPreregMismatch})
		if err != nil {
			return err
		}
		params, manifestPath = ParamsFrom(m), m.Path
	}
	params.ExamplesSeed, params.ExamplesPerClass = opts.ExamplesSeed, opts.ExamplesPerClass
	ds, err := store.Create(store.Stage{Name: schema.StageAnalyze, Views: duck.ViewFile}, opts.Data)
	if err != nil {
		return err
	}
	defer ds.Close()
	start := time.Now()
	results, err := analyze(ctx, suite, params, ds.Dir, ds.TableDir, manifestPath)
	if err != nil {
		return err
	}
	if err := ds.Commit(); err != nil {
		return err
	}
	printSummary(w, ds.Dir, results, time.Since(start))
	return nil
}

// Explore computes the exploration outputs (the suite without a manifest,
// as `empties analyze --data DIR` would) of the dataset at dataDir, which it
// only reads, into out, a new folder it creates holding one folder of
// Parquet files per table (the layout duck's views read): how `empties
// serve` shows the measures of a dataset analyze has not run on, in its
// scratch, never in the dataset.
func Explore(ctx context.Context, dataDir, out string) error {
	suite, err := LoadSuite(sqlfiles.FS)
	if err != nil {
		return err
	}
	if err := os.Mkdir(out, 0o755); err != nil {
		return err
	}
	tableDir := func(table string) (string, error) {
		dir := filepath.Join(out, table)
		return dir, os.Mkdir(dir, 0o755)
	}
	_, err = analyze(ctx, suite, NoManifestParams(), dataDir, tableDir, "")
	return err
}

// analyze builds every step in one in-memory DuckDB over the dataset at
// dataDir, checks every output's contract, and writes the outputs and
// analyze_runs as Parquet into the folders tableDir gives.
func analyze(ctx context.Context, suite *Suite, params Params, dataDir string, tableDir func(string) (string, error), manifestPath string) ([]*Result, error) {
	db, err := duck.Open("")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	present, err := createSourceViews(ctx, conn, dataDir, sourceViews)
	if err != nil {
		return nil, err
	}
	r, err := newRunner(ctx, conn, params, present)
	if err != nil {
		return nil, err
	}
	if err := r.run(ctx, suite.Steps); err != nil {
		return nil, err
	}
	var results []*Result
	for _, st := range suite.Outputs() {
		results = append(results, r.results[st.Output])
	}
	if err := writeRuns(ctx, conn, results, params, manifestPath); err != nil {
		return nil, err
	}
	var broken []string
	for _, st := range suite.Outputs() {
		b, err := st.Contract.Check(ctx, conn)
		if err != nil {
			return nil, err
		}
		broken = append(broken, b...)
	}
	b, err := suite.Contracts[RunsTable].Check(ctx, conn)
	if err != nil {
		return nil, err
	}
	if broken = append(broken, b...); len(broken) > 0 {
		return nil, fmt.Errorf("analyze: %d broken contracts (nothing was written):\n  %s", len(broken), strings.Join(broken, "\n  "))
	}
	for _, st := range suite.Outputs() {
		if err := copyOut(ctx, conn, tableDir, st.Output, st.Contract.KeyOrder()); err != nil {
			return nil, err
		}
	}
	if err := copyOut(ctx, conn, tableDir, RunsTable, suite.Contracts[RunsTable].KeyOrder()); err != nil {
		return nil, err
	}
	return results, nil
}

const runsGrain = "one row per output of the run"

// writeRuns creates analyze_runs: what each output is and what happened to
// it in this run.
func writeRuns(ctx context.Context, conn *sql.Conn, results []*Result, p Params, manifestPath string) error {
	if _, err := conn.ExecContext(ctx, `CREATE OR REPLACE TABLE analyze_runs (
		output VARCHAR, file VARCHAR, grain VARCHAR, measure VARCHAR, status VARCHAR,
		missing_inputs VARCHAR[], n_rows BIGINT, seconds DOUBLE,
		level DOUBLE, seed BIGINT, resamples BIGINT, manifest VARCHAR, run_at TIMESTAMP WITH TIME ZONE)`); err != nil {
		return err
	}
	abs := ""
	if manifestPath != "" {
		abs, _ = filepath.Abs(manifestPath)
	}
	now := time.Now().UTC()
	for _, res := range results {
		st := res.Step
		_, err := conn.ExecContext(ctx, `INSERT INTO analyze_runs VALUES (?, ?, ?, ?, ?,
			list_filter(string_split(?, ','), lambda x: x <> ''), ?, ?, ?, ?, ?, ?, ?::TIMESTAMPTZ)`,
			st.Output, "sql/"+st.File, st.Grain, st.Measure, res.Status(),
			strings.Join(res.Missing, ","), res.Rows, res.Elapsed.Seconds(),
			p.Level, int64(p.Seed), int64(p.Resamples), abs, now.Format(time.RFC3339Nano))
		if err != nil {
			return fmt.Errorf("analyze_runs: %w", err)
		}
	}
	return nil
}

// copyOut writes a table as the table of the same name: one Parquet file in
// the folder tableDir gives (for analyze, its folder of the next generation,
// which Commit switches in, so readers never see a half-written table).
func copyOut(ctx context.Context, conn *sql.Conn, tableDir func(string) (string, error), table, order string) error {
	dir, err := tableDir(table)
	if err != nil {
		return err
	}
	q := fmt.Sprintf("COPY (SELECT * FROM %s ORDER BY %s) TO %s (FORMAT parquet, COMPRESSION zstd)",
		duck.Ident(table), order, duck.Quote(filepath.Join(dir, "part-00000.parquet")))
	if _, err := conn.ExecContext(ctx, q); err != nil {
		return fmt.Errorf("writing %s: %w", table, err)
	}
	return nil
}

func printSummary(w io.Writer, dir string, results []*Result, elapsed time.Duration) {
	counts := map[string]int{}
	for _, r := range results {
		counts[r.Status()]++
	}
	fmt.Fprintf(w, "analyze: %d tables written to %s in %.1fs (%d ok, %d empty, %d skipped for missing inputs or no manifest)\n",
		len(results)+1, dir, elapsed.Seconds(), counts["ok"], counts["empty"], counts["skipped"])
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	// The outputs a manifest would give are named on one line, not one each.
	var study []string
	for _, r := range results {
		note := ""
		switch r.Status() {
		case "skipped":
			var tables []string
			manifest := false
			for _, m := range r.Missing {
				if m == manifestInput {
					manifest = true
				} else {
					tables = append(tables, m)
				}
			}
			if manifest { // its missing tables are the study's, which a manifest gives
				study = append(study, r.Step.Output)
				continue
			}
			note = "skipped: no " + strings.Join(tables, ", ") + " table in the dataset"
		case "empty":
			note = "empty: no rows to count"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", r.Step.Output, numfmt.Plural(r.Rows, "row", "rows"), note)
	}
	tw.Flush()
	if len(study) > 0 {
		sort.Strings(study)
		fmt.Fprintf(w, "  not computed without the manifest (--manifest): %s\n", strings.Join(study, ", "))
	}
}
