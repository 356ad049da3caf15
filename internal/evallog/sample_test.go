package evallog

import (
	"testing"

	json "github.com/goccy/go-json"
)

// A hand-written sample for the shapes no fixture carries together: keys in
// recovered-log order (events before input), explicit nulls, an integer id
// beyond int64, a v3 message pool with refs out of range, a legacy score.
func TestDecodeSampleEdgeShapes(t *testing.T) {
	raw := []byte(`{
	  "events": [
	    {"event": "model", "model": "m/x", "input": [], "input_refs": [[0, 2], [1, 99]],
	     "output": {"choices": [{"message": {"role": "assistant", "content": "attachment://abc"}, "stop_reason": "length"}]}}
	  ],
	  "id": 123456789012345678901234567890,
	  "epoch": 2,
	  "events_data": null, "timelines": null, "error": null,
	  "score": {"value": NaN},
	  "message_pool": [
	    {"role": "user", "content": "q1"},
	    {"role": "assistant", "content": "a1"},
	    {"role": "user", "content": "tc://def"}
	  ],
	  "attachments": {"abc": "the reply", "def": "second question"}
	}`)
	d, err := DecodeSample(raw, "match")
	if err != nil {
		t.Fatal(err)
	}
	if id, kind := d.IDString(); id != "123456789012345678901234567890" || kind != "int" {
		t.Errorf("id = %s (%s)", id, kind)
	}
	if got := string(d.View().Scores[0].Value); got != "NaN" {
		t.Errorf("the legacy score's value %q, want the NaN literal", got)
	}
	if _, ok := d.Scores["match"]; !ok || len(d.Scores) != 1 {
		t.Errorf("legacy score not migrated: %v", d.Scores)
	}
	msgs, err := d.InputMessages(&d.Events[0])
	if err != nil {
		t.Fatal(err)
	}
	// [0,2) gives q1 a1; [1,99) is cut to [1,3): a1, the tc:// ref.
	var texts []string
	for i := range msgs {
		texts = append(texts, d.Text(&msgs[i]))
	}
	want := []string{"q1", "a1", "a1", "second question"}
	if len(texts) != len(want) {
		t.Fatalf("input = %q, want %q", texts, want)
	}
	for i := range want {
		if texts[i] != want[i] {
			t.Fatalf("input = %q, want %q", texts, want)
		}
	}
	o, err := d.ModelOutput(&d.Events[0])
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Text(&o.Choices[0].Message); got != "the reply" {
		t.Errorf("reply text = %q, want the resolved attachment", got)
	}
}

func TestDecodeSampleRejectsMissingID(t *testing.T) {
	if _, err := DecodeSample([]byte(`{"epoch": 1}`), ""); err == nil {
		t.Fatal("a sample without id decoded")
	}
}

func TestDecodeSampleReportsOffset(t *testing.T) {
	_, err := DecodeSample([]byte(`{"id": 1, "epoch": 1, "events": [}`), "")
	if err == nil {
		t.Fatal("invalid JSON decoded")
	}
	t.Log(err)
}

// lookupString finds exactly what decoding the whole object would.
func TestLookupStringMatchesFullDecode(t *testing.T) {
	obj := []byte("{\"a\": \"plain\", \"b\" :\"quote \\\" and \\\\ backslash\\\\\", \"c\":\"\\u00e9t\\u00e9 \\ud83d\\ude00\", " +
		"\"d\": \"mentions \\\"a\\\": inside\", \"e\": \"\", \"f\": 12, \"g\": \"\xff bad utf-8\", \"h\": \"ends with \\\\\"}")
	var all map[string]any
	if err := json.Unmarshal(obj, &all); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "missing"} {
		got, ok := lookupString(obj, key)
		want, isStr := all[key].(string)
		if ok != isStr || got != want {
			t.Errorf("%s: got %q (%v), want %q (%v)", key, got, ok, want, isStr)
		}
	}
	// The index of an object of strings finds the same.
	strs := []byte("{\"a\": \"plain\", \"b\" :\"quote \\\" and \\\\ backslash\\\\\", \"c\":\"\\u00e9t\\u00e9\", " +
		"\"d\": \"mentions \\\"a\\\": inside\", \"e\": \"\", \"a\": \"last\", \"h\": \"ends with \\\\\"}")
	var x attachmentIndex
	for _, key := range []string{"a", "b", "c", "d", "e", "h", "missing", `a"`, `\u0061`} {
		want, wantOK := lookupString(strs, key)
		if got, ok := x.lookup(strs, key); ok != wantOK || got != want {
			t.Errorf("index, %s: got %q (%v), want %q (%v)", key, got, ok, want, wantOK)
		}
	}
	if !x.flat {
		t.Error("an object of strings was not indexed")
	}
	for _, obj := range []string{string(obj), `{"a": "x", "b": {"a": "y"}}`, `{"a": "never closed`, `null`, `{"a": "x"} {}`, `{"a\u0062": "x", "ab": "y"}`} {
		var x attachmentIndex
		for _, key := range []string{"a", "b", "ab", "f"} {
			want, wantOK := lookupString([]byte(obj), key)
			if got, ok := x.lookup([]byte(obj), key); ok != wantOK || got != want {
				t.Errorf("%s, %s: got %q (%v), want %q (%v)", obj, key, got, ok, want, wantOK)
			}
		}
	}
	if _, ok := lookupString([]byte(`{"a": "never closed`), "a"); ok {
		t.Error("an unterminated string was found")
	}
}
