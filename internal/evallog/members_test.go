package evallog

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// Sample members are enumerated as inspect_ai 0.3.285 reads them: every
// member under samples/ ending in .json, ids with "/" one folder deeper; the
// chunked layout only by its shell and a chunk beside it; a listed sample
// without a member is reported, except in a log written with log_samples off.
func TestSampleMembers(t *testing.T) {
	sample := func(id string) string { return fmt.Sprintf(`{"id": %q, "epoch": 1}`, id) }
	header := `{"version": 2, "status": "success", "eval": {"created": "2026-01-01T00:00:00+00:00", "dataset": {}, "config": {}, "task": "t", "model": "m/x"}}`
	cases := []struct {
		name    string
		members [][2]string // name, body, in order
		chunked bool
		samples string // member names in the order Samples lists them
		ids     string
		missing string // expected members of missing samples
		summ    int
	}{
		{name: "ids with slashes",
			members: [][2]string{{"header.json", header},
				{"samples/pwn/nl2bash_038_epoch_1.json", sample("pwn/nl2bash_038")},
				{"samples/a/b/c_epoch_2.json", sample("a/b/c")},
				{"samples/x_epoch_7_epoch_1.json", sample("x_epoch_7")},
				{"summaries.json", `[{"id": "pwn/nl2bash_038", "epoch": 1}, {"id": "a/b/c", "epoch": 2}, {"id": "x_epoch_7", "epoch": 1}]`}},
			samples: "samples/pwn/nl2bash_038_epoch_1.json samples/x_epoch_7_epoch_1.json samples/a/b/c_epoch_2.json",
			ids:     "pwn/nl2bash_038 x_epoch_7 a/b/c", summ: 3},
		{name: "chunked: a shell and a chunk",
			members: [][2]string{{"header.json", header},
				{"samples/1_epoch_1/sample.json", `{}`}, {"samples/1_epoch_1/events/0.json", `[]`}},
			chunked: true},
		{name: "chunked: a shell and its skeleton",
			members: [][2]string{{"header.json", header},
				{"samples/s/1_epoch_1/skeleton.json", `{}`}, {"samples/s/1_epoch_1/sample.json", `{}`}},
			chunked: true},
		{name: "a folder named like a sample without a shell is not chunked",
			members: [][2]string{{"header.json", header},
				{"samples/1_epoch_1/events/0_epoch_1.json", sample("1_epoch_1/events/0")}},
			samples: "samples/1_epoch_1/events/0_epoch_1.json", ids: "1_epoch_1/events/0"},
		{name: "listed without a member (summaries.json, int ids)",
			members: [][2]string{{"header.json", header},
				{"samples/1_epoch_1.json", `{"id": 1, "epoch": 1}`},
				{"summaries.json", `[{"id": 1, "epoch": 1}, {"id": 2, "epoch": 1}, {"id": 2, "epoch": 1}, {"id": "b/c", "epoch": 3}]`}},
			samples: "samples/1_epoch_1.json", ids: "1",
			missing: "samples/2_epoch_1.json@summaries.json samples/b/c_epoch_3.json@summaries.json", summ: 3},
		{name: "listed without a member (journal)",
			members: [][2]string{{"_journal/start.json", header},
				{"samples/1_epoch_1.json", `{"id": 1, "epoch": 1}`},
				{"_journal/summaries/1.json", `[{"id": 1, "epoch": 1}]`},
				{"_journal/summaries/2.json", `[{"id": 5, "epoch": 1}]`}},
			samples: "samples/1_epoch_1.json", ids: "1",
			missing: "samples/5_epoch_1.json@_journal/summaries/2.json", summ: 2},
		{name: "log_samples off: summaries without samples on purpose",
			members: [][2]string{{"header.json", `{"version": 2, "status": "success", "eval": {"created": "2026-01-01T00:00:00+00:00", "dataset": {}, "task": "t", "model": "m/x", "config": {"log_samples": false}}}`},
				{"summaries.json", `[{"id": 1, "epoch": 1}]`}},
			summ: 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			zw := zip.NewWriter(&buf)
			for _, m := range c.members {
				w, err := zw.Create(m[0])
				if err != nil {
					t.Fatal(err)
				}
				w.Write([]byte(m[1]))
			}
			if err := zw.Close(); err != nil {
				t.Fatal(err)
			}
			l, err := Open(writeTemp(t, "log.eval", buf.String()))
			if c.chunked {
				if !errors.Is(err, ErrChunked) {
					t.Fatalf("want ErrChunked, got %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			var names, ids, missing []string
			for _, s := range l.Samples {
				names, ids = append(names, s.Member), append(ids, s.ID)
			}
			for _, m := range l.Missing {
				missing = append(missing, m.Member+"@"+m.Source)
			}
			got := []string{strings.Join(names, " "), strings.Join(ids, " "), strings.Join(missing, " "), fmt.Sprint(l.Summaries)}
			want := []string{c.samples, c.ids, c.missing, fmt.Sprint(c.summ)}
			for i := range got {
				if got[i] != want[i] {
					t.Errorf("members, ids, missing, summaries = %q, want %q", got, want)
					break
				}
			}
		})
	}
}

// Two journal summaries members of one number (1.json, 01.json) are read in
// the same order every time, by name: the later one is the source of the
// rows they share.
func TestJournalSummariesOfOneNumberInOneOrder(t *testing.T) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	header := `{"version": 2, "status": "started", "eval": {"created": "2026-01-01T00:00:00+00:00", "dataset": {}, "config": {}, "task": "t", "model": "m/x"}}`
	for _, m := range [][2]string{{"_journal/start.json", header},
		{"_journal/summaries/1.json", `[{"id": 5, "epoch": 1}]`},
		{"_journal/summaries/01.json", `[{"id": 5, "epoch": 1}]`},
		{"_journal/summaries/2.json", `[{"id": 6, "epoch": 1}]`}} {
		w, err := zw.Create(m[0])
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(m[1]))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	p := writeTemp(t, "log.eval", buf.String())
	for range 40 { // the members come from a map, whose order changes from run to run
		l, err := Open(p)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range l.Missing {
			got = append(got, m.Member+"@"+m.Source)
		}
		l.Close()
		if want := "samples/5_epoch_1.json@_journal/summaries/1.json samples/6_epoch_1.json@_journal/summaries/2.json"; strings.Join(got, " ") != want {
			t.Fatalf("missing %q, want %q", got, want)
		}
	}
}
