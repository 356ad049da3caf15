package evallog

import (
	"archive/zip"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"empties/internal/scorevalue"
	"empties/internal/testutil"
)

// pyFloat parses a Python float repr (inf, -inf, 2.5).
func pyFloat(t *testing.T, s string) float64 {
	t.Helper()
	switch s {
	case "inf":
		return math.Inf(1)
	case "-inf":
		return math.Inf(-1)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("python repr %q: %v", s, err)
	}
	return f
}

// Sample ids, score values and float fields read as the pinned inspect_ai
// reads them: testdata/python-values.tsv is written by
// scripts/fixtures/python_values.py through EvalSample.model_validate_json
// and value_to_float (`make fixtures`).
func TestValuesAsPythonReadsThem(t *testing.T) {
	tsv, err := os.ReadFile("testdata/python-values.tsv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(tsv)), "\n")[1:]
	seen := map[string]int{}
	for _, line := range lines {
		f := strings.Split(line, "\t")
		place, lit, want := f[0], f[1], f[2]
		seen[place]++
		t.Run(place+" "+lit[:min(len(lit), 24)], func(t *testing.T) {
			switch place {
			case "id":
				d, err := DecodeSample([]byte(`{"id": `+lit+`, "epoch": 1}`), "")
				if want == "error" {
					if err == nil {
						id, kind := d.IDString()
						t.Fatalf("id %s read as %s %q; inspect_ai refuses it", lit, kind, id)
					}
					if !strings.Contains(err.Error(), "sample") {
						t.Errorf("error does not say what: %v", err)
					}
					return
				}
				if err != nil {
					t.Fatalf("id %s: %v; inspect_ai reads %s", lit, err, want)
				}
				if id, kind := d.IDString(); kind+":"+id != want {
					t.Errorf("id %s read as %s:%s, inspect_ai reads %s", lit, kind, id, want)
				}
			case "score":
				pyType, pyValue, _ := strings.Cut(want, " ")
				d, err := DecodeSample([]byte(`{"id": 1, "epoch": 1, "scores": {"s": {"value": `+lit+`}}}`), "")
				if strings.HasPrefix(pyValue, "error:") {
					if err == nil || !strings.Contains(err.Error(), "scores.s") || !strings.Contains(err.Error(), strings.TrimPrefix(pyValue, "error:")) {
						t.Fatalf("value %.30s: err %v; value_to_float raises %s", lit, err, pyValue)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				raw := d.Scores["s"].Value
				kind, fl, _ := scorevalue.Project(raw)
				if kind != pyType {
					t.Errorf("value %s: kind %s, python type %s", lit, kind, pyType)
				}
				if w := pyFloat(t, pyValue); fl == nil || *fl != w {
					t.Errorf("value %s: value_to_float %v, python %v", lit, fl, w)
				}
			case "float":
				var v struct {
					W Float `json:"working_time"`
				}
				_, err := unmarshal([]byte(`{"working_time": `+lit+`}`), &v)
				if want == "error" {
					if err == nil {
						t.Fatalf("%.30s read as %v; pydantic refuses it", lit, v.W.V)
					}
					return
				}
				if err != nil || !v.W.Valid || v.W.V != pyFloat(t, want) {
					t.Errorf("%s read as %v (%v), python %s", lit, v.W.V, err, want)
				}
			default:
				t.Fatalf("unknown place %q", place)
			}
		})
	}
	if seen["id"] < 20 || seen["score"] < 10 || seen["float"] < 5 {
		t.Fatalf("python-values.tsv is short: %v", seen)
	}
}

// A repeated key keeps its last value everywhere, as json.loads and pydantic
// do (checked with the pinned .venv: scores {"s": {value 1, answer "a"}, "s":
// {value 2}} reads as value 2 with no answer; a repeated id, epoch or
// attachment takes the last). Before, goccy decoded the second object or
// list into the first: merged scores maps, events from both lists.
func TestRepeatedKeysLastWins(t *testing.T) {
	raw := []byte(`{"id": 1, "id": "z", "epoch": 1, "epoch": 2,
	  "scores": {"a": {"value": 0}}, "scores": {"s": {"value": 1, "answer": "a"}, "s": {"value": 2}},
	  "output": {"model": "m/first", "completion": "first", "choices": [{"message": {"role": "assistant", "content": "x"}, "stop_reason": "stop"}]},
	  "output": {"completion": "attachment://h"},
	  "events": [{"event": "model", "model": "m/x"}, {"event": "info"}],
	  "events": [{"event": "span_begin"}],
	  "attachments": {"h": "first", "h": "second"}}`)
	d, err := DecodeSample(raw, "")
	if err != nil {
		t.Fatal(err)
	}
	if id, kind := d.IDString(); id != "z" || kind != "str" || d.Epoch.V != 2 {
		t.Errorf("id %s (%s) epoch %d, want z (str) 2", id, kind, d.Epoch.V)
	}
	if len(d.Scores) != 1 || string(d.Scores["s"].Value) != "2" || d.Scores["s"].Answer != nil {
		t.Errorf("scores %v, want only s with value 2 and no answer", d.Scores)
	}
	if o := d.Output.ModelOutput; o == nil || o.Model != "" || len(o.Choices) != 0 || d.Resolve(o.Completion) != "second" {
		t.Errorf("output %+v, want only the second (completion resolving to the last attachment)", o)
	}
	if len(d.Events) != 1 || d.Events[0].Event != "span_begin" || d.Events[0].Model != "" {
		t.Errorf("events %+v, want the second list alone", d.Events)
	}
}

// lastKeyWins drops exactly the earlier members of repeated keys, at any
// depth, comparing keys as decoded, and leaves other documents alone.
func TestLastKeyWins(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"a": 1, "b": 2}`, ""},
		{`{"a": 1, "a": 2}`, `{"a": 2}`},
		{`{"a": {"x": 1, "x": [1, {"y": 1, "y": 2}]}, "b": 0, "a": {"z": 1}}`, `{"b": 0, "a": {"z": 1}}`},
		{`{"a": {"x": 1, "x": 2}, "b": [{"k": 1, "k": 2}, {"k": 3}]}`, `{"a": {"x": 2}, "b": [{"k": 2}, {"k": 3}]}`},
		{`{"a": 1, "\u0061": 2}`, `{"\u0061": 2}`},
		{`{"a\"": 1, "a": 2, "b": "a", "a": 3}`, `{"a\"": 1, "b": "a", "a": 3}`},
		{`[{"a": 1}, {"a": 2}]`, ""},
		{`{"a": "x", "a": `, ""}, // invalid: left to the decoder
	} {
		got, changed := lastKeyWins([]byte(c.in))
		if c.want == "" {
			if changed || string(got) != c.in {
				t.Errorf("%s changed to %s", c.in, got)
			}
			continue
		}
		if !changed || string(got) != c.want {
			t.Errorf("%s: got %s, want %s", c.in, got, c.want)
		}
	}
	// Objects of many keys (looked up in a map): the last of each wins.
	var b strings.Builder
	b.WriteString("{")
	for i := range 100 {
		fmt.Fprintf(&b, `"k%d": %d, `, i%40, i)
	}
	b.WriteString(`"end": 0}`)
	got, _ := lastKeyWins([]byte(b.String()))
	var m map[string]int
	if _, err := unmarshal(got, &m); err != nil || len(m) != 41 || m["k0"] != 80 || m["k39"] != 79 || strings.Count(string(got), `"k0"`) != 1 {
		t.Errorf("many keys: %v %s", err, got)
	}
}

// The attachment a ref names is the last occurrence of its key, and a key
// spelled inside another string is no key.
func TestLookupStringTakesTheLastKey(t *testing.T) {
	obj := []byte(`{"x\"h": "inside a key", "h": "first", "y": "\"h\": not a key", "h": "last"}`)
	if got, ok := lookupString(obj, "h"); !ok || got != "last" {
		t.Errorf("got %q %v, want the last", got, ok)
	}
	if got, ok := lookupString([]byte(`{"h": "only", "z": "\"h\": no"}`), "h"); !ok || got != "only" {
		t.Errorf("got %q %v", got, ok)
	}
}

// Header fields and the .json top level keep a repeated key's last value
// too: a second "eval" object replaces the first whole (goccy merged them),
// and a second "samples" list replaces the first.
func TestRepeatedHeaderKeysLastWins(t *testing.T) {
	eval := writeLog(t, "h.eval", testutil.Zip(t, testutil.Member{Name: "header.json", Method: zip.Deflate,
		Body: []byte(`{"version": 2, "status": "success", "eval": {"created": "2026-01-01T00:00:00+00:00", "dataset": {}, "config": {}, "task": "first", "model": "m/first"}, "eval": {"created": "2026-01-01T00:00:00+00:00", "dataset": {}, "config": {}, "task": "second", "model": "m/second"}}`)}))
	doc := `{"version": 2, "eval": {"created": "2026-01-01T00:00:00+00:00", "dataset": {}, "config": {}, "task": "first", "model": "m/first"}, "samples": [{"id": 1, "epoch": 1}, {"id": 2, "epoch": 1}],
	  "status": "success", "eval": {"created": "2026-01-01T00:00:00+00:00", "dataset": {}, "config": {}, "task": "second", "model": "m/second"}, "samples": [{"id": 3, "epoch": 1}]}`
	for _, p := range []string{eval, writeLog(t, "h.json", []byte(doc))} {
		l, err := Open(p)
		if err != nil {
			t.Fatal(err)
		}
		if e := l.Header.Eval; e.Task != "second" || e.Model != "m/second" {
			t.Errorf("%s: eval %q %q, want only the second object", filepath.Base(p), e.Task, e.Model)
		}
		if l.Format == FormatJSON {
			if len(l.Samples) != 1 {
				t.Fatalf("samples %v, want the second list", l.Samples)
			}
			raw, _ := l.Samples[0].Bytes()
			if d, err := DecodeSample(raw, ""); err != nil || d.id != "3" {
				t.Errorf("sample %s (%v), want id 3", raw, err)
			}
		}
		l.Close()
	}
}
