package evallog

import (
	"encoding/json"
	"testing"

	goccy "github.com/goccy/go-json"
)

// jsonString's shortcut for plain strings gives what decoding gives.
func TestJSONStringMatchesDecoding(t *testing.T) {
	for _, raw := range []string{`"plain answer"`, `""`, `"line\nbreak"`, `"\"quoted\""`, `"caf\u00e9 ☕"`,
		`"\ud83d\ude00"`, `"back\\slash"`, "\"bad \xff utf-8\""} {
		var want string
		if err := json.Unmarshal([]byte(raw), &want); err != nil {
			t.Fatal(err)
		}
		if got := jsonString([]byte(raw)); got == nil || *got != want {
			t.Errorf("%s: got %v, want %q", raw, got, want)
		}
	}
	if got := jsonString([]byte(`12`)); got == nil || *got != "12" {
		t.Errorf("a non-string is kept as its JSON text, got %v", got)
	}
	if jsonString([]byte(`null`)) != nil || jsonString(nil) != nil {
		t.Error("null and absent give nil")
	}
}

// DecodeString's own unescaping (unquote) gives what the decoder gives, on
// every input: the same string, or an error where it errs.
func FuzzDecodeString(f *testing.F) {
	for _, s := range []string{`"plain"`, `""`, `"a\nb"`, `"\"q\" \\ \/ \b\f\n\r\t"`, `"caf\u00e9"`, `"\u00E9\u20AC"`,
		`"\ud83d\ude00"`, `"\ud800"`, `"\ud800x"`, `"\udc00\n"`, `"\ud83d\u0041"`, `"\ud800\ud800"`, `"\ud83d\n"`,
		`"\u0000"`, "\"a\xffb\\n\"", "\"\xed\xa0\x80\\n\"", "\"\xc3\\n\"", "\"ctl\x01\\n\"", `"a\"`, `"a\x"`, `"\u12"`,
		`"\u12g4"`, `"a"b\n"`, `"\'"`, `"ends\\"`, `"tab\	x\n"`, "\"multi ☕ byte\\t☕\"", `12`, `null`, `"`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, err := DecodeString(raw)
		var want string
		werr := goccy.Unmarshal(raw, &want)
		if (err != nil) != (werr != nil) || err == nil && got != want {
			t.Fatalf("%q: DecodeString %q, %v; the decoder %q, %v", raw, got, err, want, werr)
		}
	})
}
