package evallog

import (
	"bytes"
	"math"
	"testing"

	json "github.com/goccy/go-json"
)

func TestSanitizeNonFinite(t *testing.T) {
	cases := []struct {
		name, in, want string
		changed        bool
	}{
		{"no tokens", `{"a": 1}`, `{"a": 1}`, false},
		{"bare NaN", `{"a": NaN}`, "{\"a\": \"\xffNaN\"}", true},
		{"all three", `[NaN,Infinity,-Infinity]`, "[\"\xffNaN\",\"\xffInfinity\",\"\xff-Infinity\"]", true},
		{"inside strings untouched", `{"t": "NaN and Infinity", "v": NaN}`, "{\"t\": \"NaN and Infinity\", \"v\": \"\xffNaN\"}", true},
		{"escaped quote in string", `{"t": "say \"NaN\"", "k": "Infinity"}`, `{"t": "say \"NaN\"", "k": "Infinity"}`, false},
		{"key named NaN", `{"NaN": -Infinity}`, "{\"NaN\": \"\xff-Infinity\"}", true},
		// What the sentinels used to be is text like any other.
		{"old sentinels are text", `{"s": "\u0000NaN", "t": "\u0000-Infinity", "v": NaN}`, "{\"s\": \"\\u0000NaN\", \"t\": \"\\u0000-Infinity\", \"v\": \"\xffNaN\"}", true},
		// Text that is no UTF-8 and spells a sentinel: not rewritten, so
		// the decoder's error stands.
		{"sentinel bytes in the input", "{\"s\": \"\xffNaN\", \"v\": NaN}", "{\"s\": \"\xffNaN\", \"v\": NaN}", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, changed := SanitizeNonFinite([]byte(c.in))
			if string(got) != c.want || changed != c.changed {
				t.Fatalf("SanitizeNonFinite(%s) = %s, %v; want %s, %v", c.in, got, changed, c.want, c.changed)
			}
			if back := RestoreNonFinite(got); c.changed && string(back) != c.in {
				t.Fatalf("RestoreNonFinite = %s, want %s", back, c.in)
			}
		})
	}
}

func TestFloatAndIntAcceptPythonValues(t *testing.T) {
	var v struct {
		A, B, C, D, E Float
		N, M, L, K    Int
	}
	doc := `{"A": NaN, "B": -Infinity, "C": 1.5, "D": null, "E": "2.5",
	         "N": 12.0, "M": 99999999999999999999999, "L": null, "K": 7}`
	sanitized, err := unmarshal([]byte(doc), &v)
	if err != nil || !sanitized {
		t.Fatalf("unmarshal: sanitized=%v err=%v", sanitized, err)
	}
	if !v.A.Valid || !math.IsNaN(v.A.V) || !math.IsInf(v.B.V, -1) || v.C.V != 1.5 || v.D.Valid || v.E.V != 2.5 {
		t.Errorf("floats: %+v %+v %+v %+v %+v", v.A, v.B, v.C, v.D, v.E)
	}
	if v.N.V != 12 || v.M.V != math.MaxInt64 || v.L.Valid || v.K.V != 7 {
		t.Errorf("ints: %+v %+v %+v %+v", v.N, v.M, v.L, v.K)
	}
}

// A float field holding a string that spells what the sentinels used to be
// is not a number: pydantic refuses "\u0000NaN" for a float ("unable to
// parse string as a number"). (A sentinel's own bytes, which are no UTF-8,
// do read as the number; inspect_ai refuses such a document whole.)
func TestFloatRefusesSentinelText(t *testing.T) {
	for _, doc := range []string{`{"A": "\u0000NaN"}`, `{"A": "\u0000Infinity", "B": NaN}`} {
		var v struct{ A, B Float }
		if _, err := unmarshal([]byte(doc), &v); err == nil {
			t.Errorf("%s read as %v", doc, v.A)
		}
	}
}

func TestContentsStringOrList(t *testing.T) {
	var m Message
	if err := json.Unmarshal([]byte(`{"role":"assistant","content":"hi"}`), &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Content) != 1 || m.Content[0].Type != "text" || m.Content[0].Text != "hi" {
		t.Fatalf("string content: %+v", m.Content)
	}
	doc := `{"role":"assistant","content":[{"type":"reasoning","reasoning":"r","redacted":true,"summary":"s"},{"type":"text","text":"a","refusal":true},{"type":"image","image":"x"}]}`
	if err := json.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatal(err)
	}
	d := &DecodedSample{}
	if got := d.Text(&m); got != "a" {
		t.Fatalf("Text = %q, want %q (reasoning and images excluded)", got, "a")
	}
	if !*m.Content[1].Refusal || !m.Content[0].Redacted {
		t.Fatalf("flags lost: %+v", m.Content)
	}
}

// Sanitising and restoring gives back the original bytes, whatever they are.
func FuzzSanitizeRoundTrip(f *testing.F) {
	for _, s := range []string{`{"a": NaN}`, `[Infinity, -Infinity, "NaN"]`, `{"t": "x\"NaN\"", "v": -Infinity}`,
		`NaNaN`, `"unterminated NaN`, `{"k": "\\", "v": NaN}`, ``,
		`{"s": "\u0000NaN", "v": NaN}`, `["\u0000Infinity", Infinity, "\u0000-Infinity", -Infinity]`, "{\"s\": \"\xffNaN\", \"v\": NaN}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if bytes.Contains(data, quotedNaN) || bytes.Contains(data, quotedInf) || bytes.Contains(data, quotedNegInf) {
			return // a sentinel's own bytes, which no UTF-8 text holds
		}
		clean, changed := SanitizeNonFinite(data)
		if back := RestoreNonFinite(clean); !bytes.Equal(back, data) {
			t.Fatalf("round trip of %q gave %q", data, back)
		}
		if !changed && !bytes.Equal(clean, data) {
			t.Fatalf("unchanged input %q came back as %q", data, clean)
		}
	})
}

// DecodeString's shortcut for plain strings gives what decoding gives, and a
// non-string is an error.
func TestDecodeString(t *testing.T) {
	for _, raw := range []string{`"plain"`, `""`, `"a\/b"`, `"line\nbreak"`, `"\"q\""`, `"caf\u00e9"`, "\"bad \xff\""} {
		var want string
		if err := json.Unmarshal([]byte(raw), &want); err != nil {
			t.Fatal(err)
		}
		if got, err := DecodeString([]byte(raw)); err != nil || got != want {
			t.Errorf("%s: got %q (%v), want %q", raw, got, err, want)
		}
	}
	for _, raw := range []string{`12`, `{"a": 1}`, `"unterminated`} {
		if _, err := DecodeString([]byte(raw)); err == nil {
			t.Errorf("%s decoded as a string", raw)
		}
	}
}
