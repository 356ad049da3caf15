package report

import (
	"math"
	"strconv"
	"strings"

	"empties/internal/sqlfmt"
)

// How the page shows numbers. The tables keep full precision (CSV, Parquet);
// the page rounds for reading and never shows a rounded value that reads as
// another: a share above 0 is never "0%", one below 1 never "100%".

// pct renders a share (0..1) as a percentage: one decimal from 1%, two
// significant digits below it, trailing zeros of the decimal dropped from
// 1% up (50%, 12.3%, but 0.10%); near 100% enough
// decimals (up to four) that only 1 reads as 100%. Ends within 1e-9 of 0 or
// 1 are those values: the Wilson macro's float noise (a lower end of
// 1.7e-18), not a share.
func pct(x float64) string {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return sqlfmt.Format(x)
	case math.Abs(x) < 1e-9:
		return "0%"
	case math.Abs(x-1) < 1e-9:
		return "100%"
	}
	v := x * 100
	a := math.Abs(v)
	d := 1
	if a < 1 {
		d = 1 - int(math.Floor(math.Log10(a))) // two significant digits
	}
	s := strconv.FormatFloat(v, 'f', d, 64)
	if a >= 1 { // below 1% both significant digits stay: 0.10%
		s = trimZeros(s)
	}
	for x < 1 && x > 0.99 && s == "100" {
		if d == 4 {
			return ">99.9999%"
		}
		d++
		s = trimZeros(strconv.FormatFloat(v, 'f', d, 64))
	}
	return s + "%"
}

func trimZeros(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// count renders an integer with thousands separators (sqlfmt.Thousands).
func count(n int64) string { return sqlfmt.Thousands(n) }

// number renders any other float: integers as integers, else four
// significant digits without an exponent where that stays short.
func number(x float64) string {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return sqlfmt.Format(x)
	case x == math.Trunc(x) && math.Abs(x) < 1e15:
		return count(int64(x))
	case math.Abs(x) < 1e-12:
		return "0"
	case math.Abs(x) >= 1e-4 && math.Abs(x) < 1e6:
		d := 3 - int(math.Floor(math.Log10(math.Abs(x))))
		if d < 0 {
			d = 0
		}
		return trimZeros(strconv.FormatFloat(x, 'f', d, 64))
	}
	return strconv.FormatFloat(x, 'g', 4, 64)
}

// interval renders [low, high] with the estimate's format.
func interval(lo, hi string) string { return "[" + lo + ", " + hi + "]" }

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
