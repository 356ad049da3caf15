package samplecmd_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"empties/internal/cliutil"
	"empties/internal/ingest/ingesttest"
	"empties/internal/sample"
	"empties/stages/samplecmd"
)

func draw(t *testing.T, data, out string, seed int64, per int) []samplecmd.Item {
	t.Helper()
	var buf bytes.Buffer
	if err := samplecmd.Run(context.Background(), samplecmd.Options{Config: sample.Config{PerClass: per, Seed: seed}, Data: data, Out: out}, &buf); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(out, "review-seed"+strconv.FormatInt(seed, 10)+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var items []samplecmd.Item
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var it samplecmd.Item
		if err := json.Unmarshal(sc.Bytes(), &it); err != nil {
			t.Fatal(err)
		}
		items = append(items, it)
	}
	return items
}

func TestSampleHTMLEscapesAndCoversDraw(t *testing.T) {
	data := ingesttest.Fixtures(t, "classify", "logs")
	out := t.TempDir()
	items := draw(t, data, out, 5, 50)
	// The JSONL holds the draw, in its order.
	d, err := sample.Select(context.Background(), data, sample.Config{PerClass: 50, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(items)
	want, _ := json.Marshal(d.Items)
	if len(items) == 0 || !bytes.Equal(got, want) {
		t.Errorf("the JSONL holds %d items, the draw %d, or they differ", len(items), len(d.Items))
	}
	page, err := os.ReadFile(filepath.Join(out, "review-seed5.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		if !bytes.Contains(page, []byte("sample "+it.SampleID+" epoch")) {
			t.Errorf("page lacks %s/%s", it.Class, it.SampleID)
		}
	}
	// Raw fields are shown as stored, escaped once for HTML: never quoted
	// again (a sample_error with \n and quotes read \\n before).
	text := html.UnescapeString(string(page))
	errs := 0
	for _, it := range items {
		if it.SampleError == nil {
			continue
		}
		errs++
		if !strings.Contains(text, *it.SampleError) {
			t.Errorf("%s: the page does not show its sample_error as stored: %q", it.SampleID, *it.SampleError)
		}
		if q := strconv.Quote(*it.SampleError); strings.Contains(text, q) {
			t.Errorf("%s: the page quotes its sample_error again: %s", it.SampleID, q)
		}
	}
	if errs == 0 {
		t.Error("no drawn reply has a sample_error: the check above checked nothing")
	}
	// Tool calls read "none" or their count and functions, never "0 " with
	// nothing after it.
	calls := 0
	for _, it := range items {
		want := "none (tools offered: "
		if it.ToolCallCount > 0 {
			want, calls = fmt.Sprintf("%d: %s (tools offered: ", it.ToolCallCount, strings.Join(it.ToolFunctions, ", ")), calls+1
		}
		if !strings.Contains(text, want) {
			t.Errorf("%s: the page lacks its tool calls %q", it.SampleID, want)
		}
	}
	if calls == 0 || strings.Contains(text, "0  (tools offered") {
		t.Errorf("no drawn reply has tool calls (%d), or one without reads \"0  (tools offered\"", calls)
	}
	if bytes.Contains(page, []byte("<think>")) {
		t.Errorf("raw model text reached the page unescaped")
	}
	if !bytes.Contains(page, []byte("&lt;think&gt;")) {
		t.Errorf("the unterminated-think reply is missing from the page")
	}
}

// A --class that is no reply class is a usage error (exit code 2) naming
// the classes, before anything is read or written.
func TestUnknownClassIsAUsageError(t *testing.T) {
	out := filepath.Join(t.TempDir(), "review")
	err := samplecmd.Run(context.Background(), samplecmd.Options{Config: sample.Config{PerClass: 1, Classes: []string{"answer", "nope"}}, Data: t.TempDir(), Out: out}, &bytes.Buffer{})
	var usage *cliutil.UsageError
	if !errors.As(err, &usage) || !strings.Contains(err.Error(), `--class "nope" is no reply class (the classes: `) || !strings.Contains(err.Error(), "answer") {
		t.Errorf("err %v, want a usage error naming the classes", err)
	}
	if _, err := os.Lstat(out); err == nil {
		t.Errorf("%s was made", out)
	}
}
