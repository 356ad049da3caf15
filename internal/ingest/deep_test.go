package ingest_test

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"empties/internal/testutil"
)

// deepSpanDepth is how many spans the deep log nests between the scorer
// span and the judge's call: far past any limit a walk could have.
const deepSpanDepth = 20_000

// deepSpanLog writes, into dir, output-without-call.eval (a real log whose
// only model events are judge calls under scorers > scorer spans, the
// reply being sample.output) with every judge call moved deepSpanDepth
// spans deeper: untyped spans, each the child of the one before, the first
// a child of the scorer span, as a scorer that opens nested spans
// (inspect_ai.util.span) before it calls its model makes them. The members
// are otherwise as inspect_ai wrote them.
func deepSpanLog(t *testing.T, dir string) string {
	t.Helper()
	src := testutil.Path(t, "testdata", "logs", "output-without-call.eval")
	zr, err := zip.OpenReader(src)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	zr.RegisterDecompressor(zstd.ZipMethodWinZip, zstd.ZipDecompressor())
	var members []testutil.Member
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(f.Name, "samples/") {
			body = deepenJudgeCalls(t, body)
		}
		members = append(members, testutil.Member{Name: f.Name, Method: zstd.ZipMethodWinZip, Body: body})
	}
	out := filepath.Join(dir, "2026-12-01T10-05-41-00-00_deep-spans.eval")
	if err := os.WriteFile(out, testutil.Zip(t, members...), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// deepenJudgeCalls nests each model event of a sample deepSpanDepth spans
// below the span it was in.
func deepenJudgeCalls(t *testing.T, sample []byte) []byte {
	t.Helper()
	var s map[string]json.RawMessage
	if err := json.Unmarshal(sample, &s); err != nil {
		t.Fatal(err)
	}
	var events []map[string]any
	dec := json.NewDecoder(bytes.NewReader(s["events"]))
	dec.UseNumber()
	if err := dec.Decode(&events); err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	moved := 0
	for _, e := range events {
		if e["event"] != "model" {
			out = append(out, e)
			continue
		}
		parent, _ := e["span_id"].(string)
		if parent == "" {
			t.Fatal("a model event without span_id")
		}
		ts := e["timestamp"]
		var ids []string
		for d := range deepSpanDepth {
			id := fmt.Sprintf("deep%02d%06d", moved, d)
			out = append(out, map[string]any{"event": "span_begin", "id": id, "span_id": id, "parent_id": parent,
				"name": fmt.Sprintf("level%d", d), "timestamp": ts, "working_start": 0.0})
			ids, parent = append(ids, id), id
		}
		e["span_id"] = parent
		out = append(out, e)
		for d := len(ids) - 1; d >= 0; d-- {
			out = append(out, map[string]any{"event": "span_end", "id": ids[d], "span_id": ids[d], "timestamp": ts, "working_start": 0.0})
		}
		moved++
	}
	if moved == 0 {
		t.Fatal("no model event to move")
	}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	s["events"] = b
	b, err = json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A judge's call 20,000 spans below its scorer span is a judge's call: the
// ancestry is walked to the root. The reply stays sample.output (the
// outside agent's answer), as inspect_ai's own objects give it
// (the differential test reads the same log).
func TestJudgeAtAnyDepth(t *testing.T) {
	logs := t.TempDir()
	deepSpanLog(t, logs)
	dir, _, stderr, err := runIngest(t, logs)
	if err != nil {
		t.Fatalf("ingest: %v\n%s", err, stderr)
	}
	calls := testutil.Query(t, dir, `SELECT kind, kind_reason, coalesce(scorer, 'NULL'), count(*) FROM model_calls GROUP BY ALL`)
	if len(calls) != 1 || strings.Join(calls[0], " ") != "judge scorer_span model_graded_qa 2" {
		t.Errorf("model calls %v, want the 2 judge calls under scorer_span model_graded_qa", calls)
	}
	replies := testutil.Query(t, dir, `SELECT reply_source, text FROM replies ORDER BY sample_id`)
	if len(replies) != 2 {
		t.Fatalf("replies %v", replies)
	}
	for _, r := range replies {
		if r[0] != "sample_output" || strings.Contains(r[1], "GRADE") {
			t.Errorf("reply %v: want sample.output, never the judge's text", r)
		}
	}
	runDifftest(t, false, nil, logs)
}
