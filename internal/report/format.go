package report

import (
	"strings"

	"empties/internal/numfmt"
	"empties/internal/sqlfmt"
)

// The page's formats are internal/numfmt's.
var (
	pct       = numfmt.Percent
	count     = numfmt.Count
	plural    = numfmt.Plural
	number    = numfmt.Number
	interval  = numfmt.Interval
	pp        = numfmt.PP
	ppSigned  = numfmt.PPSigned
	trimZeros = numfmt.TrimZeros
)

// asFloat reads a numeric value DuckDB returned.
func asFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case int64:
		return float64(x), true
	case int32:
		return float64(x), true
	case int16:
		return float64(x), true
	case int8:
		return float64(x), true
	case uint64:
		return float64(x), true
	case uint32:
		return float64(x), true
	case int:
		return float64(x), true
	}
	return 0, false
}

// asInt reads an integer value DuckDB returned.
func asInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int32:
		return int64(x), true
	case int16:
		return int64(x), true
	case int8:
		return int64(x), true
	case uint64:
		return int64(x), true
	case uint32:
		return int64(x), true
	case int:
		return int64(x), true
	}
	return 0, false
}

// text renders a value as it is stored: NULL as "", strings as they are
// (never quoted or escaped again), lists joined.
func text(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = text(e)
		}
		return strings.Join(parts, ", ")
	}
	return sqlfmt.Format(v)
}
