package evallog

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	json "github.com/goccy/go-json"
)

// DecodedSample is a sample with its legacy shapes migrated (§1.7): events
// and attachments from a 2024 transcript, a version-1 single score under its
// scorer's name, and the version-3 pools in place of events_data.
type DecodedSample struct {
	Sample
	// canonical is set when the sample was walked after lastKeyWins'
	// rewrite: the walks of its raw values (inputs, outputs) take its keys
	// as decoded (see walk.canonical).
	canonical bool
	// attachments is the raw {hash: content} object that attachment:// and
	// tc:// refs point into; values are decoded only when a ref needs them.
	attachments json.RawMessage
	resolved    map[string]string
	index       attachmentIndex
	messages    []json.RawMessage
	id, idKind  string // see IDString
	// eventIndex is each kept event's place in the sample's events (the
	// walk keeps only the kinds the tables read), so that an error names
	// the event as the log lists it.
	eventIndex []int
	// view is what the tables keep of the sample, built by finish.
	view *SampleView
}

// DecodeSample decodes the raw JSON of one sample. legacyScoreName names the
// scorer of a version-1 `score` field (the first of results.scores). The
// sample's raw values (attachments, message pool, the events' inputs and
// outputs, the scores, the metadata) need not be copied: raw must stay
// unchanged while the DecodedSample is used.
func DecodeSample(raw []byte, legacyScoreName string) (*DecodedSample, error) {
	d := &DecodedSample{}
	if err := d.Decode(raw, legacyScoreName); err != nil {
		return nil, err
	}
	return d, nil
}

// rawMessages converts sub-slices of the raw sample without copying them.
func rawMessages(b [][]byte) []json.RawMessage {
	if b == nil {
		return nil
	}
	out := make([]json.RawMessage, len(b))
	for i, m := range b {
		out[i] = m
	}
	return out
}

// Release drops d's references into the raw bytes it was decoded from (its
// attachments and message pool are sub-slices of them): call it before the
// raw buffer is reused or, for a huge sample, to let it go.
func (d *DecodedSample) Release() {
	d.attachments, d.Attachments, d.messages, d.MessagePool, d.EventsData, d.resolved, d.index = nil, nil, nil, nil, nil, nil, attachmentIndex{}
	if d.Transcript != nil {
		d.Transcript.Content = nil
	}
	// The other raw values are sub-slices too.
	d.ID, d.Metadata, d.Scores, d.Score, d.view = nil, nil, nil, nil, nil
	clear(d.Events[:cap(d.Events)])
	d.Events = d.Events[:0]
}

// reset empties d for the next decode, keeping the memory of its event
// list: the decoder decodes into existing elements, so they are cleared.
func (d *DecodedSample) reset() {
	events, index := d.Events[:cap(d.Events)], d.eventIndex[:0]
	clear(events)
	*d = DecodedSample{}
	d.Events, d.eventIndex = events[:0], index
}

// Decode is DecodeSample into d, reusing the memory of d's event list: a
// worker that decodes sample after sample into one DecodedSample does not
// grow a new list (the largest allocation of a decode) for each. Nothing of
// the previous sample survives.
//
// A sample is decoded by one walk of its bytes (walk.go): it takes
// what the tables read where it lies (raw values are sub-slices of raw),
// checks the rest as inspect_ai's decoder would refuse it (invalid JSON
// anywhere; the shape and types of what it reads, with pydantic's lax
// conversions), reads NaN and Infinity as Python writes them, and names
// where a sample it refuses goes wrong. A sample that repeats a key where
// that matters, or spells a key with an escape, is walked again after
// lastKeyWins' rewrite, in which no key repeats (as Python decodes keys).
// A sample too large to hold is walked as its member streams past
// (DecodeRef, stream.go), which hands the walk a document of what the
// tables read.
func (d *DecodedSample) Decode(raw []byte, legacyScoreName string) error {
	d.reset()
	if err := d.walkDocument(raw); err != nil {
		return err
	}
	d.attachments = d.Attachments
	return d.finish(legacyScoreName)
}

// walkDocument walks the sample raw into d (reset), or its rewrite.
func (d *DecodedSample) walkDocument(raw []byte) error {
	err := d.walkSample(raw, false)
	if errors.Is(err, errRewrite) {
		// The walk stopped at the first repeated key; what lies after it
		// must be JSON too, or the rewrite might make it so.
		if err := syntaxError(raw); err != nil {
			return err
		}
		canon, _ := lastKeyWins(raw)
		d.reset()
		d.canonical = true
		return d.walkSample(canon, true)
	}
	if err != nil && syntaxError(raw) == nil {
		// A value the walk refused may be one a later repeat of its key
		// replaces, before the walk reached the repeat: Python keeps the
		// last, so the verdict is the rewrite's.
		if canon, repeated := lastKeyWins(raw); repeated {
			d.reset()
			d.canonical = true
			return d.walkSample(canon, true)
		}
	}
	return err
}

// finish migrates a decoded sample's legacy shapes and checks its id and
// scores.
func (d *DecodedSample) finish(legacyScoreName string) error {
	var err error
	if d.id, d.idKind, err = sampleID(d.ID); err != nil {
		return err
	}
	if t := d.Transcript; t != nil {
		if len(d.Events) == 0 {
			d.Events, d.eventIndex = t.Events, t.index
		}
		if isNull(d.attachments) {
			d.attachments = t.Content
		}
	}
	if d.Scores == nil && d.Score != nil {
		name := legacyScoreName
		if name == "" {
			name = "score"
		}
		d.Scores = map[string]Score{name: *d.Score}
	}
	for name, s := range d.Scores {
		if v := bytes.TrimSpace(s.Value); isInteger(v) {
			if _, err := strconv.ParseFloat(string(v), 64); err != nil {
				// Python reads the int; value_to_float's float(value) raises.
				return fmt.Errorf("scores.%s: the value, an integer of %d digits, is too large for a float (inspect_ai's value_to_float raises OverflowError on it)", name, len(bytes.TrimLeft(v, "-")))
			}
		}
	}
	switch {
	case d.EventsData != nil && len(d.EventsData.Messages) > 0:
		d.messages = d.EventsData.Messages
	case len(d.MessagePool) > 0:
		// Version 3 (0.3.195-0.3.199 with INSPECT_LOG_FORMAT_V3): the same
		// ranges into a top-level pool, which inspect_ai's current reader
		// silently drops (§3.4).
		d.messages = d.MessagePool
	}
	if err := d.validate(); err != nil {
		return err
	}
	d.buildView()
	return nil
}

// IDString returns the sample id as text and whether inspect_ai reads it as
// an int ("int") or a string ("str"). Integers keep their exact digits, even
// beyond int64.
func (d *DecodedSample) IDString() (id, kind string) {
	return d.id, d.idKind
}

// sampleID reads a sample id as pydantic reads EvalSample.id (int | str):
// a string, or an integer (any size); an integral float within int64 (1.0,
// 2.5e3) and a boolean are read as that int, as pydantic's lax mode does.
// Anything else is an error, as it is for inspect_ai.
func sampleID(raw json.RawMessage) (id, kind string, err error) {
	raw = bytes.TrimSpace(raw)
	switch {
	case isNull(raw):
		return "", "", fmt.Errorf("sample has no id")
	case raw[0] == '"':
		s, err := DecodeString(raw)
		if err != nil {
			return "", "", fmt.Errorf("sample id %.40s: %w", raw, err)
		}
		return s, "str", nil
	case string(raw) == "true":
		return "1", "int", nil
	case string(raw) == "false":
		return "0", "int", nil
	case string(raw) == "-0":
		return "0", "int", nil
	case isInteger(raw):
		return string(raw), "int", nil
	}
	if f, err := strconv.ParseFloat(string(raw), 64); err == nil && f == math.Trunc(f) && f >= math.MinInt64 && f < math.MaxInt64 {
		return strconv.FormatInt(int64(f), 10), "int", nil
	}
	return "", "", fmt.Errorf("sample id %.40s is neither an int nor a string (nor an integral number within int64)", raw)
}

// isInteger reports whether a raw JSON value is an integer literal.
func isInteger(raw []byte) bool {
	if len(raw) > 0 && raw[0] == '-' {
		raw = raw[1:]
	}
	if len(raw) == 0 {
		return false
	}
	for _, c := range raw {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Resolve replaces a whole-string attachment reference (attachment://<hash>,
// or the 2024 form tc://<hash>) by its content; other strings, and refs to
// unknown hashes, are returned unchanged (§3.3).
func (d *DecodedSample) Resolve(s string) string {
	var hash string
	switch {
	case strings.HasPrefix(s, "attachment://"):
		hash = s[len("attachment://"):]
	case strings.HasPrefix(s, "tc://"):
		hash = s[len("tc://"):]
	default:
		return s
	}
	if v, ok := d.resolved[hash]; ok {
		return v
	}
	v, ok := d.index.lookup(d.attachments, hash)
	if !ok {
		return s
	}
	if d.resolved == nil {
		d.resolved = map[string]string{}
	}
	d.resolved[hash] = v
	return v
}

// lookupString finds the string value of key in a raw JSON object without
// decoding the rest: a sample's attachments can be a large share of its
// bytes, and only the few a reply or judge text refers to are needed. The
// last occurrence of the key wins, as in Python's decoders. Inside a JSON
// string every quote is escaped, so `"key":` whose quote is not escaped can
// only be a key.
func lookupString(obj json.RawMessage, key string) (string, bool) {
	needle := []byte(`"` + key + `"`)
	isSpace := func(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }
	for hi := len(obj); hi > 0; {
		i := bytes.LastIndex(obj[:hi], needle)
		if i < 0 {
			return "", false
		}
		hi = i
		if escapedAt(obj, i) {
			continue // a quote inside a string
		}
		j := i + len(needle)
		for j < len(obj) && isSpace(obj[j]) {
			j++
		}
		if j >= len(obj) || obj[j] != ':' {
			continue // a string value
		}
		j++
		for j < len(obj) && isSpace(obj[j]) {
			j++
		}
		if j >= len(obj) || obj[j] != '"' {
			return "", false
		}
		end := j + 1
		for {
			end = nextQuoteOrBackslash(obj, end)
			if end < 0 {
				return "", false // unterminated
			}
			if obj[end] == '"' {
				break
			}
			end += 2 // the backslash and the byte it escapes
		}
		v, err := DecodeString(obj[j : end+1])
		return v, err == nil
	}
	return "", false
}

// attachmentIndex maps each key of a sample's attachments object to its
// raw string value, built at the first lookup: a sample's replies and judge
// prompts refer to many attachments, and searching the object backwards
// for each (lookupString) cost more than decoding the sample.
type attachmentIndex struct {
	built, flat bool
	values      map[string][]byte // the raw value of each key's last member
}

// lookup is lookupString(obj, key), from the index of obj. An object the
// index does not take (a value that is not a string, a key with an escape,
// invalid JSON) is searched by lookupString.
func (x *attachmentIndex) lookup(obj []byte, key string) (string, bool) {
	if !x.built {
		x.built = true
		x.values, x.flat = indexStrings(obj)
	}
	if !x.flat || strings.ContainsAny(key, `"\`) {
		return lookupString(obj, key)
	}
	raw, ok := x.values[key]
	if !ok {
		return "", false
	}
	v, err := DecodeString(raw)
	return v, err == nil
}

// indexStrings maps the raw keys (without their quotes) of a JSON object
// whose values are all strings to their raw values, the last member of a
// repeated key winning, as lookupString finds it. flat is false for any
// other object, or for null or nothing.
func indexStrings(obj []byte) (values map[string][]byte, flat bool) {
	i := ws(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return nil, false
	}
	values = map[string][]byte{}
	if i = ws(obj, i+1); i < len(obj) && obj[i] == '}' {
		return values, ws(obj, i+1) == len(obj)
	}
	for {
		ke := stringEnd(obj, i)
		if ke < 0 || bytes.IndexByte(obj[i:ke], '\\') >= 0 {
			return nil, false
		}
		key := obj[i+1 : ke-1]
		if i = ws(obj, ke); i >= len(obj) || obj[i] != ':' {
			return nil, false
		}
		vs := ws(obj, i+1)
		ve := stringEnd(obj, vs)
		if ve < 0 {
			return nil, false
		}
		values[string(key)] = obj[vs:ve]
		if i = ws(obj, ve); i >= len(obj) {
			return nil, false
		}
		switch obj[i] {
		case ',':
			i = ws(obj, i+1)
		case '}':
			return values, ws(obj, i+1) == len(obj)
		default:
			return nil, false
		}
	}
}

// escapedAt reports whether b[i] is escaped: preceded by an odd number of
// backslashes.
func escapedAt(b []byte, i int) bool {
	n := 0
	for i > 0 && b[i-1] == '\\' {
		n++
		i--
	}
	return n%2 == 1
}

// InputMessages returns a model event's input messages, expanding input_refs
// ranges into the message pool like a Python slice (out-of-range ends are
// cut, §3.4). It decodes only the role, content and tool calls of each
// message.
func (d *DecodedSample) InputMessages(e *Event) ([]Message, error) {
	raws, err := d.inputRaws(e.InputRefs, e.Input)
	if err != nil {
		return nil, err
	}
	msgs := make([]Message, len(raws))
	for i, raw := range raws {
		m := &msgs[i]
		if _, err := d.walkRaw(raw, func(w *walk, i int) (int, bool) {
			*m = Message{}
			return w.message(i, m)
		}); err != nil {
			return nil, fmt.Errorf("model event input message: %w", err)
		}
	}
	return msgs, nil
}

// InputCount is the number of a model event's input messages, counted
// without decoding them.
func (d *DecodedSample) InputCount(e *Event) (int, error) {
	if len(e.InputRefs) > 0 {
		parts, err := d.pooledInput(e.InputRefs)
		n := 0
		for _, p := range parts {
			n += len(p)
		}
		return n, err
	}
	if !isInlineList(e.Input) {
		return 0, nil
	}
	raws, err := d.inlineMessages(e.Input)
	return len(raws), err
}

// LastUserText is the text of the last user message of a model event's input
// (what a judge was asked); only that message is decoded whole.
func (d *DecodedSample) LastUserText(e *Event) (string, error) {
	raws, err := d.inputRaws(e.InputRefs, e.Input)
	if err != nil {
		return "", err
	}
	for i := len(raws) - 1; i >= 0; i-- {
		user, text, err := d.userText(raws[i]) // usually the last message is the user's
		if err != nil {
			return "", err
		}
		if user {
			return text, nil
		}
	}
	return "", nil
}

// inlineMessages lists the messages of an inline input list (objects, or
// null, checked as the sample's kept values are), each a sub-slice of
// input.
func (d *DecodedSample) inlineMessages(input []byte) ([]json.RawMessage, error) {
	var raws []json.RawMessage
	_, err := d.walkRaw(input, func(w *walk, i int) (int, bool) {
		raws = []json.RawMessage{}
		return w.elements(i, func(w *walk, es int) (int, bool) {
			if w.b[es] != '{' && !w.isNullAt(es) {
				return 0, false // a message is an object (or null, a zero one, as goccy reads it)
			}
			ve, ok := w.skipChecked(es)
			if ok {
				raws = append(raws, w.b[es:ve])
			}
			return ve, ok
		})
	})
	if err != nil {
		return nil, fmt.Errorf("model event input: %w", err)
	}
	return raws, nil
}

// walkRaw walks the raw value raw of the sample (a message, an input list,
// an output) with fn, as the sample was walked (canonical or not); a value
// the walk takes only after lastKeyWins' rewrite is walked again so (fn
// starts over: it resets what it fills). It returns the bytes walked (raw,
// or its rewrite, which what fn took lies in) and the walk's error.
func (d *DecodedSample) walkRaw(raw []byte, fn func(w *walk, i int) (int, bool)) ([]byte, error) {
	canonical := d.canonical
	for {
		w := &walk{b: raw, canonical: canonical}
		end, ok := fn(w, ws(raw, 0))
		if ok && ws(raw, end) == len(raw) {
			return raw, nil
		}
		if ok {
			w.failAt = ws(raw, end) + 1 // something after the value
		}
		if !w.rewrite {
			return raw, w.error()
		}
		raw, _ = lastKeyWins(raw)
		canonical = true
	}
}

// inputRaws lists a model event's raw input messages (its input_refs and
// input): the input_refs ranges of the pool, or the inline input list.
func (d *DecodedSample) inputRaws(refs [][]int, input json.RawMessage) ([]json.RawMessage, error) {
	var raws []json.RawMessage
	if len(refs) > 0 {
		parts, err := d.pooledInput(refs)
		if err != nil {
			return nil, err
		}
		for _, p := range parts {
			raws = append(raws, p...)
		}
	} else if isInlineList(input) {
		return d.inlineMessages(input)
	}
	return raws, nil
}

// pooledInput returns the ranges of the message pool that a model event's
// input_refs name, cut like Python slices (out-of-range ends, §3.4).
func (d *DecodedSample) pooledInput(refs [][]int) ([][]json.RawMessage, error) {
	parts := make([][]json.RawMessage, 0, len(refs))
	for _, r := range refs {
		if len(r) != 2 {
			return nil, fmt.Errorf("input_refs: malformed range %v", r)
		}
		if lo, hi := max(r[0], 0), min(r[1], len(d.messages)); lo < hi {
			parts = append(parts, d.messages[lo:hi])
		}
	}
	return parts, nil
}

func isInlineList(raw json.RawMessage) bool {
	return !isNull(raw) && strings.HasPrefix(strings.TrimSpace(string(raw)), "[")
}

// ModelOutput decodes a model event's output, but for its completion,
// which is left empty: no table reads a call's completion (a copy of the
// reply's text; sample.output's is read, Sample.Output).
func (d *DecodedSample) ModelOutput(e *Event) (*ModelOutput, error) {
	if isNull(e.Output) {
		return nil, nil
	}
	o := e.decoded // the walk's, as it passed the output
	if o == nil {
		o = new(ModelOutput)
		if _, err := d.walkRaw(e.Output, func(w *walk, i int) (int, bool) {
			*o = ModelOutput{}
			return w.modelOutput(i, o, false)
		}); err != nil {
			return nil, fmt.Errorf("model event output: %w", err)
		}
	}
	if err := checkOutput("model event output", o); err != nil {
		return nil, err
	}
	return o, nil
}

// EventError returns a model event's error message ("" when the call
// succeeded). The field is a string on model events.
func EventError(e *Event) string {
	if isNull(e.Error) {
		return ""
	}
	if s, err := DecodeString(e.Error); err == nil {
		return s
	}
	var msg string
	w := &walk{b: e.Error, canonical: true} // an EvalError, in some old logs
	if end, ok := w.members(ws(e.Error, 0), func(w *walk, k []byte, vs int) (int, bool) {
		if string(k) == "message" {
			return w.stringValue(vs, &msg)
		}
		return w.skipLoose(vs)
	}); ok && ws(e.Error, end) == len(e.Error) {
		return msg
	}
	return string(e.Error)
}

// Text is message.text as inspect_ai defines it: a string content, or the
// text items joined by newlines; reasoning, tool use and media are excluded.
// Attachment refs are resolved.
func (d *DecodedSample) Text(m *Message) string {
	var parts []string
	for _, c := range m.Content {
		if c.Type == "text" {
			parts = append(parts, d.Resolve(c.Text))
		}
	}
	return strings.Join(parts, "\n")
}
