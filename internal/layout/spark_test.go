package layout_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"empties/internal/decide"
	"empties/internal/duck"
	"empties/internal/ingest"
	"empties/internal/measures"
	"empties/internal/store"
	"empties/internal/study"
	"empties/internal/testutil"
	"empties/schema"
)

// kinds maps the DuckDB type of a column of the files to the aggregates
// spark_read.py computes and the Spark type it must read.
var kinds = map[string]struct{ kind, spark string }{
	"VARCHAR":                  {"string", "string"},
	"JSON":                     {"string", "string"}, // Parquet's JSON logical type (required JSON columns)
	"BIGINT":                   {"int", "bigint"},
	"INTEGER":                  {"int", "int"},
	"DOUBLE":                   {"double", "double"},
	"BOOLEAN":                  {"bool", "boolean"},
	"TIMESTAMP WITH TIME ZONE": {"timestamp", "timestamp"},
	"VARCHAR[]":                {"list", "array<string>"},
}

type sparkColumn struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
}

type sparkTable struct {
	Name    string        `json:"name"`
	Glob    string        `json:"glob"`
	Folder  string        `json:"folder"`
	Columns []sparkColumn `json:"columns"`
}

type sparkSeen struct {
	Spark  string `json:"spark"`
	Tables map[string]struct {
		Schema []struct {
			Name string `json:"name"`
			Type string `json:"type"`
		} `json:"schema"`
		Rows          int64          `json:"rows"`
		Files         int            `json:"files"`
		FolderColumns []string       `json:"folder_columns"`
		FolderFiles   []string       `json:"folder_files"`
		Aggregates    map[string]any `json:"aggregates"`
	} `json:"tables"`
}

// Every table of a whole pipeline's dataset (the demo through ingest,
// rescore, analyze and decide) reads in Spark as written: the same columns
// with the types doc.go names, every row from every part file, the folder
// discovered as one table without partition columns, and per column the same
// counts, sums, extremes, timestamps (to the microsecond) and list elements
// as DuckDB reads from the same files.
func TestSparkReadsTheTablesAsWritten(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	manifest := testutil.Path(t, "data", "study.yaml")
	steps := []func() error{
		func() error {
			return ingest.Build(ctx, ingest.Config{Paths: []string{testutil.Path(t, "data", "demo", "logs")}, Out: dir})
		},
		func() error { _, err := study.Rescore(ctx, study.Config{Data: dir, Manifest: manifest}); return err },
		func() error { return measures.Run(ctx, measures.Config{Data: dir, Manifest: manifest}, io.Discard) },
		func() error { _, err := decide.Decide(ctx, decide.Config{Data: dir, Manifest: manifest}); return err },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}

	declared := map[string]bool{}
	for _, tb := range schema.Tables() {
		declared[tb.Name] = true
	}
	db, err := duck.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	query := func(q string) [][]any {
		t.Helper()
		_, rows, err := duck.Rows(ctx, db, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return rows
	}

	var req struct {
		Tables []sparkTable `json:"tables"`
	}
	want := map[string][]any{} // table -> DuckDB's aggregates, in spark_read.py's order
	names := map[string][]string{}
	rows := map[string]int64{}
	files := map[string]int{}
	partFiles := map[string][]string{}
	types := map[string][]string{}
	for _, table := range store.TablesExcept(dir) {
		glob := store.TableGlob(dir, table)
		matched, err := filepath.Glob(glob)
		if err != nil || len(matched) == 0 {
			t.Fatalf("%s: no part files at %s (%v)", table, glob, err)
		}
		files[table] = len(matched)
		sort.Strings(matched)
		partFiles[table] = matched
		src := "read_parquet(" + duck.Quote(glob) + ")"
		st := sparkTable{Name: table, Glob: glob, Folder: filepath.Dir(glob)}
		var aggs []string
		for _, r := range query("SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM " + src + ")") {
			col, typ := r[0].(string), r[1].(string)
			k, ok := kinds[typ]
			if !ok {
				t.Errorf("%s.%s: type %s has no portable reading named in doc.go", table, col, typ)
				continue
			}
			types[table] = append(types[table], col+" "+k.spark)
			st.Columns = append(st.Columns, sparkColumn{col, k.kind})
			c := duck.Ident(col)
			add := func(name, expr string) {
				names[table] = append(names[table], col+":"+name)
				aggs = append(aggs, expr)
			}
			add("count", "count("+c+")")
			switch k.kind {
			case "string":
				add("length", "sum(length("+c+"))")
				add("min", "min("+c+")")
				add("max", "max("+c+")")
			case "int":
				add("sum", "sum("+c+")")
				add("min", "min("+c+")")
				add("max", "max("+c+")")
			case "double":
				finite := "CASE WHEN isfinite(" + c + ") THEN " + c + " END"
				add("sum", "sum("+finite+")")
				add("min", "min("+finite+")")
				add("max", "max("+finite+")")
				add("nan", "count(*) FILTER (WHERE isnan("+c+"))")
			case "bool":
				add("true", "count(*) FILTER (WHERE "+c+")")
			case "timestamp":
				add("min", "epoch_us(min("+c+"))")
				add("max", "epoch_us(max("+c+"))")
			case "list":
				add("elements", "sum(len("+c+"))")
				add("min", "min(list_min("+c+"))")
				add("max", "max(list_max("+c+"))")
			}
		}
		want[table] = query("SELECT " + strings.Join(aggs, ", ") + " FROM " + src)[0]
		rows[table] = query("SELECT count(*) FROM " + src)[0][0].(int64)
		if declared[table] {
			// the Go stages' part files: row groups and files within the
			// bounds doc.go names
			for _, r := range query("SELECT file_name, max(row_group_num_rows), sum(row_group_num_rows) FILTER (WHERE column_id = 0) FROM parquet_metadata(" + duck.Quote(glob) + ") GROUP BY ALL") {
				if g, n := r[1].(int64), toInt(r[2]); g > store.RowsPerGroup || n > store.RowsPerFile {
					t.Errorf("%s: row groups of %d rows, %d rows in the file (bounds %d, %d)", r[0], g, n, store.RowsPerGroup, store.RowsPerFile)
				}
			}
		}
		req.Tables = append(req.Tables, st)
	}
	if len(req.Tables) < len(schema.Tables())/2 {
		t.Fatalf("only %d tables in the dataset", len(req.Tables))
	}

	seen := runSpark(t, req)
	t.Logf("Spark %s read %d tables", seen.Spark, len(seen.Tables))
	if len(seen.Tables) != len(req.Tables) {
		t.Errorf("Spark read %d of %d tables", len(seen.Tables), len(req.Tables))
	}
	for _, st := range req.Tables {
		table := st.Name
		got, ok := seen.Tables[table]
		if !ok {
			t.Errorf("%s: Spark did not read it", table)
			continue
		}
		var gotTypes []string
		for _, f := range got.Schema {
			gotTypes = append(gotTypes, f.Name+" "+f.Type)
		}
		if a, b := strings.Join(gotTypes, ", "), strings.Join(types[table], ", "); a != b {
			t.Errorf("%s: Spark reads columns\n  %s\nwant\n  %s", table, a, b)
		}
		wantFiles := files[table]
		if rows[table] == 0 {
			wantFiles = 0 // no row comes from any file
		}
		if got.Rows != rows[table] || got.Files != wantFiles {
			t.Errorf("%s: Spark read %d rows from %d files, DuckDB %d rows from %d", table, got.Rows, got.Files, rows[table], files[table])
		}
		var cols []string
		for _, c := range st.Columns {
			cols = append(cols, c.Name)
		}
		if a, b := strings.Join(got.FolderColumns, ","), strings.Join(cols, ","); a != b {
			t.Errorf("%s: the folder %s reads as columns %s, want %s (no partition columns)", table, st.Folder, a, b)
		}
		var found []string
		for _, f := range got.FolderFiles {
			found = append(found, strings.TrimPrefix(f, "file://"))
		}
		if a, b := strings.Join(found, ","), strings.Join(partFiles[table], ","); a != b {
			t.Errorf("%s: Spark finds the part files\n  %s\nin the folder, want\n  %s", table, a, b)
		}
		for i, name := range names[table] {
			if msg := compare(want[table][i], got.Aggregates[name]); msg != "" {
				t.Errorf("%s %s: %s", table, name, msg)
			}
		}
	}
}

// runSpark runs spark_read.py on the tables; a Spark that cannot start (no
// Java, no pyspark) fails the test.
func runSpark(t *testing.T, req any) sparkSeen {
	t.Helper()
	in, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	// A guard against a hung JVM, not a time limit: on an idle 2-core machine
	// the whole test takes about 25 s, on a machine shared with other builds
	// several times that (over 10 minutes at load 14), so the guard is far
	// beyond any load.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Minute)
	defer cancel()
	py := testutil.Path(t, ".venv", "bin", "python")
	cmd := exec.CommandContext(ctx, py, testutil.Path(t, "scripts", "engines", "spark_read.py"))
	cmd.Stdin = bytes.NewReader(in)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	cmd.Env = append(os.Environ(), "PYSPARK_PYTHON="+py, "SPARK_LOCAL_IP=127.0.0.1")
	if err := cmd.Run(); err != nil {
		tail := stderr.String()
		if len(tail) > 4000 {
			tail = tail[len(tail)-4000:]
		}
		t.Fatalf("Spark could not read the tables (make java installs Java; make venv pyspark): %v\n%s", err, tail)
	}
	for _, line := range strings.Split(stderr.String(), "\n") {
		if strings.HasPrefix(line, "spark_read:") {
			t.Log(line)
		}
	}
	var seen sparkSeen
	dec := json.NewDecoder(&out)
	dec.UseNumber()
	if err := dec.Decode(&seen); err != nil {
		t.Fatalf("spark_read.py output: %v", err)
	}
	return seen
}

// compare says how Spark's aggregate differs from DuckDB's, or "".
func compare(duckdb, spark any) string {
	if duckdb == nil || spark == nil {
		if duckdb == nil && spark == nil {
			return ""
		}
		return fmt.Sprintf("DuckDB %v, Spark %v", duckdb, spark)
	}
	switch d := duckdb.(type) {
	case string:
		if s, ok := spark.(string); !ok || s != d {
			return fmt.Sprintf("DuckDB %q, Spark %v", d, spark)
		}
		return ""
	case float64:
		n, ok := spark.(json.Number)
		if !ok {
			return fmt.Sprintf("DuckDB %v, Spark %v", d, spark)
		}
		s, _ := n.Float64()
		if math.Abs(s-d) > 1e-9*math.Max(1, math.Abs(d)) {
			return fmt.Sprintf("DuckDB %v, Spark %v", d, s)
		}
		return ""
	}
	n, ok := spark.(json.Number)
	if !ok {
		return fmt.Sprintf("DuckDB %v, Spark %v", duckdb, spark)
	}
	if fmt.Sprint(toInt(duckdb)) != n.String() {
		return fmt.Sprintf("DuckDB %v, Spark %v", duckdb, n)
	}
	return ""
}

// toInt renders DuckDB's integer results (int64, or a sum's HUGEINT) as int64.
func toInt(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case int32:
		return int64(x)
	case bool:
		if x {
			return 1
		}
		return 0
	}
	n, _ := strconv.ParseInt(fmt.Sprint(v), 10, 64)
	return n
}
