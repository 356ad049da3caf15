package evallog

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"time"
)

// ParseDatetime reads a datetime string as inspect_ai 0.3.285 reads one when
// it loads a log (an event's timestamp, a sample's started_at and
// completed_at, the eval's created: inspect_ai._util.dateutil): a trailing
// "Z" or "z" becomes "+00:00", then Python 3.11's datetime.fromisoformat
// parses it, a naive value is UTC, and the value is converted to UTC, which
// fails outside years 1-9999. Pydantic's own datetime parser never sees a
// string: a BeforeValidator has turned it into a datetime already.
//
// fromisoformat is CPython's C implementation (Modules/_datetimemodule.c,
// 3.11: _find_isoformat_datetime_separator, parse_isoformat_date,
// parse_isoformat_time, parse_hh_mm_ss_ff), ported here step by step on the
// string's UTF-8 bytes, reading a NUL past the end as C does; what it
// accepts and refuses, and the instant it gives, is held to Python's own
// answers on 150 forms (testdata/python-datetimes.tsv, written by
// scripts/fixtures/python_datetimes.py). Among what it accepts: a date alone,
// reduced times (hours, hours and minutes), basic forms (20260102T030405),
// ISO week dates (2026-W02-5), any one character as the separator, a comma
// for the decimal point, more than six fraction digits (cut, not rounded),
// offsets with seconds and fractions (+05:30:15.5). Among what it refuses:
// 24:00, second 60, 2026-02-30, an offset of 24 hours or more, blanks around
// the value, ordinal dates.
func ParseDatetime(s string) (time.Time, error) {
	if n := len(s); n > 0 && (s[n-1] == 'Z' || s[n-1] == 'z') {
		s = s[:n-1] + "+00:00"
	}
	d, err := fromISOFormat(s)
	if err != nil {
		return time.Time{}, err
	}
	if d.aware {
		// astimezone(timezone.utc): the instant must still have a year of
		// 1 to 9999 in UTC.
		us := d.micros() - d.offset
		if us < minMicros || us > maxMicros {
			return time.Time{}, errors.New("out of range once converted to UTC (years 1 to 9999)")
		}
		return time.UnixMicro(us).UTC(), nil
	}
	return time.UnixMicro(d.micros()).UTC(), nil
}

// The first and last microsecond Python's datetime holds, as Unix
// microseconds.
var (
	minMicros = time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
	maxMicros = time.Date(9999, 12, 31, 23, 59, 59, 999999000, time.UTC).UnixMicro()
)

// pyDatetime is what fromisoformat reads: the fields, checked, and the
// offset in microseconds when there is one.
type pyDatetime struct {
	year, month, day, hour, minute, second, micro int
	aware                                         bool
	offset                                        int64
}

func (d pyDatetime) micros() int64 {
	return time.Date(d.year, time.Month(d.month), d.day, d.hour, d.minute, d.second, d.micro*1000, time.UTC).UnixMicro()
}

var errISO = errors.New("not an ISO 8601 datetime that Python's datetime.fromisoformat reads")

// cstr reads a string as the C code does: a NUL past its end.
type cstr string

func (c cstr) at(i int) byte {
	if i < 0 || i >= len(c) {
		return 0
	}
	return c[i]
}

func isDigit(b byte) bool { return b-'0' < 10 }

// digits reads n digits at p, as parse_digits: -1 if one is not a digit.
func (c cstr) digits(p, n int, v *int) int {
	for i := 0; i < n; i++ {
		b := c.at(p)
		p++
		if !isDigit(b) {
			return -1
		}
		*v = *v*10 + int(b-'0')
	}
	return p
}

// fromISOFormat is datetime_fromisoformat.
func fromISOFormat(str string) (pyDatetime, error) {
	var d pyDatetime
	// _sanitize_isoformat_str: at least 7 characters (it counts code points;
	// a shorter string cannot be valid in bytes either).
	if n := len([]rune(str)); n < 7 {
		return d, errISO
	}
	s := cstr(str)
	sep := s.separator()
	if sep < 0 {
		return d, errISO
	}
	rv := s.date(sep, &d)
	if rv == 0 && len(s) > sep {
		p := sep
		// the separator is one character, of one to four bytes
		switch b := s.at(p); {
		case b&0x80 == 0:
			p++
		case b&0xf0 == 0xe0:
			p += 3
		case b&0xf0 == 0xf0:
			p += 4
		default:
			p += 2
		}
		rv = cstr(str[min(p, len(str)):]).time(&d)
	}
	if rv < 0 {
		return d, errISO
	}
	if d.month < 1 || d.month > 12 {
		return d, errors.New("month must be in 1..12")
	}
	if d.year < 1 || d.year > 9999 {
		return d, errors.New("year is out of range (1 to 9999)")
	}
	if d.day < 1 || d.day > daysIn(d.year, d.month) {
		return d, errors.New("day is out of range for month")
	}
	if d.hour > 23 || d.minute > 59 || d.second > 59 {
		return d, errors.New("hour must be in 0..23, minute and second in 0..59")
	}
	if d.aware && (d.offset <= -86_400_000_000 || d.offset >= 86_400_000_000) {
		return d, errors.New("the offset must be strictly between -24:00 and +24:00")
	}
	return d, nil
}

func daysIn(year, month int) int {
	return time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// separator is _find_isoformat_datetime_separator: where the date ends.
func (s cstr) separator() int {
	n := len(s)
	if n == 7 {
		return 7
	}
	if s.at(4) == '-' {
		if s.at(5) != 'W' {
			return 10 // YYYY-MM-DD
		}
		if n < 8 {
			return -1
		}
		if n > 8 && s.at(8) == '-' {
			if n == 9 {
				return -1
			}
			if n > 10 && isDigit(s.at(10)) {
				return 8 // YYYY-Www-HH...: the hyphen taken for the separator
			}
			return 10 // YYYY-Www-D
		}
		return 8 // YYYY-Www
	}
	if s.at(4) == 'W' {
		idx := 7
		for ; idx < n; idx++ {
			if !isDigit(s.at(idx)) {
				break
			}
		}
		if idx < 9 {
			return idx
		}
		if idx%2 == 0 {
			return 7 // YYYYWww
		}
		return 8 // YYYYWwwd
	}
	return 8 // YYYYMMDD
}

// date is parse_isoformat_date over the first n bytes: 0, or a negative
// code.
func (s cstr) date(n int, d *pyDatetime) int {
	p := s.digits(0, 4, &d.year)
	if p < 0 {
		return -1
	}
	dash := s.at(p) == '-'
	if dash {
		p++
	}
	if s.at(p) == 'W' {
		p++
		week, wday := 0, 0
		if p = s.digits(p, 2, &week); p < 0 {
			return -3
		}
		if p < n {
			if dash {
				if s.at(p) != '-' {
					return -2
				}
				p++
			}
			if p = s.digits(p, 1, &wday); p < 0 {
				return -4
			}
		} else {
			wday = 1
		}
		return isoToYMD(d.year, week, wday, d)
	}
	if p = s.digits(p, 2, &d.month); p < 0 {
		return -1
	}
	if dash {
		if s.at(p) != '-' {
			return -2
		}
		p++
	}
	if p = s.digits(p, 2, &d.day); p < 0 {
		return -1
	}
	return 0
}

// isoToYMD is iso_to_ymd: the date of an ISO year, week and weekday.
func isoToYMD(isoYear, week, wday int, d *pyDatetime) int {
	if week <= 0 || week >= 53 {
		ok := false
		if week == 53 {
			// 53 weeks in years starting on a Thursday, and in leap years
			// starting on a Wednesday
			first := (ymdToOrd(isoYear, 1, 1) + 6) % 7
			ok = first == 3 || first == 2 && isLeap(isoYear)
		}
		if !ok {
			return -5
		}
	}
	if wday <= 0 || wday >= 8 {
		return -6
	}
	d.year, d.month, d.day = ordToYMD(isoWeek1Monday(isoYear) + (week-1)*7 + wday - 1)
	return 0
}

// The proleptic Gregorian ordinals of the C code (day 1 is 0001-01-01),
// with C's division, which truncates toward zero as Go's does.

func isLeap(y int) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

func daysBeforeYear(y int) int {
	y--
	return y*365 + y/4 - y/100 + y/400
}

var daysBeforeMonthTable = [...]int{0, 0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334}

func daysBeforeMonth(y, m int) int {
	n := daysBeforeMonthTable[m]
	if m > 2 && isLeap(y) {
		n++
	}
	return n
}

func ymdToOrd(y, m, d int) int { return daysBeforeYear(y) + daysBeforeMonth(y, m) + d }

func isoWeek1Monday(y int) int {
	first := ymdToOrd(y, 1, 1)
	wday := (first + 6) % 7
	monday := first - wday
	if wday > 3 {
		monday += 7
	}
	return monday
}

const (
	di400y = 146097
	di100y = 36524
	di4y   = 1461
)

func ordToYMD(ordinal int) (year, month, day int) {
	ordinal--
	n400, n := ordinal/di400y, ordinal%di400y
	year = n400*400 + 1
	n100, n := n/di100y, n%di100y
	n4, n := n/di4y, n%di4y
	n1, n := n/365, n%365
	year += n100*100 + n4*4 + n1
	if n1 == 4 || n100 == 4 {
		return year - 1, 12, 31
	}
	leap := n1 == 3 && (n4 != 24 || n100 == 3)
	month = (n + 50) >> 5
	preceding := daysBeforeMonthTable[min(max(month, 0), 12)]
	if month > 2 && leap {
		preceding++
	}
	if preceding > n {
		month--
		preceding -= daysInMonth(month, leap)
	}
	return year, month, n - preceding + 1
}

func daysInMonth(m int, leap bool) int {
	if m == 2 && leap {
		return 29
	}
	return [...]int{0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[min(max(m, 0), 12)]
}

// time is parse_isoformat_time over the whole string: 0 (naive), 1 (with
// an offset), or a negative code.
func (s cstr) time(d *pyDatetime) int {
	end := len(s)
	tz := 0
	for {
		if b := s.at(tz); b == 'Z' || b == '+' || b == '-' {
			break
		}
		if tz++; tz >= end {
			break
		}
	}
	rv := s.hhmmssff(0, tz, &d.hour, &d.minute, &d.second, &d.micro)
	if rv < 0 {
		return rv
	}
	if tz == end {
		if rv == 1 {
			return -5 // text after the time
		}
		return 0
	}
	if s.at(tz) == 'Z' {
		if s.at(tz+1) != 0 {
			return -5
		}
		d.aware, d.offset = true, 0
		return 1
	}
	sign := int64(1)
	if s.at(tz) == '-' {
		sign = -1
	}
	var h, m, sec, us int
	rv = s.hhmmssff(tz+1, end, &h, &m, &sec, &us)
	// tzinfo_from_isoformat_results: a whole offset of zero seconds is UTC
	// whatever its fraction.
	d.aware = true
	if secs := int64(h*3600 + m*60 + sec); secs != 0 {
		d.offset = sign * (secs*1_000_000 + int64(us))
	}
	if rv != 0 {
		return -5
	}
	return 1
}

// hhmmssff is parse_hh_mm_ss_ff over s[p:end]: HH[:?MM[:?SS[{.,}f...]]];
// 0, 1 when text follows, or a negative code.
func (s cstr) hhmmssff(p, end int, hour, minute, second, micro *int) int {
	*hour, *minute, *second, *micro = 0, 0, 0, 0
	vals := []*int{hour, minute, second}
	colons := true
	for i := 0; i < 3; i++ {
		if p = s.digits(p, 2, vals[i]); p < 0 {
			return -3
		}
		c := s.at(p)
		p++
		if i == 0 {
			colons = c == ':'
		}
		switch {
		case p >= end:
			if c != 0 {
				return 1
			}
			return 0
		case colons && c == ':':
			continue
		case c == '.' || c == ',':
		case !colons:
			p--
			continue
		default:
			return -4
		}
		break
	}
	n := min(end-p, 6)
	if n <= 0 {
		// to_parse 0: C multiplies by correction[-1], memory before its
		// table; Python refuses every such form (the table test holds it).
		return -3
	}
	if p = s.digits(p, n, micro); p < 0 {
		return -3
	}
	if n < 6 {
		*micro *= [...]int{100000, 10000, 1000, 100, 10}[n-1]
	}
	for isDigit(s.at(p)) {
		p++
	}
	if s.at(p) != 0 {
		return 1
	}
	return 0
}

// unixTimestamp reads a JSON number as pydantic 2 reads it for an
// AwareDatetime (an event's timestamp, whose BeforeValidator passes a
// number through): Unix time in seconds, or in milliseconds where the
// number is larger than 2e10 in size; an integer exactly, a float as its
// floor in the unit and the fraction rounded to the microsecond (half away
// from zero); refused outside years 1 to 9999 and for NaN and the
// infinities. It gives microseconds since 1970. Held to the pinned
// pydantic's answers on 92 numbers (testdata/python-timestamps.tsv,
// written by scripts/fixtures/python_timestamps.py).
func unixTimestamp(lit []byte) (int64, bool) {
	const watershed = 2e10
	s := string(lit)
	if strings.IndexAny(s, ".eEIN") < 0 {
		n, err := strconv.ParseInt(s, 10, 64)
		switch {
		case err != nil:
			return 0, false
		case n >= -watershed && n <= watershed:
			return n * 1_000_000, true
		case n < minMicros/1000 || n > maxMicros/1000:
			return 0, false
		}
		return n * 1000, true
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, false
	}
	unit := 1_000_000.0 // microseconds in a second
	if math.Abs(x) > watershed {
		unit = 1000 // in a millisecond
	}
	f := math.Floor(x)
	if f*unit < float64(minMicros)-unit || f*unit > float64(maxMicros) {
		return 0, false
	}
	us := int64(f)*int64(unit) + int64(math.Round((x-f)*unit))
	if us < minMicros || us > maxMicros {
		return 0, false
	}
	return us, true
}

// unixTimeString is the datetime string of us microseconds since 1970, in
// UTC, which ParseDatetime reads back as the same instant: what the walk
// keeps for an event timestamp that was a number.
func unixTimeString(us int64) string {
	return time.UnixMicro(us).UTC().Format("2006-01-02T15:04:05.000000+00:00")
}
