// Package numfmt is how numbers read on a page: a share as a percentage, a
// count with separators, any other number in four significant digits, a
// change in percentage points with its unit. The report and the decisions
// (decide's sentences and cells) format through it, so a share reads the
// same wherever it is shown.
package numfmt

import (
	"math"
	"strconv"
	"strings"

	"empties/internal/sqlfmt"
)

// How the pages (the report, the decisions) show numbers. The tables keep
// full precision (CSV, Parquet); a page rounds for reading and never shows a rounded value that reads as
// another: a share above 0 is never "0%", one below 1 never "100%".

// Percent renders a share (0..1) as a percentage: one decimal from 1%, two
// significant digits below it, trailing zeros of the decimal dropped from
// 1% up (50%, 12.3%, but 0.10%); near 100% enough
// decimals (up to four) that only 1 reads as 100%. Ends within 1e-9 of 0 or
// 1 are those values: the Wilson macro's float noise (a lower end of
// 1.7e-18), not a share.
func Percent(x float64) string {
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
		s = TrimZeros(s)
	}
	for x < 1 && x > 0.99 && s == "100" {
		if d == 4 {
			return ">99.9999%"
		}
		d++
		s = TrimZeros(strconv.FormatFloat(v, 'f', d, 64))
	}
	return s + "%"
}

// TrimZeros drops the trailing zeros of a decimal: 12.50 reads 12.5, 3.0 reads 3.
func TrimZeros(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// Count renders an integer with thousands separators (sqlfmt.Thousands).
func Count(n int64) string { return sqlfmt.Thousands(n) }

// Plural counts things: 1 row, 0 rows, 1,265 rows.
func Plural(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return Count(n) + " " + many
}

// ToolCalls is how a reply's tool calls read on a page (the report's
// examples, serve's sample page, sample's review page): "none", or their
// count and functions, "2: bash, python" (functions already joined).
func ToolCalls(n int64, functions string) string {
	switch {
	case n == 0:
		return "none"
	case functions == "":
		return strconv.FormatInt(n, 10)
	}
	return strconv.FormatInt(n, 10) + ": " + functions
}

// Number renders any other float: integers as integers, else four
// significant digits without an exponent where that stays short.
func Number(x float64) string {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return sqlfmt.Format(x)
	case x == math.Trunc(x) && math.Abs(x) < 1e15:
		return Count(int64(x))
	case math.Abs(x) < 1e-12:
		return "0"
	case math.Abs(x) >= 1e-4 && math.Abs(x) < 1e6:
		d := 3 - int(math.Floor(math.Log10(math.Abs(x))))
		if d < 0 {
			d = 0
		}
		return TrimZeros(strconv.FormatFloat(x, 'f', d, 64))
	}
	return strconv.FormatFloat(x, 'g', 4, 64)
}

// Interval renders [low, high], each end already in the estimate's format.
func Interval(lo, hi string) string { return "[" + lo + ", " + hi + "]" }

// PP renders a difference in percentage points with its unit: 41.29 pp.
func PP(x float64) string { return Number(x) + " pp" }

// PPSigned renders a change in percentage points with its sign and unit:
// +41.29 pp, −3.2 pp, 0 pp.
func PPSigned(x float64) string {
	switch {
	case x > 0:
		return "+" + PP(x)
	case x < 0:
		return "−" + PP(-x)
	}
	return PP(x)
}
