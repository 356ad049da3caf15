// Package scorevalue projects raw score values the way inspect_ai reads
// them: the value's JSON kind, value_to_float, and a text form.
package scorevalue

import (
	"errors"
	"math"
	"strconv"
	"strings"

	json "github.com/goccy/go-json"
)

func ptr(s string) *string { return &s }

// Project classifies a raw score value (NaN literals already restored)
// and projects it with inspect_ai's value_to_float (scorer/_metric.py):
// "C" → 1, "P" → 0.5, "I" and "N" → 0, compared before lower-casing; then
// yes/true → 1, no/false → 0, finite numeric strings → their value; numbers
// and booleans → float (NaN stays NaN); anything else (other strings, lists,
// dicts) → 0.0, as inspect_ai does after a warning. A null value (legacy
// ScoreEvent form of NaN) projects to NaN. A number beyond the float range
// is ±Inf, as Python reads 1e999; an integer beyond it has no float (nil):
// Python reads the int and value_to_float's float() raises OverflowError,
// which the reader reports before a value gets here.
func Project(raw []byte) (kind string, f *float64, s *string) {
	fl := func(v float64) *float64 { return &v }
	switch {
	case string(raw) == "null":
		return "null", fl(math.NaN()), nil
	case string(raw) == "NaN":
		return "float", fl(math.NaN()), ptr("NaN")
	case string(raw) == "Infinity":
		return "float", fl(math.Inf(1)), ptr("Infinity")
	case string(raw) == "-Infinity":
		return "float", fl(math.Inf(-1)), ptr("-Infinity")
	case string(raw) == "true":
		return "bool", fl(1), ptr("true")
	case string(raw) == "false":
		return "bool", fl(0), ptr("false")
	case raw[0] == '"':
		var v string
		if err := json.Unmarshal(raw, &v); err != nil {
			return "str", fl(0), ptr(string(raw))
		}
		return "str", fl(stringToFloat(v)), &v
	case raw[0] == '{':
		return "dict", fl(0), nil
	case raw[0] == '[':
		return "list", fl(0), nil
	}
	text := string(raw)
	kind = "int"
	if strings.ContainsAny(text, ".eE") {
		kind = "float"
	}
	v, err := strconv.ParseFloat(text, 64)
	switch {
	case err == nil:
		return kind, &v, &text
	case errors.Is(err, strconv.ErrRange) && kind == "float":
		return kind, &v, &text // ±Inf (or 0 for an underflow), as Python reads it
	case errors.Is(err, strconv.ErrRange):
		return kind, nil, &text
	}
	return "float", fl(0), &text
}

func stringToFloat(v string) float64 {
	switch v {
	case "C":
		return 1
	case "P":
		return 0.5
	case "I", "N":
		return 0
	}
	switch strings.ToLower(v) {
	case "yes", "true":
		return 1
	case "no", "false":
		return 0
	}
	if f, ok := pythonFloat(v); ok && !math.IsNaN(f) && !math.IsInf(f, 0) {
		return f
	}
	return 0
}

// pythonFloat parses a string the way Python's float() does for the cases
// value_to_float meets: surrounding whitespace allowed, underscores between
// digits allowed.
func pythonFloat(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	if strings.Contains(s, "_") {
		if strings.HasPrefix(s, "_") || strings.HasSuffix(s, "_") || strings.Contains(s, "__") {
			return 0, false
		}
		s = strings.ReplaceAll(s, "_", "")
	}
	low := strings.ToLower(s)
	if strings.HasPrefix(low, "0x") || strings.HasPrefix(low, "+0x") || strings.HasPrefix(low, "-0x") {
		return 0, false // Go accepts hex floats, Python's float() does not
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, false
	}
	return f, true
}
