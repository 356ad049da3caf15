package evallog

import (
	"encoding/json"
	"os"
	"testing"
)

// compactJSON drops the spaces outside strings, so that raw JSON written
// with indentation compares with Python's compact json.dumps text.
func compactJSON(raw []byte) string {
	var out []byte
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; c {
		case ' ', '\n', '\t', '\r':
		case '"':
			end := stringEnd(raw, i)
			if end < 0 {
				return string(append(out, raw[i:]...))
			}
			out = append(out, raw[i:end]...)
			i = end - 1
		default:
			out = append(out, c)
		}
	}
	return string(out)
}

// A sample holding both bare NaN/Infinity and strings that spell what the
// decoder once rewrote them into ("\u0000NaN") reads as inspect_ai reads it,
// by the whole decode and by the stream decode: the strings stay strings
// and only the bare tokens are non-finite. testdata/nan-strings is written
// by scripts/fixtures/nan_strings.py (a real eval, read back with
// read_eval_log for expect.json).
func TestNaNLookalikeStringsStayStrings(t *testing.T) {
	var want map[string]string
	b, err := os.ReadFile("testdata/nan-strings/expect.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{"nan-strings.eval", "nan-strings.json"} {
		l, err := Open("testdata/nan-strings/" + file)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		if len(l.Samples) != 1 {
			t.Fatalf("%s: %d samples", file, len(l.Samples))
		}
		ref := l.Samples[0]
		decodes := map[string]func(d *DecodedSample) error{
			"whole": func(d *DecodedSample) error {
				raw, err := ref.Bytes()
				if err != nil {
					return err
				}
				return d.Decode(raw, "")
			},
			"stream": func(d *DecodedSample) error { return d.DecodeStream(ref, "") },
		}
		for name, decode := range decodes {
			t.Run(file+"/"+name, func(t *testing.T) {
				var d DecodedSample
				if err := decode(&d); err != nil {
					t.Fatal(err)
				}
				if len(d.Scores) != 1 {
					t.Fatalf("scores %v", d.Scores)
				}
				var s Score
				for _, s = range d.Scores {
				}
				got := map[string]string{
					"metadata":       compactJSON(d.Metadata),
					"score_value":    compactJSON(s.Value),
					"score_answer":   compactJSON(s.Answer),
					"score_metadata": compactJSON(s.Metadata),
				}
				for k, w := range want {
					if got[k] != w {
						t.Errorf("%s: %s, inspect_ai reads %s", k, got[k], w)
					}
				}
			})
		}
	}
}
