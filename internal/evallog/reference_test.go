package evallog

import (
	stdjson "encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	json "github.com/goccy/go-json"
)

// decodeWhole decodes raw as this package did before the walk took every
// sample (and still decodes a log's header): lastKeyWins' rewrite, then
// goccy over the whole document with NaN and Infinity literals read as
// strings and restored in the raw values kept, then finish. It is the
// reference the walk is held to, but where goccy is not Python: goccy
// matches a key to a field without regard to case (Python's models do not:
// such a key is an extra field) and takes a NaN literal rewritten to a
// string for a string (Python refuses a float there); see divergent.
func decodeWhole(raw []byte, legacy string) (*DecodedSample, error) {
	d := &DecodedSample{}
	if clean, _ := SanitizeNonFinite(raw); !stdjson.Valid(clean) {
		// lastKeyWins can drop a malformed member with the earlier of two
		// equal keys, making JSON of what is not
		return nil, errors.New("invalid JSON")
	}
	raw, _ = lastKeyWins(raw)
	sanitized, err := unmarshal(raw, &d.Sample)
	if err != nil {
		return nil, describeJSONError(raw, err)
	}
	if sanitized {
		restoreRaws(reflect.ValueOf(&d.Sample).Elem())
	}
	d.attachments = d.Attachments
	if err := d.finish(legacy); err != nil {
		return nil, err
	}
	return d, nil
}

var rawType = reflect.TypeFor[json.RawMessage]()

// restoreRaws puts back the NaN and Infinity literals SanitizeNonFinite
// rewrote in every raw value under v.
func restoreRaws(v reflect.Value) {
	switch {
	case v.Type() == rawType:
		if !v.IsNil() {
			v.SetBytes(RestoreNonFinite(v.Bytes()))
		}
	case v.Kind() == reflect.Pointer:
		if !v.IsNil() {
			restoreRaws(v.Elem())
		}
	case v.Kind() == reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				restoreRaws(v.Field(i))
			}
		}
	case v.Kind() == reflect.Slice:
		for i := range v.Len() {
			restoreRaws(v.Index(i))
		}
	case v.Kind() == reflect.Map:
		for _, k := range v.MapKeys() {
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(v.MapIndex(k))
			restoreRaws(e)
			v.SetMapIndex(k, e)
		}
	}
}

// divergent reports whether raw holds something on which goccy, the
// reference, is not Python, and the walk follows Python: keys, a key with an
// upper-case or non-ASCII byte (goccy matches it to a field without regard
// to case); nan, a NaN or Infinity literal (goccy reads it rewritten, as a
// string, where a string is wanted).
func divergent(raw []byte) (keys, nan bool) {
	w := &walk{b: raw, canonical: true}
	var visit func(i int) (int, bool)
	visit = func(i int) (int, bool) {
		i = ws(raw, i)
		if i >= len(raw) {
			return 0, false
		}
		switch raw[i] {
		case '{':
			return w.walkObject(i, func(w *walk, k []byte, vs int) (int, bool) {
				for _, c := range k {
					if c >= 0x80 || c-'A' < 26 {
						keys = true
					}
				}
				return visit(vs)
			})
		case '[':
			return w.elements(i, func(w *walk, es int) (int, bool) { return visit(es) })
		case 'N', 'I', '-':
			end, ok := w.scalarEnd(i)
			if ok && strings.ContainsAny(string(raw[i:end]), "NI") {
				nan = true
			}
			return end, ok
		}
		return w.skipPortable(i, false)
	}
	visit(0)
	return keys, nan
}

// stricter reports whether raw holds a value the reference takes and
// inspect_ai's models refuse, which the walk refuses as they do (the
// malformed logs' verdicts, VERDICTS.tsv, are inspect_ai's own): null
// where pydantic takes no None (events, a message's content, a choice's
// stop_reason, usage's input, output and total tokens, a model event's
// model, an event's timestamp, an output's choices, an item of a message's
// tool calls), "" for a datetime, a number for a sample's
// datetime, an attachment that is not a string, a score's answer,
// explanation or reason that is not a string, a model event without its
// model. It looks at keys by name wherever they are: it may pass over more
// than it must, never less.
func stricter(raw []byte) bool {
	w := &walk{b: raw, canonical: true}
	found := false
	isNull := func(i int) bool { return w.isNullAt(ws(raw, i)) }
	first := func(i int) byte {
		if i = ws(raw, i); i < len(raw) {
			return raw[i]
		}
		return 0
	}
	var visit func(i, depth int) (int, bool)
	visit = func(i, depth int) (int, bool) {
		i = ws(raw, i)
		if i >= len(raw) {
			return 0, false
		}
		switch raw[i] {
		case '{':
			model, hasModel := false, false
			end, ok := w.walkObject(i, func(w *walk, k []byte, vs int) (int, bool) {
				key := string(k)
				switch key {
				case "events", "content", "stop_reason", "input_tokens", "output_tokens", "total_tokens", "timestamp", "choices":
					found = found || isNull(vs)
				case "tool_calls":
					if first(vs) == '[' {
						w.elements(ws(raw, vs), func(w *walk, es int) (int, bool) {
							found = found || w.isNullAt(es)
							return w.skipPortable(es, false)
						})
					}
				case "event":
					model = model || string(raw[vs:min(len(raw), vs+7)]) == `"model"`
				case "model":
					hasModel = !isNull(vs)
				case "answer", "explanation", "reason":
					found = found || kindOf(first(vs))&(kString|kNull) == 0
				case "attachments":
					if first(vs) != '{' {
						found = true
						break
					}
					w.walkObject(ws(raw, vs), func(w *walk, _ []byte, as int) (int, bool) {
						found = found || first(as) != '"'
						return w.skipPortable(ws(raw, as), false)
					})
				}
				switch key {
				case "timestamp", "started_at", "completed_at":
					found = found || string(raw[vs:min(len(raw), vs+2)]) == `""` || key != "timestamp" && kindOf(first(vs)) == kNumber
				}
				return visit(vs, depth+1)
			})
			found = found || model && !hasModel
			return end, ok
		case '[':
			return w.elements(i, func(w *walk, es int) (int, bool) { return visit(es, depth+1) })
		}
		return w.skipPortable(i, false)
	}
	visit(0, 0)
	return found
}

// sameDecode fails the test unless Decode gives raw's sample as the
// reference does (the view the tables read, the id, the pools and
// attachments) or both refuse it, but where the reference is not Python
// (divergent); it reports whether Decode took it.
func sameDecode(t *testing.T, name string, raw []byte) bool {
	t.Helper()
	var got DecodedSample
	err := got.Decode(raw, "")
	want, werr := decodeWhole(raw, "")
	keys, nan := divergent(raw)
	switch {
	case (err == nil) != (werr == nil) && (keys || nan):
		return err == nil // where the reference is not Python
	case err != nil && werr == nil && stricter(raw):
		return false // where the reference takes what Python refuses
	case err != nil && werr == nil:
		t.Errorf("%s: the walk refuses a sample the reference takes: %v", name, err)
		return false
	case err == nil && werr != nil:
		t.Errorf("%s: the walk takes a sample the reference refuses (%v)", name, werr)
		return true
	case err != nil:
		return false
	case keys:
		return true
	}
	gv, wv := *got.View(), *want.View()
	if !reflect.DeepEqual(gv, wv) {
		t.Errorf("%s: the walk gives\n%+v\nthe reference\n%+v", name, gv, wv)
	}
	if !reflect.DeepEqual(got.messages, want.messages) || string(got.attachments) != string(want.attachments) {
		t.Errorf("%s: the walk differs in its pools or attachments", name)
	}
	if gi, gk := got.IDString(); true {
		if wi, wk := want.IDString(); gi != wi || gk != wk {
			t.Errorf("%s: id %q %s, the reference %q %s", name, gi, gk, wi, wk)
		}
	}
	return true
}

// The reference is the decoder that was: a sample it takes is decoded, one
// it refuses is not.
func TestReferenceIsTheDecoder(t *testing.T) {
	if _, err := decodeWhole([]byte(`{"id": 1, "epoch": 1, "scores": {"s": {"value": NaN}}}`), ""); err != nil {
		t.Fatal(err)
	}
	if _, err := decodeWhole([]byte(`{"id": 1, "epoch": 1, "events": [}`), ""); err == nil {
		t.Fatal("invalid JSON decoded")
	}
}
