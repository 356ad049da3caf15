package evallog

import (
	"testing"

	json "github.com/goccy/go-json"
)

// A raw input message gives the walk (userText, messageRole) what it gives
// the decoder: the same role, text or error, whatever its shape.
func FuzzUserText(f *testing.F) {
	for _, s := range []string{
		`{"role": "user", "content": "hi"}`,
		`{"content": [{"type": "text", "text": "a\nb"}, {"type": "image", "image": "x"}, {"type": "text", "text": "c"}], "role": "user"}`,
		`{"role": "assistant", "content": "x", "tool_calls": [{"id": "1", "function": "f", "arguments": {}}]}`,
		`{"role": "assistant", "content": 5}`,
		`{"role": "assistant", "content": [{"type": 5}]}`,
		`{"role": "assistant", "tool_calls": [{"function": 5}]}`,
		`{"role": "assistant", "tool_calls": [null]}`,
		`{"role": "user", "content": null}`,
		`{"role": "user"}`,
		`{"role": "user", "content": [{"type": "text", "text": "attachment://abc"}]}`,
		`{"role": "user", "content": [{"type": "text", "Text": "case"}]}`,
		`{"role": "user", "role": "assistant", "content": "twice"}`,
		`{"role": "user", "content": [{"type": "text", "text": "t", "refusal": true, "redacted": "no"}]}`,
		`{"role": "tool", "content": "out", "error": {"message": "m"}}`,
		`[]`, `null`, `{"role": 1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return // input messages are checked by the walk before
		}
		d := &DecodedSample{attachments: json.RawMessage(`{"abc": "resolved"}`)}
		user, text, err := d.userText(raw)
		// the reference: the message decoded by goccy
		var m Message
		var wuser bool
		var wtext string
		_, werr := unmarshal(raw, &m)
		if werr == nil && m.Role == "user" {
			wuser, wtext = true, d.Text(&m)
		}
		if keys, _ := divergent(raw); keys {
			return // goccy matches keys without regard to case; Python does not
		}
		if err != nil && werr == nil && stricter(raw) {
			return // goccy takes a null content; Python does not
		}
		if user != wuser || text != wtext || (err == nil) != (werr == nil) {
			t.Fatalf("%s: the walk gives %v %q %v; the reference %v %q %v", raw, user, text, err, wuser, wtext, werr)
		}
	})
}

// An inline input list counts and lists the same messages by the walk as
// by the decoder.
func FuzzInlineInput(f *testing.F) {
	for _, s := range []string{`[]`, `[{"role": "user", "content": "x"}]`, ` [ {"a": 1} , {} ] `, `[1]`, `[null]`, `[{"a": [1, {"b": "c"}]}, "x"]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) || !isInlineList(raw) {
			return
		}
		raw, _ = lastKeyWins(raw) // as the sample's walk leaves a kept value
		d := &DecodedSample{}
		e := &Event{Input: raw}
		n, err := d.InputCount(e)
		raws, rerr := d.inputRaws(nil, raw)
		// the reference: goccy's count of objects (a null a zero one) and
		// its list of raw messages
		var items []struct{}
		_, werr := unmarshal(raw, &items)
		var wraws []json.RawMessage
		if werr == nil {
			if _, err := unmarshal(raw, &wraws); err != nil {
				t.Fatal(err)
			}
		}
		if (err == nil) != (werr == nil) || (rerr == nil) != (werr == nil) || werr == nil && (n != len(items) || len(raws) != len(wraws)) {
			t.Fatalf("%s: the walk counts %d (%v), lists %d (%v); the reference %d (%v)", raw, n, err, len(raws), rerr, len(items), werr)
		}
		for i := range raws {
			if string(raws[i]) != string(wraws[i]) {
				t.Fatalf("%s: message %d is %s by the walk, %s by the decoder", raw, i, raws[i], wraws[i])
			}
		}
	})
}
