package evallog

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// Keys in any order (attachments and the pools before the events, as
// recovered logs have them), a repeated key (the last counts), keys in
// another case (extra fields to Python, not the fields), an event kind
// spelled with an escape, events the tables do not read, bare NaN and
// Infinity in a skipped part: the walk takes the sample (after the rewrite,
// for the repeated key) as Python reads it.
func TestWalkShapes(t *testing.T) {
	raw := []byte(`{
	  "attachments": {"old": "x"},
	  "events_data": {"calls": [{"request": {"a": NaN}}], "messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "attachment://abc"}]},
	  "store": {"big": [1, 2.5e3, -0.1, true, false, null, Infinity, -Infinity, "s\"t\\u00e9"]},
	  "events": [
	    {"event": "tool", "result": "a long tool result"},
	    {"event": "span_begin", "id": "s1", "type": "solver", "name": "generate"},
	    {"event": "model", "span_id": "s1", "model": "m/x", "input_refs": [[0, 1]],
	     "output": {"choices": [{"message": {"role": "assistant", "content": "attachment://abc"}}]}},
	    {"event": "info", "data": {"nested": [[[{"deep": 1}]]]}},
	    {"event": "step", "action": "begin", "name": "s", "type": "solver"},
	    {"event": "m\u006fdel", "model": "escaped kind", "output": {}}
	  ],
	  "id": 7,
	  "epoch": 1,
	  "attachments": {"abc": "the reply"},
	  "Metadata": {"k": "v"},
	  "scores": {"s": {"value": 1}}
	}`)
	d, err := DecodeSample(raw, "")
	if err != nil {
		t.Fatal(err)
	}
	if !d.canonical {
		t.Error("the repeated key did not send the sample to the rewrite")
	}
	var kinds []string
	for _, e := range d.Events {
		kinds = append(kinds, e.Event+" "+e.Model)
	}
	if got, want := strings.Join(kinds, ", "), "span_begin , model m/x, step , model escaped kind"; got != want {
		t.Errorf("events %q, want %q", got, want)
	}
	if got := d.Resolve("attachment://abc"); got != "the reply" {
		t.Errorf("Resolve = %q: the last attachments object wins", got)
	}
	if d.Metadata != nil || d.View().Metadata != nil {
		t.Errorf("metadata %s: Metadata is another key", d.Metadata)
	}
	if id, kind := d.IDString(); id != "7" || kind != "int" {
		t.Errorf("id %q %s", id, kind)
	}
	if in, err := d.InputMessages(&d.Events[1]); err != nil || len(in) != 1 || in[0].Role != "user" {
		t.Errorf("pooled input = %v, %v", in, err)
	}
	if c := d.View().Events[1].Call; c == nil || c.Output == nil || c.Output.Text != "the reply" || c.Prompt != "q" {
		t.Errorf("the call's view: %+v", c)
	}
}

// A sample that is not well-formed JSON anywhere, also in the parts the
// tables do not read, is an error naming the offset where it stops being
// JSON.
func TestWalkNamesInvalidJSON(t *testing.T) {
	for _, c := range []struct{ raw, at string }{ // at: what the offset is of
		{`{"id": 1, "store": {"a": tru}}`, `tru`},
		{`{"id": 1, "attachments": {"h": "unterminated}`, `"unterminated`},
		{`{"id": 1, "events": [{"event": "tool", "result": [1, 2}]}`, `}]}`},
		{`{"id": 1, "messages": [] "epoch": 1}`, `"epoch"`},
		{`{"id": 1}trailing`, `trailing`},
		{`{"id": 1, "events": [}`, `}`},
	} {
		_, err := DecodeSample([]byte(c.raw), "")
		at := strings.Index(c.raw, c.at)
		if want := fmt.Sprintf("invalid JSON at offset %d near ", at); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: error %v, want one starting %q", c.raw, err, want)
		}
		if _, werr := decodeWhole([]byte(c.raw), ""); werr == nil {
			t.Errorf("%s: the reference takes it", c.raw)
		}
	}
}

// A sample that is JSON but not what inspect_ai's model takes is an error
// naming where: the path of the value and its offset.
func TestWalkNamesTheValue(t *testing.T) {
	for _, c := range []struct{ raw, path, kind, at string }{
		{`{"id": 1, "epoch": 1, "output": {"choices": [{"message": {"content": 5}}]}}`, "output.choices[0].message.content", "number", "5}"},
		{`{"id": 1, "epoch": "one"}`, "epoch", "string", `"one"`},
		{`{"id": 1, "epoch": 1, "events": [{}, {"event": "model", "pending": "maybe"}]}`, "events[1].pending", "string", `"maybe"`},
		{`{"id": 1, "epoch": 1, "scores": {"s": {"value": 1, "reason": 2}}, "metadata": [}`, "", "", "}"},
	} {
		_, err := DecodeSample([]byte(c.raw), "")
		want := fmt.Sprintf("%s: a %s at offset %d ", c.path, c.kind, strings.Index(c.raw, c.at))
		if c.path == "" {
			want = fmt.Sprintf("invalid JSON at offset %d ", strings.LastIndex(c.raw, c.at))
		}
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: error %v, want one starting %q", c.raw, err, want)
		}
		if _, werr := decodeWhole([]byte(c.raw), ""); werr == nil {
			t.Errorf("%s: the reference takes it", c.raw)
		}
	}
}

// A huge attachment that nothing refers to, in a sample holding a bare NaN
// (which the decoder before the walk read only whole, copying everything),
// is not copied: the attachments stay where they lie.
func TestWalkDoesNotCopyAttachments(t *testing.T) {
	big := strings.Repeat("x", 16<<20)
	raw := []byte(`{"id": 1, "epoch": 1, "scores": {"s": {"value": NaN}}, "events": [], "attachments": {"h": "` + big + `"}}`)
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	d, err := DecodeSample(raw, "")
	runtime.ReadMemStats(&m1)
	if err != nil {
		t.Fatal(err)
	}
	// the structural index is a quarter of the sample's size; a copy of
	// the attachment would be all of it
	if n := m1.TotalAlloc - m0.TotalAlloc; n > uint64(len(big))/3 {
		t.Errorf("%d MiB allocated to decode a sample of %d MiB", n>>20, len(raw)>>20)
	}
	if v := d.View().Scores; len(v) != 1 || string(v[0].Value) != "NaN" {
		t.Errorf("scores %+v", v)
	}
}

// RawSize is what Bytes returns, for .eval members and .json samples: the
// weight ingest takes from its in-flight budget before reading a sample.
func TestRawSizeIsTheSampleSize(t *testing.T) {
	for _, p := range []string{"../../testdata/logs/attachments.eval", "../../testdata/logs/int-ids.json"} {
		l, err := Open(p)
		if err != nil {
			t.Fatal(err)
		}
		if len(l.Samples) == 0 {
			t.Fatalf("%s: no samples", p)
		}
		for _, ref := range l.Samples {
			raw, err := ref.Bytes()
			if err != nil {
				t.Fatal(err)
			}
			if ref.RawSize() != int64(len(raw)) {
				t.Errorf("%s %s: RawSize %d, %d bytes", p, ref.Member, ref.RawSize(), len(raw))
			}
		}
		l.Close()
	}
}
