package evallog

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// Every sample of the fixtures and both corpora decodes by the walk to
// what the reference gives.
func TestWalkAsReference(t *testing.T) {
	raws, _ := corpusSamples(t)
	for i, raw := range raws {
		if !sameDecode(t, "sample "+strconv.Itoa(i), raw) {
			t.Errorf("sample %d: refused", i)
		}
	}
}

// A model event's output is decoded by the walk as it passes it (inspect_ai
// writes an event's kind before its output), not walked again by
// ModelOutput.
func TestOutputsDecodedInPassing(t *testing.T) {
	raws, _ := corpusSamples(t)
	outputs, inPassing := 0, 0
	for _, raw := range raws {
		var d DecodedSample
		if err := d.Decode(raw, ""); err != nil {
			t.Fatal(err)
		}
		for _, e := range d.Events {
			if e.Event == "model" && !isNull(e.Output) {
				outputs++
				if e.decoded != nil {
					inPassing++
				}
			}
		}
	}
	if outputs < 1000 || inPassing != outputs {
		t.Errorf("%d of %d outputs decoded in passing", inPassing, outputs)
	}
}

// checkString finds a string's end, and refuses one that holds a raw
// control byte or an invalid escape, wherever they lie in it (in its
// first 32 bytes, which are tested eight at a time, or in the rest,
// scanned 32 at a time).
func TestCheckString(t *testing.T) {
	for n := 0; n < 100; n++ {
		for at := -1; at < n; at++ {
			for _, c := range []byte{0, '\t', '\n', 0x1f, '"', '\\', 0x80} {
				body := make([]byte, n)
				for i := range body {
					body[i] = 'a' + byte(i%26)
				}
				if at >= 0 {
					body[at] = c
				}
				doc := append(append([]byte{'"'}, body...), '"', ',', ' ')
				w := walk{b: doc}
				end, escaped, ok := w.checkString(0)
				wantEnd, wantOK, wantEsc := n+2, true, false
				switch {
				case at < 0, c == 0x80:
				case c == '"':
					wantEnd = at + 2
				case c == '\\':
					// an escape of the next byte: valid only for one of
					// the escapable bytes, here a letter other than
					// b f n r t u, or the closing quote
					next := doc[at+2]
					switch {
					case next == '"':
						wantOK = false // the quote is escaped: unterminated
					case next == 'b' || next == 'f' || next == 'n' || next == 'r' || next == 't':
						wantEsc = true
					case next == 'u':
						wantOK = false // not four hex digits after it
						if at+6 <= n && isHex4(doc[at+3:at+7]) {
							wantOK, wantEsc = true, true
						}
					default:
						wantOK = false
					}
				default:
					wantOK = false
				}
				if ok != wantOK || ok && (end != wantEnd || escaped != wantEsc) {
					t.Fatalf("%q: %d %v %v, want %d %v %v", doc, end, escaped, ok, wantEnd, wantEsc, wantOK)
				}
			}
		}
	}
}

func isHex4(b []byte) bool {
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// Whatever the bytes of a sample, the walk decodes it as the reference
// does, or refuses it as the reference does (but where the reference is not
// Python: divergent).
func FuzzWalk(f *testing.F) {
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
	for _, s := range []string{
		`{"id": 1, "epoch": 1}`,
		`{"id": 1, "ID": 2}`,
		`{"id": 1, "epoch": 1.0}`,
		`{"id": 1, "epoch": "1", "total_time": "2.5", "working_time": null, "turn_count": 1.5, "started_at": "2025-01-01T00:00:00Z"}`,
		`{"id": 1, "epoch": 1, "store": 5, "messages": {}, "input": [], "output": null}`,
		`{"id": 1, "epoch": 1, "events": [{"event": "tool"}, {"event": "banana"}, {"model": "m"}, {"event": "model", "output": null, "cache": "maybe"}]}`,
		`{"id": 1, "epoch": 1, "events": [{"event": "model", "pending": "yes"}]}`,
		`{"id": 1, "epoch": 1, "events": [{"event": "mod\u0065l", "model": "m"}]}`,
		`{"id": 1, "epoch": 1, "events": [{"event": "tool", "error": {"a": 1, "a": 2}}]}`,
		`{"id": 1, "epoch": 1, "events": [{"event": "model", "input_refs": [[0, 2], null], "tools": [{}, {"name": "t"}], "working_time": "1.5"}]}`,
		`{"id": 1, "epoch": 1, "events": [{"event": "span_begin", "id": "s", "type": "scorer", "name": "n\u00e9"}]}`,
		`{"id": 1, "epoch": 1, "scores": {"s": {"value": 1, "answer": "a"}, "t": {"value": [1, {"x": null}]}}}`,
		`{"id": "a", "epoch": 1, "output": {"choices": [{"message": {"role": "assistant", "content": [{"type": "text", "text": "t"}]}}], "Completion": "x"}}`,
		`{"id": 1, "epoch": 1, "attachments": {"h": "a\tb"}}`,
		"{\"id\": 1,\n  \"epoch\": 1,\n  \"metadata\": {\"s\": \"a\nb\"}\n}",
		`{"id": 1, "epoch": 1, "events_data": {"messages": [{"role": "user"}], "calls": []}, "message_pool": []}`,
		`{"id": 1, "epoch": 1, "error": {"message": "m", "traceback": "t"}, "limit": {"type": "token"}, "score": {"value": "C"}}`,
		`{"id": 1, "epoch": 1, "events": [{"event": "model", "output": {"model": "m", "choices": [{"message": {"role": "assistant", "content": [{"type": "reasoning", "reasoning": "r", "redacted": true, "summary": null}, {"type": "text", "text": "t", "refusal": true}], "tool_calls": [{"function": "f", "arguments": {}}]}, "stop_reason": "length", "stop_details": {"type": "x"}}], "usage": {"input_tokens": 3, "output_tokens": "4", "reasoning_tokens": null}, "error": null, "time": 1.5}}]}`,
		`{"id": 1, "epoch": 1, "output": {"choices": null, "completion": "c", "usage": null, "error": "e"}}`,
		`{"id": 1, "epoch": 1, "output": {"choices": [{"message": {"content": null}}, {"message": null}]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		sameDecode(t, "sample", raw)
	})
}

// Every sample of the malformed logs (testdata/malformed: each a log the
// pinned inspect_ai wrote with one thing broken) gets from the walk the
// reference's verdict: the same sample, or an error.
func TestWalkGivesTheVerdictOnMalformedLogs(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "..", "testdata", "malformed", "*.*"))
	if err != nil {
		t.Fatal(err)
	}
	n, refused := 0, 0
	for _, p := range paths {
		if !strings.HasSuffix(p, ".eval") && !strings.HasSuffix(p, ".json") {
			continue
		}
		l, err := Open(p)
		if err != nil {
			continue // refused before its samples: no decode to compare
		}
		for _, ref := range l.Samples {
			raw, err := ref.Bytes()
			if err != nil {
				continue
			}
			n++
			if !sameDecode(t, filepath.Base(p)+" "+ref.Member, raw) {
				refused++
			}
		}
		l.Close()
	}
	t.Logf("%d samples of the malformed logs, %d refused", n, refused)
	if n < 100 || refused < 10 {
		t.Errorf("%d samples of the malformed logs, %d refused: too few to compare", n, refused)
	}
}

// Whitespace before the end of a sample, whatever its length: a run of
// spaces that ends in the last eight bytes is passed over to the byte after
// it, not one byte further (which took an indented sample's closing brace
// for a space, and let a stray byte before it through).
func TestWhitespaceAtTheEnd(t *testing.T) {
	for n := 0; n <= 20; n++ {
		pad := strings.Repeat(" ", n)
		doc := []byte(`{"id": 1, "epoch": 1` + pad + `}`)
		if !sameDecode(t, "spaces "+strconv.Itoa(n), doc) {
			t.Errorf("the walk refuses %q", doc)
		}
		for _, bad := range []string{`x}`, `,}`, `]}`} {
			doc := []byte(`{"id": 1, "epoch": 1` + pad + bad)
			var d DecodedSample
			if d.Decode(doc, "") == nil {
				t.Errorf("the walk takes %q", doc)
			}
		}
	}
}

// The one walk's string fields of an event (eventString's cases, the ev*
// indices and Event.stringFields, generated from Event's source) are
// Event's string fields, by their json keys: a string field the generator
// did not see (one of a named string type, or the generated file not
// regenerated), a case naming no string field, or a key landing in another
// field fails here.
func TestEventStringsAreEventsStringFields(t *testing.T) {
	et := reflect.TypeFor[Event]()
	seen := map[int]string{}
	var keys []string
	for i := range et.NumField() {
		f := et.Field(i)
		key, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		idx := eventString([]byte(key))
		if f.Type.Kind() != reflect.String {
			if idx >= 0 {
				t.Errorf("Event.%s (%q) is no string, but eventString takes it as one", f.Name, key)
			}
			continue
		}
		if idx < 0 {
			t.Errorf("Event.%s (%q) is a string field eventString does not know", f.Name, key)
			continue
		}
		if prev, dup := seen[idx]; dup {
			t.Errorf("eventString gives %q and %q one index, %d", prev, key, idx)
		}
		seen[idx] = key
		keys = append(keys, key)
	}
	if len(seen) != numEventStrings {
		t.Errorf("Event has %d string fields, the walk %d", len(seen), numEventStrings)
	}
	// One model event with every string field set to a value of its own:
	// the walk takes it, gives the decoder's event, and each value lands in
	// the field of its key.
	var b strings.Builder
	b.WriteString(`{"id": 1, "epoch": 1, "events": [{`)
	for i, key := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		v := "v-" + key
		if key == "event" {
			v = "model"
		}
		b.WriteString(strconv.Quote(key) + ": " + strconv.Quote(v))
	}
	b.WriteString(`}]}`)
	raw := []byte(b.String())
	sameDecode(t, "every string field", raw) // refused both ways: no timestamp there
	var d DecodedSample
	if err := d.walkSample(raw, false); err != nil || len(d.Events) != 1 {
		t.Fatalf("the walk: %d events of %s (%v)", len(d.Events), raw, err)
	}
	ev := reflect.ValueOf(d.Events[0])
	for i := range et.NumField() {
		f := et.Field(i)
		key, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Type.Kind() != reflect.String {
			continue
		}
		want := "v-" + key
		if key == "event" {
			want = "model"
		}
		if got := ev.Field(i).String(); got != want {
			t.Errorf("Event.%s (%q): the walk gives %q, want %q", f.Name, key, got, want)
		}
	}
}

// event_fields_gen.go is what genfields writes from the Event struct now:
// Event edited without go generate fails here.
func TestEventFieldsGenerated(t *testing.T) {
	out := filepath.Join(t.TempDir(), "event_fields_gen.go")
	cmd := exec.Command("go", "run", "./internal/genfields", "-o", out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run ./internal/genfields: %v\n%s", err, msg)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("event_fields_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("event_fields_gen.go is not what genfields writes from Event; run go generate ./internal/evallog/\nthe committed file:\n%s\ngenfields writes:\n%s", got, want)
	}
}
