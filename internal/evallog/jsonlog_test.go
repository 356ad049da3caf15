package evallog

import (
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
	  "eval": {"task": "t", "model": "m/x", "created": "2025-01-01T00:00:00+00:00"}}`
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
