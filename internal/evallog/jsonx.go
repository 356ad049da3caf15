package evallog

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	json "github.com/goccy/go-json"
)

// Python's JSON writers (pydantic with ser_json_inf_nan="constants", and the
// stdlib json module) emit the bare tokens NaN, Infinity and -Infinity, which
// no Go decoder accepts. We decode optimistically; on a syntax error the
// document is rewritten with each bare token, outside strings, replaced by a
// sentinel string, and decoded again. Float fields decode the sentinels back
// to NaN/±Inf, and raw JSON kept for the tables has them turned back into the
// original tokens (see RestoreNonFinite).
//
// A sentinel starts with the byte 0xFF, which UTF-8 text never holds: no
// string of a log that inspect_ai reads (pydantic refuses invalid UTF-8)
// can be mistaken for one, whatever it spells. The sentinels were once
// "\u0000NaN" and the like, which a sample may legitimately hold as text:
// in a sample that also held a bare NaN, such a text came back as NaN.
const (
	sentinelNaN    = "\xffNaN"
	sentinelInf    = "\xffInfinity"
	sentinelNegInf = "\xff-Infinity"
)

var (
	quotedNaN    = []byte(`"` + sentinelNaN + `"`)
	quotedInf    = []byte(`"` + sentinelInf + `"`)
	quotedNegInf = []byte(`"` + sentinelNegInf + `"`)
)

// unmarshal decodes data into v, retrying once with the non-finite literals
// rewritten when the first attempt fails. It reports whether the rewrite was
// needed, so callers can restore raw values.
func unmarshal(data []byte, v any) (sanitized bool, err error) {
	err = json.Unmarshal(data, v)
	if err == nil {
		return false, nil
	}
	clean, changed := SanitizeNonFinite(data)
	if !changed {
		return false, err
	}
	if err2 := json.Unmarshal(clean, v); err2 != nil {
		return true, err2
	}
	return true, nil
}

// SanitizeNonFinite rewrites bare NaN, Infinity and -Infinity tokens that sit
// outside JSON strings into sentinel strings. It returns data unchanged (and
// false) when there is nothing to rewrite, and when data already holds a
// sentinel's bytes (only text that is not UTF-8 can): the decoder's error
// then stands, as a rewrite could not be told apart from the text.
func SanitizeNonFinite(data []byte) ([]byte, bool) {
	if !bytes.Contains(data, []byte("NaN")) && !bytes.Contains(data, []byte("Infinity")) {
		return data, false
	}
	if bytes.IndexByte(data, 0xff) >= 0 && (bytes.Contains(data, quotedNaN) || bytes.Contains(data, quotedInf) || bytes.Contains(data, quotedNegInf)) {
		return data, false
	}
	var out []byte
	last := 0
	inString := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case 'N':
			if bytes.HasPrefix(data[i:], []byte("NaN")) {
				out = append(append(out, data[last:i]...), quotedNaN...)
				i += 2
				last = i + 1
			}
		case 'I':
			if bytes.HasPrefix(data[i:], []byte("Infinity")) {
				out = append(append(out, data[last:i]...), quotedInf...)
				i += 7
				last = i + 1
			}
		case '-':
			if bytes.HasPrefix(data[i:], []byte("-Infinity")) {
				out = append(append(out, data[last:i]...), quotedNegInf...)
				i += 8
				last = i + 1
			}
		}
	}
	if out == nil {
		return data, false
	}
	return append(out, data[last:]...), true
}

// RestoreNonFinite turns sentinel strings in a raw JSON value back into the
// bare tokens Python wrote, so stored JSON reads the same as the log.
func RestoreNonFinite(raw []byte) []byte {
	if bytes.IndexByte(raw, 0xff) < 0 {
		return raw
	}
	raw = bytes.ReplaceAll(raw, quotedNaN, []byte("NaN"))
	raw = bytes.ReplaceAll(raw, quotedNegInf, []byte("-Infinity"))
	return bytes.ReplaceAll(raw, quotedInf, []byte("Infinity"))
}

// Float is a float64 that also accepts null, the non-finite sentinels and
// numeric strings.
type Float struct {
	V     float64
	Valid bool
}

// UnmarshalJSON implements json.Unmarshaler.
func (f *Float) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || string(b) == "null" {
		*f = Float{}
		return nil
	}
	if b[0] == '"' {
		switch {
		case bytes.Equal(b, quotedNaN):
			*f = Float{math.NaN(), true}
			return nil
		case bytes.Equal(b, quotedInf):
			*f = Float{math.Inf(1), true}
			return nil
		case bytes.Equal(b, quotedNegInf):
			*f = Float{math.Inf(-1), true}
			return nil
		}
		s, err := DecodeString(b)
		if err != nil {
			return err
		}
		v, err := parseFloat(s)
		if err != nil {
			return errors.New("float: not a number: " + strconv.Quote(s))
		}
		*f = Float{v, true}
		return nil
	}
	v, err := parseFloat(string(b))
	if err != nil {
		return err
	}
	*f = Float{v, true}
	return nil
}

// parseFloat parses a JSON number as Python reads one into a float: beyond
// the float range a number with a fraction or exponent is ±Inf (json.loads
// and pydantic give inf for 1e999), and an integer is an error (pydantic
// refuses an int too large for a float field; float(int) raises
// OverflowError).
func parseFloat(s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil && errors.Is(err, strconv.ErrRange) {
		if isInteger([]byte(s)) {
			return 0, fmt.Errorf("float: the integer %.20s… (%d digits) is too large for a float", s, len(strings.TrimPrefix(s, "-")))
		}
		return v, nil // ±Inf, or 0 for an underflow
	}
	return v, err
}

// Ptr returns the value as a pointer, nil when absent.
func (f Float) Ptr() *float64 {
	if !f.Valid {
		return nil
	}
	v := f.V
	return &v
}

// Int is an int read as pydantic reads one (pyInt): null is absent; an
// integer, a float without a fraction (12.0), a bool or a string of one
// ("12") is its value, one beyond int64 saturates; a fraction, NaN or other
// text is an error, as pydantic refuses them.
type Int struct {
	V     int64
	Valid bool
}

// UnmarshalJSON implements json.Unmarshaler.
func (n *Int) UnmarshalJSON(b []byte) error {
	v, null, ok := pyInt(b)
	switch {
	case !ok:
		return fmt.Errorf("not an int: %.40s", bytes.TrimSpace(b))
	case null:
		*n = Int{}
	default:
		*n = Int{v, true}
	}
	return nil
}

// Ptr returns the value as a pointer, nil when absent.
func (n Int) Ptr() *int64 {
	if !n.Valid {
		return nil
	}
	v := n.V
	return &v
}

// DecodeString decodes a raw JSON string as encoding/json (and goccy, and
// so the decoder this package had) decode it: escapes resolved, a \u
// surrogate pair joined, a lone surrogate and every byte of invalid UTF-8
// replaced by U+FFFD. A string without escapes that is valid UTF-8 (most of
// them) is its body; any other is unescaped in one pass (unquote); null is
// "", and whitespace around either is passed over. raw that is not one
// well-formed JSON string is an error. FuzzDecodeString holds it
// to goccy.
func DecodeString(raw []byte) (string, error) {
	if n := len(raw); n > 0 && (raw[0] <= ' ' || raw[n-1] <= ' ') {
		raw = raw[ws(raw, 0):]
		for len(raw) > 0 && isSpace(raw[len(raw)-1]) {
			raw = raw[:len(raw)-1]
		}
	}
	if string(raw) == "null" {
		return "", nil // as goccy decodes null into a string
	}
	if n := len(raw); n >= 2 && raw[0] == '"' && raw[n-1] == '"' {
		body := raw[1 : n-1]
		if bytes.IndexByte(body, '\\') < 0 && bytes.IndexByte(body, '"') < 0 && utf8.Valid(body) && !hasControl(body) {
			return string(body), nil
		}
		if s, ok := unquote(body); ok {
			return s, nil
		}
	}
	return "", fmt.Errorf("not a JSON string: %.40q", raw)
}

// unquote unescapes the body of a JSON string into one allocation
// (appendUnquoted).
func unquote(body []byte) (string, bool) {
	out, ok := appendUnquoted(make([]byte, 0, len(body)), body) // unescaping only shortens valid text
	return unsafe.String(unsafe.SliceData(out), len(out)), ok
}

// appendUnquoted appends the unescaped body of a JSON string to dst in one
// pass: the runs between escapes are found 32 bytes at a time
// (indexSpecial), and copied whole where they are valid UTF-8 (a byte of
// invalid UTF-8 becomes U+FFFD). It reports false for an invalid escape, a
// raw quote or control byte. A body cut where a character starts and not
// within an escape (the stream walk's chunks of a big text) gives, chunk by
// chunk, what it gives whole.
func appendUnquoted(out, body []byte) ([]byte, bool) {
	i := 0
	for {
		k, found := indexSpecial(body[i:])
		k += i
		if !found {
			k = indexSpecialWords(body, k)
		}
		if run := body[i:k]; utf8.Valid(run) {
			out = append(out, run...)
		} else {
			for len(run) > 0 {
				r, size := utf8.DecodeRune(run)
				out = utf8.AppendRune(out, r) // RuneError for an invalid byte
				run = run[size:]
			}
		}
		if k == len(body) {
			break
		}
		if body[k] != '\\' {
			return out, false // a raw quote or control byte
		}
		n := escapeLen(body[k:])
		if n <= 0 {
			return out, false
		}
		switch e := body[k+1]; e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r := hex4(body[k+2 : k+6])
			if utf16.IsSurrogate(r) {
				r0 := r
				r = utf8.RuneError
				if k+12 <= len(body) && body[k+6] == '\\' && escapeLen(body[k+6:]) == 6 {
					if pair := utf16.DecodeRune(r0, hex4(body[k+8:k+12])); pair != utf8.RuneError {
						r, n = pair, 12
					}
				}
			}
			out = utf8.AppendRune(out, r)
		}
		i = k + n
	}
	return out, true
}

// hex4 is the value of four hex digits (checked by escapeLen).
func hex4(h []byte) rune {
	var r rune
	for _, c := range h[:4] {
		switch {
		case c <= '9':
			c -= '0'
		case c <= 'F':
			c -= 'A' - 10
		default:
			c -= 'a' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// isNull reports whether a raw JSON value is absent or null.
func isNull(raw []byte) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || string(raw) == "null"
}

// maxKeyDepth is the nesting past which lastKeyWins stops looking (and
// leaves the document to the decoder, which refuses it past the same depth).
const maxKeyDepth = 10000

// lastKeyWins returns data without the object members whose key the same
// object repeats later, so that decoding it gives what Python's decoders
// give: json.loads and pydantic keep the last value of a repeated key,
// where goccy would decode the second into the first (merging two objects
// field by field, or two lists element by element, or two maps key by
// key). Keys are compared as decoded. When no object repeats a key (every
// log inspect_ai writes) it returns data itself and false; invalid JSON is
// returned as it is, for the decoder to report.
//
// Every document decoded goes through it, so the common case is a scan
// (mayRepeatKey) several times faster than the rewrite, which runs only
// when the scan finds a key that may be repeated.
func lastKeyWins(data []byte) ([]byte, bool) {
	if !mayRepeatKey(data) {
		return data, false
	}
	return dropRepeatedKeys(data)
}

// dropRepeatedKeys is lastKeyWins without the scan first: it allocates
// nothing for a document whose objects have up to 48 keys and repeat none.
func dropRepeatedKeys(data []byte) ([]byte, bool) {
	// What the walk keeps of an object of many keys: key → index in keys.
	type object = map[string]int
	var stackArr [64]keyFrame[object]
	stack := stackArr[:0]
	type key struct {
		start, end int // the quoted key in data
		escaped    bool
	}
	var keysArr [256]key
	keys := keysArr[:0]
	var drop [][2]int
	text := func(k key) string {
		if k.escaped {
			if d, err := DecodeString(data[k.start:k.end]); err == nil {
				return d
			}
		}
		return string(data[k.start+1 : k.end-1])
	}
	expectKey := false
	for i := 0; i < len(data); i++ {
		// Most bytes outside strings are indentation, digits and literals;
		// a byte nextStructural stops at that no case names is passed over.
		if i = nextStructural(data, i); i >= len(data) {
			break
		}
		switch data[i] {
		case '{', '[':
			var ok bool
			if stack, ok = openFrame(stack, data[i] == '{', len(keys)); !ok {
				return data, false
			}
			expectKey = data[i] == '{'
		case '}', ']':
			var ok bool
			if stack, keys, ok = closeFrame(stack, keys); !ok {
				return data, false
			}
			expectKey = false
		case ',':
			expectKey = inObject(stack)
		case '"':
			end, escaped := i+1, false
			for {
				end = nextQuoteOrBackslash(data, end)
				if end < 0 {
					return data, false // unterminated
				}
				if data[end] == '"' {
					break
				}
				escaped = true
				end += 2
			}
			if expectKey && len(stack) > 0 {
				f := &stack[len(stack)-1]
				k := key{i, end + 1, escaped}
				dup := -1
				if f.of == nil && len(keys)-f.first > 48 {
					f.of = make(map[string]int, 2*(len(keys)-f.first))
					for j := f.first; j < len(keys); j++ {
						f.of[text(keys[j])] = j
					}
				}
				if f.of != nil {
					t := text(k)
					if j, ok := f.of[t]; ok {
						dup = j
					}
					f.of[t] = len(keys)
				} else {
					n := k.end - k.start
					for j := len(keys) - 1; j >= f.first; j-- {
						o := keys[j]
						if o.escaped || k.escaped {
							if text(o) == text(k) {
								dup = j
								break
							}
							continue
						}
						// Keys of one object mostly differ in length or in
						// their last byte.
						if o.end-o.start == n && data[o.end-2] == data[k.end-2] && bytes.Equal(data[o.start:o.end], data[k.start:k.end]) {
							dup = j
							break
						}
					}
				}
				if dup >= 0 {
					// The earlier member, from its key to the next member's.
					next := k
					if dup+1 < len(keys) {
						next = keys[dup+1]
					}
					drop = append(drop, [2]int{keys[dup].start, next.start})
				}
				keys = append(keys, k)
				expectKey = false
			}
			i = end
		}
	}
	if len(drop) == 0 || len(stack) != 0 {
		return data, false
	}
	slices.SortFunc(drop, func(a, b [2]int) int { return a[0] - b[0] })
	out := make([]byte, 0, len(data))
	last := 0
	for _, d := range drop {
		if d[0] < last {
			continue // inside a member already dropped
		}
		out = append(out, data[last:d[0]]...)
		last = d[1]
	}
	return append(out, data[last:]...), true
}
