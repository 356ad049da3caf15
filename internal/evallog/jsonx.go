package evallog

import (
	"bytes"
	"errors"
	"math"
	"strconv"
	"unicode/utf8"

	json "github.com/goccy/go-json"
)

// Python's JSON writers (pydantic with ser_json_inf_nan="constants", and the
// stdlib json module) emit the bare tokens NaN, Infinity and -Infinity, which
// no Go decoder accepts. We decode optimistically; on a syntax error the
// document is rewritten with each bare token, outside strings, replaced by a
// sentinel string, and decoded again. Float fields decode the sentinels back
// to NaN/±Inf, and raw JSON kept for the tables has them turned back into the
// original tokens (see RestoreNonFinite).
const (
	sentinelNaN    = "\u0000NaN"
	sentinelInf    = "\u0000Infinity"
	sentinelNegInf = "\u0000-Infinity"
)

var (
	quotedNaN    = []byte(`"\u0000NaN"`)
	quotedInf    = []byte(`"\u0000Infinity"`)
	quotedNegInf = []byte(`"\u0000-Infinity"`)
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
// false) when there is nothing to rewrite.
func SanitizeNonFinite(data []byte) ([]byte, bool) {
	if !bytes.Contains(data, []byte("NaN")) && !bytes.Contains(data, []byte("Infinity")) {
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
	if !bytes.Contains(raw, []byte(`\u0000`)) {
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
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		switch s {
		case sentinelNaN:
			*f = Float{math.NaN(), true}
		case sentinelInf:
			*f = Float{math.Inf(1), true}
		case sentinelNegInf:
			*f = Float{math.Inf(-1), true}
		default:
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return errors.New("float: not a number: " + strconv.Quote(s))
			}
			*f = Float{v, true}
		}
		return nil
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return err
	}
	*f = Float{v, true}
	return nil
}

// Ptr returns the value as a pointer, nil when absent.
func (f Float) Ptr() *float64 {
	if !f.Valid {
		return nil
	}
	v := f.V
	return &v
}

// Int is an integer that also accepts null and integral floats (12.0), and
// saturates instead of failing on values beyond int64.
type Int struct {
	V     int64
	Valid bool
}

// UnmarshalJSON implements json.Unmarshaler.
func (n *Int) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || string(b) == "null" {
		*n = Int{}
		return nil
	}
	if b[0] == '"' {
		var f Float
		if err := f.UnmarshalJSON(b); err != nil {
			return err
		}
		if !f.Valid || math.IsNaN(f.V) {
			*n = Int{}
			return nil
		}
		b = []byte(strconv.FormatFloat(f.V, 'f', -1, 64))
	}
	if v, err := strconv.ParseInt(string(b), 10, 64); err == nil {
		*n = Int{v, true}
		return nil
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return err
	}
	switch {
	case v >= math.MaxInt64:
		*n = Int{math.MaxInt64, true}
	case v <= math.MinInt64:
		*n = Int{math.MinInt64, true}
	default:
		*n = Int{int64(v), true}
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

// DecodeString decodes a raw JSON string. A string without escapes that is
// valid UTF-8 (most of them) is taken as it is, which is what decoding would
// give, without a call to the decoder.
func DecodeString(raw []byte) (string, error) {
	if n := len(raw); n >= 2 && raw[0] == '"' && raw[n-1] == '"' {
		if body := raw[1 : n-1]; bytes.IndexByte(body, '\\') < 0 && bytes.IndexByte(body, '"') < 0 && utf8.Valid(body) {
			return string(body), nil
		}
	}
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err
}

// isNull reports whether a raw JSON value is absent or null.
func isNull(raw []byte) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || string(raw) == "null"
}
