package evallog

import (
	"encoding/json"
	"strconv"
	"testing"
)

// ParseDatetime accepts what inspect_ai accepts when it reads a log's
// datetime strings and refuses what it refuses, and gives the same instant,
// on every form of testdata/python-datetimes.tsv: Python 3.11's
// datetime.fromisoformat through inspect_ai's own models, written by
// scripts/fixtures/python_datetimes.py (make fixtures). The shape check of
// a log's datetimes (checkDatetime) is the same parse.
func TestDatetimesAsPythonReadsThem(t *testing.T) {
	n := 0
	for _, row := range tsvRows(t, "testdata/python-datetimes.tsv") {
		if len(row) != 2 {
			t.Fatalf("bad row %q", row)
		}
		lit, want := row[0], row[1]
		var form string
		if err := json.Unmarshal([]byte(lit), &form); err != nil {
			t.Fatalf("%s: %v", lit, err)
		}
		n++
		got := "refused"
		if ts, err := ParseDatetime(form); err == nil {
			got = strconv.FormatInt(ts.UnixMicro(), 10)
		}
		if got != want {
			t.Errorf("%s: %s, Python %s", lit, got, want)
		}
		if accepted := checkDatetime("started_at", form) == nil; accepted != (want != "refused") {
			t.Errorf("%s: checkDatetime accepts it: %v, Python reads it: %v", lit, accepted, want != "refused")
		}
	}
	if n < 150 {
		t.Errorf("%d forms, want the table's 150 or more", n)
	}
}

// unixTimestamp reads a number as the pinned pydantic reads it for an
// event's timestamp, and refuses what it refuses, on every literal of
// testdata/python-timestamps.tsv (scripts/fixtures/python_timestamps.py,
// make fixtures): seconds and milliseconds either side of 2e10, fractions
// rounded at the microsecond, the ends of years 1 and 9999, NaN.
func TestUnixTimestampsAsPydanticReadsThem(t *testing.T) {
	n := 0
	for _, row := range tsvRows(t, "testdata/python-timestamps.tsv") {
		if len(row) != 2 {
			t.Fatalf("bad row %q", row)
		}
		lit, want := row[0], row[1]
		n++
		got := "refused"
		if us, ok := unixTimestamp([]byte(lit)); ok {
			got = strconv.FormatInt(us, 10)
			// the string the walk stores for it reads back as the instant
			d, err := ParseDatetime(unixTimeString(us))
			if err != nil || d.UnixMicro() != us {
				t.Errorf("%s: its datetime string reads back as %v, %v", lit, d, err)
			}
		}
		if got != want {
			t.Errorf("%s: %s, pydantic %s", lit, got, want)
		}
	}
	if n < 90 {
		t.Errorf("%d literals, want the table's 90 or more", n)
	}
}
