package evallog

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// repeatScanCases are documents with and without a repeated key, at the
// places the scan could lose track: after indentation, around escaped
// quotes and backslashes, in objects past the filter's 32 keys, in arrays
// of objects, and invalid ones.
func repeatScanCases() []string {
	many := func(n int, dup bool) string {
		var b strings.Builder
		b.WriteString("{")
		for i := range n {
			fmt.Fprintf(&b, `"key_%03d": %d, `, i, i)
		}
		if dup {
			b.WriteString(`"key_007": 0, `)
		}
		b.WriteString(`"end": 0}`)
		return b.String()
	}
	return []string{
		`{"a": 1, "b": 2}`,
		`{"a": 1, "a": 2}`,
		"{\n        \"a\": 1,\n        \"a\": 2}",
		"{\n        \"a\": 1,\n                \"b\": {\"a\": 2}}",
		"{        \"a\": 1,        \"a\": 2}",
		`{"a": "x\"", "a": 2}`,
		`{"a": "x\\", "a": 2}`,
		`{"a": "x\\\"", "b": "\\\\", "a": 2}`,
		`{"a\"": 1, "a": 2}`,
		`{"a": 1, "\u0061": 2}`,
		`{"a": {"x": 1, "x": [1, {"y": 1, "y": 2}]}, "b": 0}`,
		`[{"k": 1}, {"k": 1}]`,
		`[{"k": 1}, {"k": 1, "k": 2}]`,
		`{"a": [1, 2, "a"], "b": ["a", {"c": 1}], "c": 2}`,
		`{"abcdefghij": 1, "abcdefghiJ": 2, "Abcdefghij": 3}`,
		`{"long key of more than eight bytes": 1, "long key of more than eight bytes": 2}`,
		many(31, false), many(31, true), many(32, false), many(32, true), many(100, false), many(100, true),
		`{"a": "x", "a": `, `{"a": 1, "a": 2`, `{"a": 1, "a": 2}}`, `{"a": "x\`, `}{"a": 1, "a": 2}`,
		`{"a": NaN, "a": Infinity}`, `{"Y": 1, "y": {"_": [true, null]}, "_": -Infinity}`,
	}
}

// The scan answers false only where the rewrite leaves the document as it
// is, and true wherever the rewrite drops a member (no case here holds a
// hash collision, and an escaped key or invalid JSON may make it answer
// true for nothing).
func TestMayRepeatKeyAgreesWithTheRewrite(t *testing.T) {
	for _, c := range repeatScanCases() {
		_, changed := dropRepeatedKeys([]byte(c))
		may := mayRepeatKey([]byte(c))
		if changed && !may {
			t.Errorf("%.80s: the rewrite drops a member, the scan finds no repeated key", c)
		}
		if may && !changed && !strings.Contains(c, `\`) && json.Valid([]byte(c)) {
			t.Errorf("%.80s: the scan finds a repeated key the rewrite does not", c)
		}
	}
}

// No sample of the fixtures and corpora repeats a key, and the scan sees
// that for every one of them: real logs never pay for the rewrite.
func TestMayRepeatKeyPassesRealSamples(t *testing.T) {
	raws, _ := corpusSamples(t)
	for i, raw := range raws {
		if mayRepeatKey(raw) {
			t.Errorf("sample %d (%.60q…): the scan suspects a repeated key", i, raw)
		}
	}
}

// Whatever the bytes, lastKeyWins (the scan, then the rewrite only when it
// suspects a repeated key) gives what the rewrite alone gives.
func FuzzMayRepeatKey(f *testing.F) {
	for _, c := range repeatScanCases() {
		f.Add([]byte(c))
	}
	for _, p := range seedLogs(f) {
		l, err := Open(p)
		if err != nil {
			continue
		}
		for _, ref := range l.Samples {
			if raw, err := ref.Bytes(); err == nil && len(raw) < 16<<10 {
				f.Add(raw)
			}
		}
		l.Close()
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want, wantChanged := dropRepeatedKeys(data)
		if mayRepeatKey(data) {
			return
		}
		if wantChanged {
			t.Fatalf("%q: the scan finds no repeated key, the rewrite gives %q", data, want)
		}
	})
}
