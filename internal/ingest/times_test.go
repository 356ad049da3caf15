package ingest_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"empties/internal/testutil"
)

// pythonDatetimes reads what inspect_ai makes of each datetime form
// (internal/evallog/testdata/python-datetimes.tsv: microseconds, or
// "refused").
func pythonDatetimes(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open(testutil.Path(t, "internal", "evallog", "testdata", "python-datetimes.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lit, got, _ := strings.Cut(sc.Text(), "\t")
		var form string
		if json.Unmarshal([]byte(lit), &form) == nil {
			out[form] = got
		}
	}
	return out
}

// A log's datetimes are read as inspect_ai reads them: an offset with
// seconds and an ISO week date are the instants Python gives (they were
// NULL), +24:00 is refused (it was stored a day earlier), and a date or
// time that does not exist is refused (it was NULL with exit 0), each
// refusal an ingest_errors row naming the field, the exit code 1.
func TestDatetimesAsInspectReadsThem(t *testing.T) {
	python := pythonDatetimes(t)
	src := testutil.Path(t, "testdata", "logs", "deflate.eval") // real inspect_ai, deflate: RewriteZip reads it
	created := regexp.MustCompile(`"created":\s*"[^"]*"`)
	started := regexp.MustCompile(`"started_at":\s*"[^"]*"`)
	for _, form := range []string{"2026-01-02T03:04:05+05:30:15", "2026-W02-5T10:00:00", "2026-01-02T03:04:05+24:00",
		"2026-02-30T10:00:00", "2026-01-02T23:59:60", "2026-01-02T03:04:05.5-0130"} {
		want, ok := python[form]
		if !ok {
			t.Fatalf("%s is not in python-datetimes.tsv", form)
		}
		for _, field := range []string{"eval.created", "started_at"} {
			dir := t.TempDir()
			log := filepath.Join(dir, "l.eval")
			testutil.RewriteZip(t, src, log, func(name string, body []byte) []byte {
				q, _ := json.Marshal(form)
				switch {
				case field == "eval.created" && (name == "header.json" || name == "_journal/start.json"):
					return created.ReplaceAll(body, []byte(`"created": `+string(q)))
				case field == "started_at" && name == "samples/1_epoch_1.json":
					return started.ReplaceAll(body, []byte(`"started_at": `+string(q)))
				}
				return body
			})
			out, _, _, err := runIngest(t, log)
			if want == "refused" {
				errs := testutil.Query(t, out, "SELECT error FROM ingest_errors")
				if err == nil || len(errs) != 1 || !strings.Contains(errs[0][0], field+": ") || !strings.Contains(errs[0][0], form) {
					t.Errorf("%s %q: err %v, ingest_errors %v; want the log refused naming the field", field, form, err, errs)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s %q: %v", field, form, err)
				continue
			}
			q := "SELECT CAST(epoch_us(created) AS VARCHAR) FROM logs"
			if field == "started_at" {
				q = "SELECT CAST(epoch_us(started_at) AS VARCHAR) FROM replies WHERE sample_id = '1'"
			}
			if got := testutil.Query(t, out, q)[0][0]; got != want {
				t.Errorf("%s %q: stored %s µs, inspect_ai reads %s", field, form, got, want)
			}
		}
	}
}
