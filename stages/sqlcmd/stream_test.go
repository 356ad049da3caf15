package sqlcmd_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"empties/internal/cliutil"
	"empties/internal/duck"
	"empties/internal/testutil"
	"empties/stages/sqlcmd"
)

// heapWriter discards what it is given and samples the Go heap every
// 4 MiB written: the peak is taken at fixed points of the output, not at
// times.
type heapWriter struct {
	n, next uint64
	peak    uint64
}

func (h *heapWriter) Write(b []byte) (int, error) {
	h.n += uint64(len(b))
	if h.n >= h.next {
		h.next = h.n + 4<<20
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		h.peak = max(h.peak, ms.HeapInuse)
	}
	return len(b), nil
}

// A result of 10^7 rows (csv; the table format, parsed in Go, 2·10^6)
// streams through in flat memory: the Go heap, at every 4 MiB of output,
// stays within 64 MiB of what it was before (the whole result held in Go
// took about 300 bytes a row: 3 GB for 10^7).
func TestSQLStreamsInFlatMemory(t *testing.T) {
	_, ds, _ := testDataset(t)
	for format, rows := range map[string]int{"csv": 10_000_000, "table": 2_000_000} {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		base := ms.HeapInuse
		h := &heapWriter{}
		q := fmt.Sprintf("SELECT range AS i FROM range(%d)", rows)
		if err := sqlcmd.Run(context.Background(), sqlcmd.Options{Query: q, Data: ds, Format: format, Width: 60}, h); err != nil {
			t.Fatal(err)
		}
		if h.n < uint64(rows)*6 {
			t.Errorf("%s: only %d bytes written", format, h.n)
		}
		grew := int64(h.peak) - int64(base)
		t.Logf("%s: %d MB written, heap at most %d MiB above its start", format, h.n>>20, grew>>20)
		if grew > 64<<20 {
			t.Errorf("%s: the heap grew by %d MiB while streaming, want under 64 MiB", format, grew>>20)
		}
	}
}

// pipeCloser takes limit bytes, then fails every write as a pipe whose
// reader went away does (`| head`).
type pipeCloser struct{ n, limit int }

func (p *pipeCloser) Write(b []byte) (int, error) {
	if p.n >= p.limit {
		return 0, &os.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.EPIPE}
	}
	p.n += len(b)
	return len(b), nil
}

// A reader that stops early ends the query: the first rows of a result of
// 10^12 rows (which no one could hold) come out, and Run returns without
// an error once the writer fails with EPIPE, in every format.
func TestSQLStopsWhenTheReaderStops(t *testing.T) {
	_, ds, _ := testDataset(t)
	for _, format := range []string{"csv", "json", "table"} {
		w := &pipeCloser{limit: 1 << 20}
		err := sqlcmd.Run(context.Background(), sqlcmd.Options{Query: "SELECT range FROM range(1000000000000)", Data: ds, Format: format}, w)
		if err != nil {
			t.Errorf("%s: %v, want a quiet end", format, err)
		}
		if w.n < 1<<20 {
			t.Errorf("%s: only %d bytes before the end", format, w.n)
		}
	}
}

// --output writes DuckDB's own CSV, JSON lines or Parquet into a new file,
// holding the same values as the query read in DuckDB; stdout gets the
// same bytes for csv and json.
func TestSQLOutputFormats(t *testing.T) {
	root, ds, _ := testDataset(t)
	q := `SELECT sample_id, epoch, class, tools_offered, tool_call_functions, NULL::VARCHAR AS nothing, '' AS blank
	  FROM replies ORDER BY sample_id`
	ctx := context.Background()
	db, err := duck.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var want bytes.Buffer
	if err := sqlcmd.Run(ctx, sqlcmd.Options{Query: "SELECT to_json(t)::VARCHAR AS j FROM (" + q + ") t", Data: ds, Format: "csv"}, &want); err != nil {
		t.Fatal(err)
	}
	readers := map[string]string{"csv": "read_csv(%s, header = true, all_varchar = false)", "json": "read_json(%s)", "parquet": "read_parquet(%s)"}
	for _, format := range []string{"csv", "json", "parquet"} {
		out := filepath.Join(root, "out", "result."+format)
		if err := sqlcmd.Run(ctx, sqlcmd.Options{Query: q, Data: ds, Format: format, Output: out}, io.Discard); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		_, rows, err := duck.Rows(ctx, db, fmt.Sprintf("SELECT count(*), count(DISTINCT sample_id), count(nothing) FROM "+readers[format], duck.Quote(out)))
		if err != nil {
			t.Fatalf("%s: reading it back: %v", format, err)
		}
		if fmt.Sprint(rows[0]) != "[3 3 0]" {
			t.Errorf("%s: read back %v, want 3 rows, 3 ids, no non-null nothing", format, rows[0])
		}
		if format == "parquet" {
			_, rows, err := duck.Rows(ctx, db, "SELECT to_json(t)::VARCHAR FROM read_parquet("+duck.Quote(out)+") t")
			if err != nil {
				t.Fatal(err)
			}
			var got strings.Builder
			got.WriteString("j\n")
			for _, r := range rows {
				fmt.Fprintf(&got, "%q\n", r[0])
			}
			if strings.ReplaceAll(got.String(), `\"`, `""`) != want.String() {
				t.Errorf("parquet holds\n%s\nwant the query's\n%s", got.String(), want.String())
			}
			continue
		}
		var stdout bytes.Buffer
		if err := sqlcmd.Run(ctx, sqlcmd.Options{Query: q, Data: ds, Format: format}, &stdout); err != nil {
			t.Fatal(err)
		}
		file, _ := os.ReadFile(out)
		if !bytes.Equal(file, stdout.Bytes()) {
			t.Errorf("%s: the file and stdout differ:\n%s\n%s", format, file, stdout.Bytes())
		}
	}
}

// --output names a new file outside the dataset, checked before the query
// runs; every flag is checked before any work. Nothing changes on a
// refusal.
func TestSQLOutputRefusals(t *testing.T) {
	root, ds, gen := testDataset(t)
	mine := filepath.Join(root, "mine.csv")
	os.WriteFile(mine, []byte("my,data\n"), 0o644)
	before := testutil.Snapshot(t, root)
	for _, c := range []struct {
		name string
		opts sqlcmd.Options
		want string
	}{
		{"an existing file", sqlcmd.Options{Output: mine, Format: "csv"}, "exists"},
		{"a file of the generation", sqlcmd.Options{Output: filepath.Join(gen, "replies", "x.parquet"), Format: "parquet"}, ""},
		{"the dataset's top", sqlcmd.Options{Output: filepath.Join(ds, "result.csv"), Format: "csv"}, ""},
		{"through current", sqlcmd.Options{Output: filepath.Join(ds, "current", "x.csv"), Format: "csv"}, ""},
		{"a folder", sqlcmd.Options{Output: root, Format: "csv"}, "folder"},
		{"parquet to the terminal", sqlcmd.Options{Format: "parquet"}, "--output FILE"},
		{"an unknown format", sqlcmd.Options{Format: "xml"}, "table, csv, json, parquet"},
		{"a negative width", sqlcmd.Options{Format: "table", Width: -1}, "--width"},
	} {
		c.opts.Query, c.opts.Data = "SELECT 1", ds
		err := sqlcmd.Run(context.Background(), c.opts, io.Discard)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want a refusal saying %q", c.name, err, c.want)
		}
		var usage *cliutil.UsageError
		if c.opts.Output == "" && !errors.As(err, &usage) {
			t.Errorf("%s: %v is no usage error", c.name, err)
		}
		testutil.SameTree(t, c.name, before, testutil.Snapshot(t, root))
	}
}

// The table format: NULL named, cells cut to --width, columns sized from
// the first rows, the count at the end; EXPLAIN prints its plan.
func TestSQLTable(t *testing.T) {
	_, ds, _ := testDataset(t)
	var out bytes.Buffer
	q := "SELECT range AS n, CASE WHEN range = 1 THEN NULL ELSE repeat('x', range::INT) END AS s FROM range(3) ORDER BY n"
	if err := sqlcmd.Run(context.Background(), sqlcmd.Options{Query: q, Data: ds, Format: "table", Width: 1}, &out); err != nil {
		t.Fatal(err)
	}
	want := "n  s\n-  -\n0   \n1  …\n2  …\n(3 rows)\n"
	if out.String() != want {
		t.Errorf("table:\n%s\nwant\n%s", out.String(), want)
	}
	out.Reset()
	if err := sqlcmd.Run(context.Background(), sqlcmd.Options{Query: "SELECT 1 AS n", Data: ds, Format: "table"}, &out); err != nil {
		t.Fatal(err)
	}
	if want := "n\n-\n1\n(1 row)\n"; out.String() != want {
		t.Errorf("one row:\n%s\nwant\n%s", out.String(), want)
	}
	out.Reset()
	if err := sqlcmd.Run(context.Background(), sqlcmd.Options{Query: "EXPLAIN SELECT class FROM replies WHERE epoch > 0", Data: ds, Format: "table"}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "READ_PARQUET") && !strings.Contains(out.String(), "PARQUET_SCAN") && !strings.Contains(out.String(), "TABLE_SCAN") {
		t.Errorf("EXPLAIN printed\n%s", out.String())
	}
}

// BenchmarkSQLStream streams range(EMPTIES_BENCH_SQL_ROWS) rows (default
// 10^8) as CSV and prints rows/s, the Go heap's peak above its start and
// the process's peak RSS (DuckDB's memory included):
//
//	go test ./stages/sqlcmd -run '^$' -bench SQLStream -benchtime 1x
func BenchmarkSQLStream(b *testing.B) {
	rows := 100_000_000
	if v := os.Getenv("EMPTIES_BENCH_SQL_ROWS"); v != "" {
		fmt.Sscan(v, &rows)
	}
	_, ds, _ := testDataset(b)
	for b.Loop() {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		h := &heapWriter{}
		q := fmt.Sprintf("SELECT range AS i, range * 2 AS j FROM range(%d)", rows)
		if err := sqlcmd.Run(context.Background(), sqlcmd.Options{Query: q, Data: ds, Format: "csv"}, h); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(h.n)/float64(1<<20), "MB")
		b.ReportMetric(float64(int64(h.peak)-int64(ms.HeapInuse))/float64(1<<20), "heap-MiB")
	}
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(ru.Maxrss)/1024, "peak-RSS-MiB")
}
