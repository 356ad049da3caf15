// Command codecs measures the Parquet page compressions on the tables of a
// dataset, to choose one per column kind: for each codec it rewrites
// replies, scores and model_calls with every column in that codec, and
// prints the CPU time of the write and of the codec alone (per column kind:
// long texts, short strings, numbers and booleans), the bytes before and
// after, and how fast DuckDB reads the files back.
//
//	go build -o bench/codecs ./scripts/bench/codecs
//	bench/codecs -data bench/out [-runs 3]
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	_ "github.com/duckdb/duckdb-go/v2"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/format"

	"empties/internal/store"
	"empties/schema"
)

func main() {
	data := flag.String("data", "bench/out", "dataset `DIR` whose tables are rewritten")
	work := flag.String("work", "bench/codecs", "`DIR` for the rewritten files")
	runs := flag.Int("runs", 3, "runs of each write and query; the fastest counts")
	only := flag.String("codecs", "", "comma-separated codecs to measure (default all)")
	flag.Parse()
	replies, err := store.ReadAll[schema.Reply](*data, "replies")
	check(err)
	scores, err := store.ReadAll[schema.Score](*data, "scores")
	check(err)
	calls, err := store.ReadAll[schema.ModelCall](*data, "model_calls")
	check(err)
	fmt.Printf("%d replies, %d scores, %d model_calls rows from %s; best of %d runs; write s = the process's CPU s (user+sys) writing the file, codec s = the CPU s of the codec's Encode calls\n",
		len(replies), len(scores), len(calls), *data, *runs)
	check(os.MkdirAll(*work, 0o755))
	var names []string
	for n := range store.CandidateCodecs {
		names = append(names, n)
	}
	sort.Strings(names)
	if *only != "" {
		names = strings.Split(*only, ",")
	}
	db, err := sql.Open("duckdb", "?threads=2")
	check(err)
	defer db.Close()
	fmt.Printf("\n%-16s%-12s%9s%9s%9s%9s%10s   %s\n", "codec", "table", "write s", "codec s", "raw MB", "file MB", "codec MB/s", "by kind: codec s, MB -> MB")
	for _, name := range names {
		dir := filepath.Join(*work, strings.ReplaceAll(name, "/", "-"))
		check(os.MkdirAll(dir, 0o755))
		var tot [2]float64
		tot = measure(name, "replies", replies, dir, *runs, tot)
		tot = measure(name, "scores", scores, dir, *runs, tot)
		tot = measure(name, "model_calls", calls, dir, *runs, tot)
		fmt.Printf("%-16s%-12s%9.3f%9.3f\n", name, "all three", tot[0], tot[1])
		readSpeed(db, name, dir, *runs)
	}
}

// measure writes rows with every column in codec name and prints the costs.
func measure[T any](name, table string, rows []T, dir string, runs int, tot [2]float64) [2]float64 {
	path := filepath.Join(dir, table+".parquet")
	best, bestCodec := 1e9, 1e9
	var st *stats
	for range runs {
		s := &stats{by: map[string]*kindStats{}}
		cpu := processCPU(func() {
			f, err := os.Create(path)
			check(err)
			w := store.NewWriterWith[T](f, func(col []string, kind parquet.Kind) compress.Codec {
				return meter{store.CandidateCodecs[name], s, kindOf(col, kind)}
			})
			_, err = w.Write(rows)
			check(err)
			check(w.Close())
			check(f.Close())
		})
		if cpu < best {
			best, st = cpu, s
		}
		bestCodec = min(bestCodec, st.total())
	}
	fi, err := os.Stat(path)
	check(err)
	var kinds []string
	raw := 0
	for k, ks := range st.by {
		kinds = append(kinds, fmt.Sprintf("%s %.3fs %.1f->%.1f", k, ks.seconds, float64(ks.in)/1e6, float64(ks.out)/1e6))
		raw += ks.in
	}
	sort.Strings(kinds)
	fmt.Printf("%-16s%-12s%9.3f%9.3f%9.1f%9.1f%10.0f   %s\n", name, table, best, st.total(), float64(raw)/1e6, float64(fi.Size())/1e6,
		float64(raw)/1e6/max(st.total(), 1e-9), strings.Join(kinds, "; "))
	return [2]float64{tot[0] + best, tot[1] + st.total()}
}

// longTexts are the columns that hold texts whole (replies, prompts,
// explanations, JSON); the other string columns hold ids, names and
// classes.
var longTexts = map[string]bool{"text": true, "reasoning_text": true, "final_completion": true, "sample_metadata": true,
	"prompt_text": true, "answer": true, "explanation": true, "metadata": true}

// kindOf is the column kind the report groups by: long text, short string
// (and list items), number or boolean.
func kindOf(col []string, kind parquet.Kind) string {
	switch {
	case kind == parquet.ByteArray && len(col) == 1 && longTexts[col[0]]:
		return "text"
	case kind == parquet.ByteArray:
		return "short"
	case kind == parquet.Boolean:
		return "bool"
	}
	return "number"
}

type kindStats struct {
	seconds float64
	in, out int
}

type stats struct {
	mu sync.Mutex
	by map[string]*kindStats
}

func (s *stats) total() float64 {
	t := 0.0
	for _, k := range s.by {
		t += k.seconds
	}
	return t
}

// meter is a codec that counts the time and bytes of its Encode calls.
type meter struct {
	compress.Codec
	s    *stats
	kind string
}

func (m meter) String() string                            { return m.Codec.String() }
func (m meter) CompressionCodec() format.CompressionCodec { return m.Codec.CompressionCodec() }
func (m meter) Encode(dst, src []byte) ([]byte, error) {
	runtime.LockOSThread()
	t := threadClock()
	out, err := m.Codec.Encode(dst, src)
	d := threadClock() - t
	runtime.UnlockOSThread()
	m.s.mu.Lock()
	k := m.s.by[m.kind]
	if k == nil {
		k = &kindStats{}
		m.s.by[m.kind] = k
	}
	k.seconds += d
	k.in += len(src)
	k.out += len(out)
	m.s.mu.Unlock()
	return out, err
}

// processCPU runs fn and returns the CPU seconds (user+sys) of the
// process meanwhile, on all its threads (parquet-go writes columns on
// goroutines of its own): other load on the machine does not count.
func processCPU(fn func()) float64 {
	runtime.GC()
	var a, b syscall.Rusage
	check(syscall.Getrusage(syscall.RUSAGE_SELF, &a))
	fn()
	check(syscall.Getrusage(syscall.RUSAGE_SELF, &b))
	return tv(b.Utime) + tv(b.Stime) - tv(a.Utime) - tv(a.Stime)
}

// threadClock is the CPU seconds of the calling thread.
func threadClock() float64 {
	var ts syscall.Timespec
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 3 /* CLOCK_THREAD_CPUTIME_ID */, uintptr(unsafe.Pointer(&ts)), 0)
	return float64(ts.Sec) + float64(ts.Nsec)/1e9
}

func tv(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }

// readSpeed times DuckDB reading the files: every column of every table
// materialised, a scan of short columns, and a scan of the texts.
func readSpeed(db *sql.DB, name, dir string, runs int) {
	q := func(table string) string {
		return fmt.Sprintf("read_parquet('%s')", filepath.Join(dir, table+".parquet"))
	}
	queries := []struct{ label, sql string }{
		{"all columns", fmt.Sprintf("SELECT count(*) FROM (SELECT * FROM %s UNION ALL BY NAME SELECT * FROM %s UNION ALL BY NAME SELECT * FROM %s) t WHERE t IS NOT NULL", q("replies"), q("scores"), q("model_calls"))},
		{"short columns", fmt.Sprintf("SELECT class, model, task, count(*), sum(output_tokens) FROM %s GROUP BY ALL", q("replies"))},
		{"texts", fmt.Sprintf("SELECT sum(length(text)) + sum(length(final_completion)) FROM %s UNION ALL SELECT sum(length(prompt_text)) FROM %s UNION ALL SELECT sum(length(metadata)) FROM %s", q("replies"), q("model_calls"), q("scores"))},
	}
	var out []string
	for _, qq := range queries {
		best := 1e9
		for range runs {
			t := time.Now()
			rows, err := db.QueryContext(context.Background(), qq.sql)
			check(err)
			for rows.Next() {
			}
			check(rows.Err())
			rows.Close()
			best = min(best, time.Since(t).Seconds())
		}
		out = append(out, fmt.Sprintf("%s %.3fs", qq.label, best))
	}
	fmt.Printf("%-16s%-12s   DuckDB reads (wall, 2 threads): %s\n", name, "", strings.Join(out, "; "))
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "codecs:", err)
		os.Exit(1)
	}
}
