package evallog

import (
	"encoding/json"
	"testing"
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
