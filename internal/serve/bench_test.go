package serve

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"empties/internal/classify"
	"empties/internal/store"
	"empties/schema"
)

// benchRows is the size of the benchmark's replies table.
const benchRows = 1_000_000

var benchOnce struct {
	sync.Once
	dir string
	err error
}

// benchDataset writes, once per process, a dataset of benchRows synthetic
// replies (and their logs) through the real store writer and schema: 11
// classes in skewed shares, 24 tasks, 12 models, 600 logs, texts of 40-400
// characters.
func benchDataset(b *testing.B) string {
	benchOnce.Do(func() {
		dir, err := os.MkdirTemp("", "empties-serve-bench-")
		if err != nil {
			benchOnce.err = err
			return
		}
		benchOnce.dir = filepath.Join(dir, "ds")
		benchOnce.err = writeSynthetic(benchOnce.dir, benchRows, 600)
	})
	if benchOnce.err != nil {
		b.Fatal(benchOnce.err)
	}
	return benchOnce.dir
}

func writeSynthetic(dir string, n, nLogs int) error {
	d, err := store.Create(store.Stage{Name: schema.StageIngest}, dir)
	if err != nil {
		return err
	}
	defer d.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	classes := classify.Classes()
	weights := []int{2, 1, 1, 1, 1, 2, 5, 3, 2, 4, 78} // answer most often
	pick := func() string {
		x := rng.IntN(100)
		for i, w := range weights {
			if x < w {
				return classes[i]
			}
			x -= w
		}
		return classes[len(classes)-1]
	}
	words := strings.Fields("the model answered with a long explanation of why the question about chemistry and history cannot be settled without more data so it refuses politely and then offers an alternative")
	logs := make([]schema.Log, nLogs)
	for i := range logs {
		logs[i] = schema.Log{LogID: fmt.Sprintf("log%04d", i), Path: fmt.Sprintf("/logs/run-%04d.eval", i), SHA256: "x", Format: "eval",
			Version: 2, Status: "success", HeaderSource: "header.json", Task: fmt.Sprintf("task_%02d", i%24), Model: fmt.Sprintf("provider/model-%02d", i%12),
			SetStatus: "counted", IngestVersion: "bench", Tags: []string{}}
		if i%50 == 49 {
			logs[i].SetStatus = "superseded"
		}
	}
	lw, err := store.NewSink[schema.Log](d, "logs")
	if err != nil {
		return err
	}
	lw.Write(logs)
	if err := lw.Close(); err != nil {
		return err
	}
	rw, err := store.NewSink[schema.Reply](d, "replies")
	if err != nil {
		return err
	}
	stops := []string{"stop", "stop", "stop", "max_tokens", "tool_calls", "content_filter"}
	batch := make([]schema.Reply, 0, 8192)
	for i := range n {
		l := logs[i*nLogs/n] // ingest writes a log's rows together
		var sb strings.Builder
		for range 8 + rng.IntN(60) {
			sb.WriteString(words[rng.IntN(len(words))])
			sb.WriteByte(' ')
		}
		class := pick()
		stop := stops[rng.IntN(len(stops))]
		r := schema.Reply{LogID: l.LogID, Task: l.Task, Model: l.Model, SampleID: fmt.Sprint(i % (n / nLogs)), SampleIDType: "int", Epoch: 1,
			Member: fmt.Sprintf("samples/%d_epoch_1.json", i%(n/nLogs)), ReplySource: "model_event", StopReason: &stop,
			Text: sb.String(), TextChars: int64(sb.Len()), MaxTokensSource: "unset", ToolCallFunctions: []string{},
			Class: class, ClassRule: class + "@" + classify.Version, NonAnswer: classify.NonAnswer(class, nil),
			FinalClass: class, FinalClassRule: class + "@" + classify.Version, FinalNonAnswer: classify.NonAnswer(class, nil)}
		if i%97 == 0 {
			r.FailedAttempts = 1
		}
		batch = append(batch, r)
		if len(batch) == cap(batch) {
			rw.Write(batch)
			batch = make([]schema.Reply, 0, 8192)
		}
	}
	rw.Write(batch)
	if err := rw.Close(); err != nil {
		return err
	}
	return d.Commit()
}

// BenchmarkBrowse times one page of the replies browser over benchRows
// replies: the facet counts and the page's rows, as a reader's click asks
// for them. It prints each case's time per page.
func BenchmarkBrowse(b *testing.B) {
	dir := benchDataset(b)
	ctx := context.Background()
	scratch := b.TempDir()
	start := time.Now()
	g, err := openGeneration(ctx, dir, scratch, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	var released sync.WaitGroup
	defer released.Wait()
	defer g.release(dir, &released)
	var mem int64
	if err := g.db.QueryRowContext(ctx, "SELECT sum(memory_usage_bytes) FROM duckdb_memory() WHERE tag = 'IN_MEMORY_TABLE'").Scan(&mem); err != nil {
		b.Fatal(err)
	}
	fmt.Printf("opened a generation of %d replies in %.1f s (index and first counts; the index holds %.0f MB)\n", benchRows, time.Since(start).Seconds(), float64(mem)/1e6)
	for _, c := range []struct{ name, query string }{
		{"unfiltered", ""},
		{"class", "class=truncated_empty"},
		{"class×model", "class=truncated_empty&class=silent&model=provider/model-03"},
		{"class×task×model sorted", "class=tool_only&task=task_05&model=provider/model-05&sort=chars&dir=desc"},
		{"text search", "q=alternative+offers&class=answer"},
		{"page 200", "class=answer&page=200"},
	} {
		b.Run(c.name, func(b *testing.B) {
			v, _ := url.ParseQuery(c.query)
			f := parseFilter(v, activeFacets(g.tables))
			var res *browseResult
			var times []time.Duration
			for b.Loop() {
				t := time.Now()
				if res, err = browse(ctx, g, f); err != nil {
					b.Fatal(err)
				}
				times = append(times, time.Since(t))
			}
			b.ReportMetric(float64(res.Total), "rows")
			first := times[0]
			slices.Sort(times)
			fmt.Printf("browse %-26s first %7.1f ms, median %7.1f ms of %d (%d of %d replies match)\n", c.name,
				ms(first), ms(times[len(times)/2]), len(times), res.Total, benchRows)
		})
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
