package evallog

import (
	"runtime"
	"strings"
	"testing"
)

// walkHeld makes Decode walk every sample decodeFast refuses as a stream,
// as it does one of 8 MiB or more.
func walkHeld(t *testing.T) {
	old := heldFrom
	heldFrom = 0
	t.Cleanup(func() { heldFrom = old })
}

// decodeWhole decodes raw as Decode does a small sample decodeFast refuses.
func decodeWhole(t *testing.T, raw []byte) *DecodedSample {
	t.Helper()
	d := &DecodedSample{}
	if err := d.decode(raw, "", false); err != nil {
		t.Fatalf("whole decode: %v", err)
	}
	return d
}

// Keys in any order (attachments and the pools before the events, as
// recovered logs have them), duplicate keys (the last wins), keys in another
// case, events the tables do not read, bare NaN in a skipped part: a big
// sample decodeFast refuses is walked, to the rows a whole decode gives.
func TestHeldSampleWalkShapes(t *testing.T) {
	walkHeld(t)
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
	if d.resolved == nil {
		t.Fatal("decoded whole, not walked")
	}
	if got, want := tableView(d), tableView(decodeWhole(t, raw)); got != want {
		t.Errorf("rows differ:\n%s\nwhole:\n%s", got, want)
	}
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
func TestHeldSampleWalkKeepsErrors(t *testing.T) {
	walkHeld(t)
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

// A huge attachment that nothing refers to, in a sample decodeFast refuses
// (a bare NaN), is not copied: a whole decode would copy it, with the rest.
func TestHeldSampleWalkDoesNotCopyAttachments(t *testing.T) {
	walkHeld(t)
	big := strings.Repeat("x", 16<<20)
	raw := []byte(`{"id": 1, "epoch": 1, "scores": {"s": {"value": NaN}}, "events": [], "attachments": {"h": "` + big + `"}}`)
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	d, err := DecodeSample(raw, "")
	runtime.ReadMemStats(&m1)
	if err != nil {
		t.Fatal(err)
	}
	if n := m1.TotalAlloc - m0.TotalAlloc; n > uint64(len(big))/4 {
		t.Errorf("%d MiB allocated to decode a sample of %d MiB", n>>20, len(raw)>>20)
	}
	if d.Resolve("attachment://h") != "attachment://h" {
		t.Error("an attachment nothing refers to was resolved")
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
