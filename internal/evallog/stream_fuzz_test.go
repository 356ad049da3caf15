package evallog

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"empties/internal/testutil"
)

// streamRef opens, with the real reader, an .eval log whose one sample
// member holds raw, and returns the sample's ref.
func streamRef(t testing.TB, raw []byte, method uint16) (SampleRef, func()) {
	data := testutil.Zip(t, testutil.Member{Name: "header.json", Method: zip.Store, Body: testutil.HeaderJSON("fuzz", 1)},
		testutil.Member{Name: "samples/1_epoch_1.json", Method: method, Body: raw})
	l, err := OpenSource(Source{Name: "fuzz.eval", Size: int64(len(data)), ReaderAt: bytes.NewReader(data), NoHash: true}, Limits{MaxMember: 8 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Samples) != 1 {
		t.Fatalf("%d samples", len(l.Samples))
	}
	return l.Samples[0], func() { l.Close() }
}

// tableView prints what the tables read of a decoded sample, through the
// same calls internal/ingest makes: ids, errors, raw metadata and scores as
// stored, the output, and the events of the kinds kept with their inputs
// and outputs decoded, every text resolved.
func tableView(d *DecodedSample) string {
	var b strings.Builder
	raw := func(r []byte) string {
		return string(bytes.TrimSpace(r))
	}
	output := func(o *ModelOutput) {
		if o == nil {
			b.WriteString("output nil\n")
			return
		}
		fmt.Fprintf(&b, "output %q completion %q usage %+v error %v time %v\n", o.Model, d.Resolve(o.Completion), o.Usage, o.Error, o.Time)
		for _, c := range o.Choices {
			fmt.Fprintf(&b, " choice %q %+v role %q text %q\n", c.StopReason, c.StopDetails, c.Message.Role, d.Text(&c.Message))
			for _, it := range c.Message.Content {
				fmt.Fprintf(&b, "  item %q %q %v %q %q %v\n", it.Type, d.Resolve(it.Text), it.Refusal != nil && *it.Refusal, d.Resolve(it.Reasoning), d.Resolve(it.Summary), it.Redacted)
			}
			for _, tc := range c.Message.ToolCalls {
				fmt.Fprintf(&b, "  tool %q\n", tc.Function)
			}
		}
	}
	id, kind := d.IDString()
	fmt.Fprintf(&b, "id %q %s epoch %d uuid %q error %+v limit %+v metadata %s\n", id, kind, d.Epoch.V, d.UUID, d.Error, d.Limit, raw(d.Metadata))
	output(d.Output.ModelOutput)
	names := make([]string, 0, len(d.Scores))
	for n := range d.Scores {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		s := d.Scores[n]
		fmt.Fprintf(&b, "score %q %s %s %s %s %s\n", n, raw(s.Value), raw(s.Reason), raw(s.Answer), raw(s.Explanation), raw(s.Metadata))
	}
	for i := range d.Events {
		e := &d.Events[i]
		if !keptEvents[e.Event] {
			continue // not read (the walk keeps an event without a kind, the whole decode any)
		}
		fmt.Fprintf(&b, "event %q %q %q %q %v %q %q %q %q %q %q %q %v tools %v %v %+v %q %q %q %v\n", e.Event, e.UUID, e.SpanID, e.Timestamp, e.Pending,
			e.ID, e.ParentID, e.Type, e.Name, e.Action, e.Model, e.Role, e.InputRefs, e.Tools == nil, len(e.Tools),
			ParseGenerateConfig(e.Config), EventError(e), e.Completed, e.Cache, e.WorkingTime)
		if e.Event != "model" {
			continue
		}
		n, err := d.InputCount(e)
		fmt.Fprintf(&b, " inputs %d %v\n", n, err != nil)
		last, err := d.LastUserText(e)
		fmt.Fprintf(&b, " last user %q %v\n", last, err != nil)
		msgs, err := d.InputMessages(e)
		for _, m := range msgs {
			fmt.Fprintf(&b, " input %q %q %d\n", m.Role, d.Text(&m), len(m.ToolCalls))
		}
		fmt.Fprintf(&b, " input error %v\n", err != nil)
		o, err := d.ModelOutput(e)
		fmt.Fprintf(&b, " output error %v\n", err != nil)
		output(o)
	}
	return b.String()
}

// streamSizes turns the fuzzer's bytes into the sizes the walk runs with:
// the length from which a text is decoded on its own (0: never), the chunk
// it is decoded by, and the most bytes one read of the stream gives (0:
// as many as asked).
func streamSizes(text, chunk, reads uint8) (int, int, int) {
	t := 1 << 30
	if text > 0 {
		t = int(text % 64)
	}
	return t, 1 + int(chunk%64), int(reads % 32)
}

// Whatever the bytes of a sample member, decoding it from the member's
// stream gives the rows the whole decode gives, or ErrNotStreamed, or an
// error where the whole decode gives one too; and DecodeRef, which ingest
// calls, and the stream walk of a big sample in memory give exactly what
// the whole decode gives. Texts are cut into
// chunks and reads into pieces of the fuzzer's choosing, down to a byte, so
// that escapes, UTF-8 sequences and refills fall at every place.
func FuzzStreamDecode(f *testing.F) {
	add := func(raw []byte) {
		f.Add(raw, uint8(0), uint8(0), uint8(0))
		f.Add(raw, uint8(8), uint8(3), uint8(5))
		f.Add(raw, uint8(1), uint8(1), uint8(1))
	}
	for _, p := range seedLogs(f) {
		l, err := Open(p)
		if err != nil {
			continue
		}
		for _, ref := range l.Samples {
			if raw, err := ref.Bytes(); err == nil && len(raw) < 32<<10 {
				add(raw)
			}
		}
		l.Close()
	}
	for _, text := range []string{
		`a\"b\\c\\\"d`, `\u00e9\u0000\n\t\/`, `\ud83d\ude00 and \ud800 alone`, "é😀 raw UTF-8", "bad \xff\xfe UTF-8",
		`attachment://h1`, `tc://h1`, `\u0061ttachment://h1`, strings.Repeat(`\\`, 9) + `"`, "ctl \x01",
	} {
		add(fmt.Appendf(nil, `{"id": "s", "epoch": 1, "output": {"completion": "%s", "choices": [{"message": {"role": "assistant", "content": [{"type": "text", "text": "%s"}, {"type": "reasoning", "reasoning": "%s", "summary": "%s", "redacted": true}]}}]},
		  "events": [{"event": "model", "model": "m", "input": [{"role": "user", "content": "%s"}], "output": {"completion": "%s"}}, {"event": "tool", "function": "f", "result": "%s"}],
		  "attachments": {"h1": "%s", "h1": "last %s", "h2": "%s"}, "metadata": {"k": "%s", "k": "%s"}}`,
			text, text, text, text, text, text, text, text, text, text, text, text))
	}
	add([]byte(`{"id": 1, "epoch": 1, "events": [{"event": "model", "input_refs": [[0, 2]], "output": {"choices": []}}], "events_data": {"messages": [{"role": "user", "content": "attachment://late"}, {"role": "assistant", "content": "x"}]}, "attachments": {"late": "found"}}`))
	add([]byte(`{"id": 1, "epoch": 1, "attachments": {"early": "e"}, "output": {"completion": "attachment://early"}, "message_pool": [{"role": "user", "content": "tc://early"}]}`))
	add([]byte(`{"id": 1.0, "epoch": 1, "scores": {"s": {"value": NaN, "answer": "\u0000NaN"}}, "output": {"time": Infinity}}  `))
	// A text spelling the ref the stream decode gives a big text: a
	// string, not that text (big texts from 40 bytes: the completion is
	// one, the look-alike not).
	f.Add([]byte(`{"id": 1, "epoch": 1, "output": {"completion": "`+strings.Repeat("x", 200)+`", "choices": [{"message": {"role": "assistant", "content": "attachment://\u0000text0"}}]}, "events": [{"event": "model", "output": {"completion": "tc://\u0000text0"}}]}`), uint8(40), uint8(3), uint8(5))
	for _, bad := range []string{`{"id": 1, "epoch": 1, "events": [{"event": "model", "event": "tool"}]}`, `{"id": 1`, `{"id": 1, "epoch": 1} x`, `[]`, ``, `{"transcript": {"events": []}, "id": 1}`} {
		add([]byte(bad))
	}
	f.Fuzz(func(t *testing.T, raw []byte, text, chunk, reads uint8) {
		bigText, chunkSize, readMax := streamSizes(text, chunk, reads)
		defer SetStreamSizes(0, bigText, chunkSize)()
		defer func(n int) { streamReadMax = n }(streamReadMax)
		streamReadMax = readMax
		ref, done := streamRef(t, raw, zip.Store)
		defer done()

		var whole DecodedSample
		wantErr := whole.Decode(raw, "score")
		var want string
		if wantErr == nil {
			want = tableView(&whole)
		}
		var streamed DecodedSample
		err := streamed.DecodeStream(ref, "score")
		switch {
		case errors.Is(err, ErrNotStreamed):
		case err != nil && wantErr == nil:
			t.Fatalf("streamed: %v; whole: no error", err)
		case err == nil && wantErr != nil:
			t.Fatalf("streamed: no error; whole: %v", wantErr)
		case err == nil:
			if got := tableView(&streamed); got != want {
				t.Fatalf("streamed rows differ:\n%s\nwhole:\n%s", got, want)
			}
		}
		var viaRef DecodedSample
		if _, err := viaRef.DecodeRef(ref, nil, "score"); (err == nil) != (wantErr == nil) {
			t.Fatalf("DecodeRef: %v; whole: %v", err, wantErr)
		} else if err == nil {
			if got := tableView(&viaRef); got != want {
				t.Fatalf("DecodeRef rows differ:\n%s\nwhole:\n%s", got, want)
			}
		}
	})
}

// The streamed and whole decodes of every sample of the fixtures and the
// shared corpora give the same view, with texts and reads cut small: the
// fuzz target's property on the real inputs, as a test.
func TestStreamViewMatchesWholeOnCorpora(t *testing.T) {
	var paths []string
	for _, dir := range []string{"../../testdata/logs", testutil.SharedCorpus(t), testutil.WildCorpus(t)} {
		ps, _ := findLogs(dir)
		paths = append(paths, ps...)
	}
	defer SetStreamSizes(0, 48, 2)()
	defer func(n int) { streamReadMax = n }(streamReadMax)
	streamReadMax = 3
	n, refused := 0, 0
	for _, p := range paths {
		l, err := Open(p)
		if err != nil {
			continue
		}
		for _, ref := range l.Samples {
			raw, err := ref.Bytes()
			if err != nil {
				continue
			}
			var whole, streamed DecodedSample
			wantErr := whole.Decode(raw, "score")
			err = streamed.DecodeStream(ref, "score")
			switch {
			case errors.Is(err, ErrNotStreamed):
				refused++
				if whole.Transcript == nil {
					t.Errorf("%s %s: not streamed, and not a 2024 transcript", p, ref.Member)
				}
				continue
			case (err == nil) != (wantErr == nil):
				t.Errorf("%s %s: streamed %v, whole %v", p, ref.Member, err, wantErr)
			case err == nil:
				if got, want := tableView(&streamed), tableView(&whole); got != want {
					t.Errorf("%s %s: views differ", p, ref.Member)
				}
				n++
			}
		}
		l.Close()
	}
	if n < 300 {
		t.Errorf("only %d samples compared (%d refused, of %d logs)", n, refused, len(paths))
	}
}

func findLogs(dir string) ([]string, error) {
	var out []string
	entries, err := os.ReadDir(dir)
	for _, e := range entries {
		p := dir + "/" + e.Name()
		switch {
		case e.IsDir():
			sub, _ := findLogs(p)
			out = append(out, sub...)
		case strings.HasSuffix(p, ".eval") || strings.HasSuffix(p, ".json") && !strings.HasSuffix(p, "EXPECT.json"):
			out = append(out, p)
		}
	}
	return out, err
}
