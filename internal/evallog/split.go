package evallog

import (
	"bytes"
	"reflect"
	"strings"
)

// The stream walk (stream.go) hands the decoder only the fields of Sample,
// with the events cut to the kinds the tables read (model calls and the
// spans and steps that scope them): the rest of a sample (tool events,
// store, message history, provider calls) is most of its bytes.

// sampleFields are the keys of Sample the decoder is given (matched without
// regard to case, as the decoder matches them), and kindFields those whose
// kind alone is checked (its fields of type jsonKind): the walks give the
// decoder a placeholder of the value's kind (kindPlaceholder), not the
// value. Both are read from Sample's json tags; the members the walks take
// apart themselves (walkedApart) are in neither.
var sampleFields, kindFields = sampleKeys()

// walkedApart are the members of a sample the walks keep as raw sub-slices
// instead of handing them to the decoder.
var walkedApart = map[string]bool{"attachments": true, "events_data": true, "message_pool": true}

func sampleKeys() (kept, kinds []string) {
	t := reflect.TypeFor[Sample]()
	for i := range t.NumField() {
		f := t.Field(i)
		key, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case key == "" || key == "-":
			panic("evallog: Sample." + f.Name + " has no json key")
		case f.Type == reflect.TypeFor[jsonKind]():
			kinds = append(kinds, key)
		case !walkedApart[key]:
			kept = append(kept, key)
		}
	}
	return kept, kinds
}

// keptField returns the entry of sampleFields that key names, having
// appended the member's start (a comma after an earlier member, the key and
// the colon) to the object slim (which starts with its '{'), or "" when key
// is no field of Sample.
func keptField(slim *[]byte, key []byte) string {
	for _, f := range sampleFields {
		if keyIs(key, f) {
			if len(*slim) > 1 {
				*slim = append(*slim, ',')
			}
			*slim = append(append(*slim, key...), ':')
			return f
		}
	}
	return ""
}

// kindField appends the member key: <a placeholder of the kind of a value
// starting with first> to slim when key is one of kindFields, and reports
// whether it was.
func kindField(slim *[]byte, key []byte, first byte) bool {
	for _, f := range kindFields {
		if keyIs(key, f) {
			if len(*slim) > 1 {
				*slim = append(*slim, ',')
			}
			*slim = append(append(append(*slim, key...), ':'), kindPlaceholder(first)...)
			return true
		}
	}
	return false
}

// keptEvents are the event kinds the tables read.
var keptEvents = map[string]bool{"model": true, "span_begin": true, "step": true}

func keyIs(key []byte, name string) bool {
	if len(key) < 2 {
		return false
	}
	body := key[1 : len(key)-1]
	if bytes.IndexByte(body, '\\') < 0 {
		return bytes.EqualFold(body, []byte(name))
	}
	s, err := DecodeString(key)
	return err == nil && strings.EqualFold(s, name)
}

func firstByte(b []byte) byte {
	if i := ws(b, 0); i < len(b) {
		return b[i]
	}
	return 0
}

// eachMember calls fn with the raw key (quotes included) and the raw value
// of each member of the object b, in order. It reports false when b is not a
// well-formed object or fn returns false.
func eachMember(b []byte, fn func(key, val []byte) bool) bool {
	w := &walk{b: b}
	return eachItem(b, '{', func(i int) (int, bool) {
		ke, _, ok := w.checkString(i)
		if !ok {
			return 0, false
		}
		j := ws(b, ke)
		if j >= len(b) || b[j] != ':' {
			return 0, false
		}
		vs := ws(b, j+1)
		ve, ok := skipValue(b, vs)
		return ve, ok && fn(b[i:ke], b[vs:ve])
	})
}

// eachElement calls fn with each raw element of the array b.
func eachElement(b []byte, fn func(e []byte) bool) bool {
	return eachItem(b, '[', func(i int) (int, bool) {
		ve, ok := skipValue(b, i)
		return ve, ok && fn(b[i:ve])
	})
}

// eachItem walks the object or array (open is '{' or '[') that is all of b:
// item consumes the member or element at b[i] and returns where it ends.
// It reports false when b is not well formed or item returns false.
func eachItem(b []byte, open byte, item func(i int) (int, bool)) bool {
	closer := end(open)
	i := ws(b, 0)
	if i >= len(b) || b[i] != open {
		return false
	}
	i = ws(b, i+1)
	if i < len(b) && b[i] == closer {
		return ws(b, i+1) == len(b)
	}
	for {
		e, ok := item(i)
		if !ok {
			return false
		}
		i = ws(b, e)
		if i >= len(b) {
			return false
		}
		switch b[i] {
		case ',':
			i = ws(b, i+1)
		case closer:
			return ws(b, i+1) == len(b)
		default:
			return false
		}
	}
}

// skipValue returns the end of the JSON value at b[i], checked as the walk
// checks a value it skips (skipLoose, without the index): the one walker,
// for the few raw values read outside a walk (a header's members, a score's
// value, a literal of the stream walk).
func skipValue(b []byte, i int) (int, bool) {
	w := &walk{b: b}
	return w.skipPortable(i, false)
}

// isNumber reports whether s is a JSON number: -?(0|[1-9][0-9]*)(.[0-9]+)?
// ([eE][+-]?[0-9]+)?. A value skipped must be one the decoder would take,
// or the walk would accept a sample that decoding whole refuses.
func isNumber(s []byte) bool {
	i := 0
	digits := func() bool {
		n := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i > n
	}
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case !digits():
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if !digits() {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if !digits() {
			return false
		}
	}
	return i == len(s)
}

func end(open byte) byte {
	if open == '{' {
		return '}'
	}
	return ']'
}

func isScalarByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-' || c == '+' || c == '.'
}
