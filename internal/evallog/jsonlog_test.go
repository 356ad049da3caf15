package evallog

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeTemp(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestOpenJSONAnyKeyOrder(t *testing.T) {
	// samples before eval, a string with braces and escaped quotes, a NaN in
	// results, a byte order mark, reductions to skip.
	body := "\xef\xbb\xbf" + `{"samples": [{"id": "a", "epoch": 1, "metadata": {"t": "}{ \"]"}},
	  {"id": 2, "epoch": 1}], "reductions": [{"scorer": "x", "samples": []}],
	  "status": "success", "version": 2, "results": {"scores": [{"name": "s", "metrics": {"m": {"value": NaN}}}]},
	  "eval": {"task": "t", "model": "m/x", "created": "2025-01-01T00:00:00+00:00", "dataset": {}, "config": {}}}`
	l, err := Open(writeTemp(t, "log.json", body))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if l.Format != FormatJSON || l.Header.Status != "success" || l.Header.Eval.Task != "t" {
		t.Fatalf("header: %+v", l.Header)
	}
	if !strings.Contains(string(l.Header.Results), "NaN") {
		t.Errorf("results lost the NaN: %s", l.Header.Results)
	}
	if len(l.Samples) != 2 {
		t.Fatalf("samples: %d", len(l.Samples))
	}
	for i, want := range []string{`"a"`, `2`} {
		raw, err := l.Samples[i].Bytes()
		if err != nil {
			t.Fatal(err)
		}
		d, err := DecodeSample(raw, "")
		if err != nil {
			t.Fatalf("sample %d (%s): %v", i, raw, err)
		}
		if string(d.ID) != want {
			t.Errorf("sample %d id = %s, want %s", i, d.ID, want)
		}
	}
}

func TestOpenJSONTruncated(t *testing.T) {
	_, err := Open(writeTemp(t, "cut.json", `{"version": 2, "eval": {"task": "t"}, "samples": [{"id": 1, "ep`))
	if err == nil || !strings.Contains(err.Error(), "truncated") {
		t.Fatalf("want a truncation error, got %v", err)
	}
}

func TestOpenRejectsNonLogs(t *testing.T) {
	for name, body := range map[string]string{
		"list.json":  `[1, 2]`,
		"text.eval":  `hello`,
		"empty.json": ``,
	} {
		if _, err := Open(writeTemp(t, name, body)); err == nil {
			t.Errorf("%s opened as a log", name)
		}
	}
}

// value captures a whole value exactly, whatever the buffer size: a tiny
// buffer puts every escape, quote and bracket across a refill boundary.
func TestScannerCapturesAcrossRefills(t *testing.T) {
	docs := []string{
		`{"a": "x\"y\\", "b": [1, {"c": "\\\\\"}"}], "d": "\u00e9 ]}"}`,
		`["", "\\", "\"", "a\\\"b", [[[]]], {}, -1.5e3, true, null]`,
		`"a long string with \n escapes \t and \"quotes\" and } ] brackets"`,
	}
	for _, doc := range docs {
		for size := 1; size <= 9; size++ {
			s := &scanner{r: strings.NewReader(doc + " "), buf: make([]byte, 0, size)}
			got, err := s.value([]byte{})
			if err != nil {
				t.Fatalf("buffer %d: %s: %v", size, doc, err)
			}
			if string(got) != doc {
				t.Fatalf("buffer %d: captured %s, want %s", size, got, doc)
			}
		}
	}
}

func FuzzScannerCapture(f *testing.F) {
	f.Add(`{"a": "x\"y\\", "b": [1, 2]}`, 3)
	f.Add(`["\\\\\"", {"k": null}]`, 1)
	f.Fuzz(func(t *testing.T, doc string, size int) {
		if size < 1 || size > 64 || !json.Valid([]byte(doc)) {
			return
		}
		doc = strings.TrimSpace(doc)
		s := &scanner{r: strings.NewReader(doc + " "), buf: make([]byte, 0, size)}
		got, err := s.value([]byte{})
		if err != nil || string(got) != doc {
			t.Fatalf("buffer %d: captured %q (%v), want %q", size, got, err, doc)
		}
	})
}
