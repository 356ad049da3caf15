package evallog

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// slimAlways makes every sample of the test take the slim decode.
func slimAlways(t *testing.T) {
	old := slimFrom
	slimFrom = 0
	t.Cleanup(func() { slimFrom = old })
}

// decodeWhole is the decode slimSample replaces: every field through the
// decoder at once.
func decodeWhole(t *testing.T, raw []byte) *DecodedSample {
	t.Helper()
	d := &DecodedSample{}
	if _, err := unmarshal(raw, &d.Sample); err != nil {
		t.Fatalf("whole decode: %v", err)
	}
	return d
}

// same compares what the tables read of two decodes of one sample: the
// fields, the events of the kinds kept (in order), the attachments and the
// message pool.
func same(t *testing.T, name string, slim, whole *DecodedSample) {
	t.Helper()
	var kept []Event
	for _, e := range whole.Events {
		if keptEvents[e.Event] {
			kept = append(kept, e)
		}
	}
	var slimKept []Event
	for _, e := range slim.Events {
		if keptEvents[e.Event] {
			slimKept = append(slimKept, e)
		}
	}
	if !reflect.DeepEqual(slimKept, kept) {
		t.Errorf("%s: events differ: %d vs %d kept", name, len(slimKept), len(kept))
	}
	if len(slim.Events) != len(slimKept) {
		t.Errorf("%s: %d events of other kinds decoded", name, len(slim.Events)-len(slimKept))
	}
	for _, f := range []struct {
		what       string
		got, wantv any
	}{
		{"id", string(slim.ID), string(whole.ID)},
		{"epoch", slim.Epoch, whole.Epoch},
		{"uuid", slim.UUID, whole.UUID},
		{"output", slim.Output, whole.Output},
		{"scores", slim.Scores, whole.Scores},
		{"error", slim.Error, whole.Error},
		{"limit", slim.Limit, whole.Limit},
		{"metadata", string(slim.Metadata), string(whole.Metadata)},
		{"attachments", string(slim.Attachments), string(whole.Attachments)},
		{"message pool", strs(slim.MessagePool), strs(whole.MessagePool)},
	} {
		if !reflect.DeepEqual(f.got, f.wantv) {
			t.Errorf("%s: %s = %v, whole decode %v", name, f.what, f.got, f.wantv)
		}
	}
	switch {
	case (slim.EventsData == nil) != (whole.EventsData == nil):
		t.Errorf("%s: events_data present %v, whole decode %v", name, slim.EventsData != nil, whole.EventsData != nil)
	case slim.EventsData != nil && !reflect.DeepEqual(strs(slim.EventsData.Messages), strs(whole.EventsData.Messages)):
		t.Errorf("%s: pool messages differ", name)
	}
}

func strs[T ~[]byte](xs []T) []string {
	var out []string
	for _, x := range xs {
		out = append(out, string(x))
	}
	return out
}

// Every sample of the fixtures decodes to what a whole decode gives.
func TestSlimDecodeMatchesWholeOnFixtures(t *testing.T) {
	slimAlways(t)
	paths, _ := filepath.Glob("../../testdata/logs/*.eval")
	json, _ := filepath.Glob("../../testdata/logs/*.json")
	paths = append(paths, json...)
	if len(paths) < 10 {
		t.Fatalf("only %d fixture logs", len(paths))
	}
	n := 0
	for _, p := range paths {
		l, err := Open(p)
		if err != nil {
			continue // the fixtures of unreadable logs
		}
		for _, ref := range l.Samples {
			raw, err := ref.Bytes()
			if err != nil {
				continue
			}
			if _, _, _, _, _, ok := slimSample(raw); !ok {
				t.Errorf("%s %s: the walk refused a sample the writer wrote", p, ref.Member)
			}
			d, err := DecodeSample(raw, "")
			if err != nil {
				continue
			}
			same(t, filepath.Base(p)+" "+ref.Member, d, decodeWhole(t, raw))
			n++
		}
		l.Close()
	}
	if n < 20 {
		t.Errorf("only %d samples compared", n)
	}
}

// Keys in any order (attachments and the pools before the events, as
// recovered logs have them), duplicate keys (the last wins), keys in another
// case, events the tables do not read, bare NaN in a skipped part.
func TestSlimDecodeShapes(t *testing.T) {
	slimAlways(t)
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
	  "ID": 7,
	  "epoch": 1,
	  "attachments": {"abc": "the reply"},
	  "Metadata": {"k": "v"},
	  "scores": {"s": {"value": 1}}
	}`)
	d, err := DecodeSample(raw, "")
	if err != nil {
		t.Fatal(err)
	}
	same(t, "shapes", d, decodeWhole(t, raw))
	if got := len(d.Events); got != 4 {
		t.Errorf("%d events decoded, want the 4 model/span/step ones", got)
	}
	if got := d.Resolve("attachment://abc"); got != "the reply" {
		t.Errorf("Resolve = %q: the last attachments object wins", got)
	}
	if in, err := d.InputMessages(&d.Events[1]); err != nil || len(in) != 1 || in[0].Role != "user" {
		t.Errorf("pooled input = %v, %v", in, err)
	}
}

// A sample that is not well-formed JSON anywhere, also in the parts the
// tables do not read, is an error as before, with the same message.
func TestSlimDecodeKeepsErrors(t *testing.T) {
	slimAlways(t)
	for _, raw := range []string{
		`{"id": 1, "store": {"a": tru}}`,
		`{"id": 1, "attachments": {"h": "unterminated}`,
		`{"id": 1, "events": [{"event": "tool", "result": [1, 2}]}`,
		`{"id": 1, "messages": [] "epoch": 1}`,
		`{"id": 1}trailing`,
	} {
		_, err := DecodeSample([]byte(raw), "")
		if err == nil {
			t.Errorf("%s: no error", raw)
			continue
		}
		d := &DecodedSample{}
		_, werr := unmarshal([]byte(raw), &d.Sample)
		if werr == nil || !strings.Contains(err.Error(), describeJSONError([]byte(raw), werr).Error()) {
			t.Errorf("%s: error %q, whole decode %v", raw, err, werr)
		}
	}
}

// A huge attachment that nothing refers to is not copied: the decoded
// sample's attachments are the raw bytes themselves.
func TestSlimDecodeDoesNotCopyAttachments(t *testing.T) {
	slimAlways(t)
	big := strings.Repeat("x", 1<<20)
	raw := []byte(`{"id": 1, "epoch": 1, "events": [], "attachments": {"h": "` + big + `"}}`)
	d, err := DecodeSample(raw, "")
	if err != nil {
		t.Fatal(err)
	}
	a := d.attachments
	if len(a) < len(big) || &a[0] != &raw[strings.Index(string(raw), `{"h"`)] {
		t.Error("attachments were copied")
	}
	d.Release()
	if d.attachments != nil || d.Attachments != nil {
		t.Error("Release kept the reference")
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
