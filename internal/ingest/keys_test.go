package ingest_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"empties/internal/cliutil"
	"empties/internal/evallog"
	"empties/internal/testutil"
)

// A sample (id and epoch) is one row of its log however many members hold
// it: beside samples/1_epoch_1.json, members samples/../../x.json and
// samples/..\..\evil_epoch_1.json holding the same sample (inspect_ai's
// read_eval_log takes every samples/*.json member for a sample, and would
// give it three times) are each an ingest_errors row naming the member, and
// the tables keep the member inspect_ai's read_eval_log_sample reads, the
// one of the sample's own name, whatever the order; in a .json log the
// first of the samples holding it. The exit code is 1; the log's other
// samples are read. (They once gave three replies, scores and model_calls
// rows for one key, with exit code 0.)
func TestOneRowPerSampleKey(t *testing.T) {
	dir := t.TempDir()
	src := testutil.Path(t, "testdata", "logs", "deflate.eval")
	crafted := filepath.Join(dir, "extra-members.eval")
	var one []byte
	testutil.RewriteZip(t, src, crafted, func(name string, body []byte) []byte {
		if name == "samples/1_epoch_1.json" {
			one = body
		}
		return body
	}, `samples/../../x.json`, `samples/..\..\evil_epoch_1.json`, "samples/0_epoch_1.json")
	testutil.RewriteZip(t, crafted, crafted+".tmp", func(name string, body []byte) []byte {
		switch name {
		case `samples/../../x.json`, `samples/..\..\evil_epoch_1.json`, "samples/0_epoch_1.json":
			return one // sample 1 epoch 1 again; the last one listed before its own member in the reader's order
		}
		return body
	})
	os.Rename(crafted+".tmp", crafted)

	jsonSrc := testutil.Path(t, "testdata", "logs", "string-ids.json")
	doc, err := os.ReadFile(jsonSrc)
	if err != nil {
		t.Fatal(err)
	}
	var top struct {
		Samples json.RawMessage `json:"samples"`
	}
	var samples []json.RawMessage
	if err := json.Unmarshal(doc, &top); err != nil || json.Unmarshal(top.Samples, &samples) != nil || len(samples) < 2 {
		t.Fatalf("string-ids.json: %v, %d samples", err, len(samples))
	}
	dup := append([]json.RawMessage{samples[0]}, samples...)
	dup = append(dup, samples[1])
	arr, _ := json.Marshal(dup)
	if bytes.Count(doc, top.Samples) != 1 {
		t.Fatal("the samples array is not found once in the document")
	}
	jsonLog := filepath.Join(dir, "dup-samples.json")
	os.WriteFile(jsonLog, bytes.Replace(doc, top.Samples, arr, 1), 0o644)

	out, res, stderr, err := runIngest(t, crafted, jsonLog)
	var partial *cliutil.PartialError
	if !errors.As(err, &partial) || !strings.Contains(err.Error(), "5 sample members hold a sample that another member of their log holds") {
		t.Errorf("err %v, want a partial failure counting the 5 extra holders", err)
	}
	for _, table := range []string{"replies", "scores", "model_calls"} {
		key := "log_id, sample_id, epoch"
		if table == "scores" {
			key += ", scorer"
		} else if table == "model_calls" {
			key += ", call_index"
		}
		if got := testutil.Query(t, out, "SELECT count(*) FROM (SELECT "+key+" FROM "+table+" GROUP BY ALL HAVING count(*) > 1)")[0][0]; got != "0" {
			t.Errorf("%s: %s keys held by more than one row", table, got)
		}
	}
	want := testutil.Query(t, out, "SELECT count(*) FROM replies WHERE log_id IN (SELECT log_id FROM logs WHERE path = ?)", crafted)[0][0]
	l, err := evallog.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	if n := strconv.Itoa(len(l.Samples)); want != n {
		t.Errorf("the crafted log gives %s replies, its original %s samples", want, n)
	}
	l.Close()
	if got := testutil.Query(t, out, "SELECT count(*) FROM replies r JOIN logs l USING (log_id) WHERE l.path = ?", jsonLog)[0][0]; got != strconv.Itoa(len(samples)) {
		t.Errorf("the .json log gives %s replies, want one per sample, %d", got, len(samples))
	}
	if got := testutil.Query(t, out, "SELECT member FROM replies r JOIN logs l USING (log_id) WHERE l.path = ? AND sample_id = '1'", crafted); len(got) != 1 || got[0][0] != "samples/1_epoch_1.json" {
		t.Errorf("sample 1 is read from %v, want samples/1_epoch_1.json", got)
	}
	errs := testutil.Query(t, out, "SELECT path, member, error FROM ingest_errors ORDER BY path, member")
	if len(errs) != 5 {
		t.Fatalf("ingest_errors %v, want 5 rows", errs)
	}
	for i, m := range []string{`samples/..\..\evil_epoch_1.json`, `samples/../../x.json`, "samples/0_epoch_1.json"} {
		found := false
		for _, e := range errs {
			found = found || e[0] == crafted && e[1] == m && strings.Contains(e[2], "which the member samples/1_epoch_1.json holds")
		}
		if !found {
			t.Errorf("no ingest_errors row for %s (%d): %v", m, i, errs)
		}
	}
	if !strings.Contains(stderr, "error: "+crafted+": samples/../../x.json: holds sample 1 epoch 1") {
		t.Errorf("stderr does not name the member:\n%s", stderr)
	}
	_ = res
}
