package ingestcmd_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/urfave/cli/v3"

	"empties/internal/cliutil"
	"empties/internal/ingest"
	"empties/internal/store"
	"empties/internal/testutil"
	"empties/stages/ingestcmd"
)

// options are the command's options for an ingest of paths into out,
// with no progress display.
func options(out string, paths ...string) ingestcmd.Options {
	return ingestcmd.Options{Config: ingest.Config{Paths: paths, Out: out}, ProgressMode: "never"}
}

// full is opts with --full.
func full(opts ingestcmd.Options) ingestcmd.Options {
	opts.Full = true
	return opts
}

// runCommand runs `ingest args...` as the CLI does, without exiting on a
// partial failure, and returns what it printed and its error.
func runCommand(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	cmd := ingestcmd.Command()
	var out, errb bytes.Buffer
	cmd.Writer, cmd.ErrWriter = &out, &errb
	cmd.ExitErrHandler = func(context.Context, *cli.Command, error) {} // no os.Exit on the partial failure
	err = cmd.Run(context.Background(), append([]string{"ingest"}, args...))
	return out.String(), errb.String(), err
}

// --max-member-mb reaches the reader: a 21 MB sample fails under a cap of
// 8 MiB, naming the member, and is read under the default.
func TestMaxMemberFlag(t *testing.T) {
	src := t.TempDir()
	bad := filepath.Join(src, "big.eval")
	huge := strings.Repeat("all work and no play ", 1<<20)
	if err := os.WriteFile(bad, testutil.EvalLog(t, "big", testutil.SampleJSON(1, 1, huge, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		fail bool
	}{{[]string{"--max-member-mb", "8"}, true}, {nil, false}} {
		_, stderr, err := runCommand(t, append([]string{"--out", t.TempDir(), "--progress", "never", src}, tc.args...)...)
		if tc.fail {
			if err == nil || !strings.Contains(stderr, bad+": samples/1_epoch_1.json: member declares") || !strings.Contains(stderr, "cap of 8388608") {
				t.Errorf("%v: err %v\n%s", tc.args, err, stderr)
			}
		} else if err != nil {
			t.Errorf("default cap: %v\n%s", err, stderr)
		}
	}
}

// The help text states the compaction threshold the code applies.
func TestHelpStatesCompactionThreshold(t *testing.T) {
	help := strings.Join(strings.Fields(ingestcmd.Command().Description), " ")
	rows := fmt.Sprint(store.RowsPerFile)
	for i := len(rows) - 3; i > 0; i -= 3 {
		rows = rows[:i] + "," + rows[i:]
	}
	for _, want := range []string{fmt.Sprintf("more than %d part files", store.MaxSmallParts), "fewer than " + rows + " rows"} {
		if !strings.Contains(help, want) {
			t.Errorf("ingest help does not say %q", want)
		}
	}
}

// Every flag is checked before any work, as a usage error (exit code 2)
// that names the flag, and nothing is written.
func TestFlagsAreChecked(t *testing.T) {
	logs := testutil.Path(t, "testdata", "logs", "zstd-basic.eval")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--out", "OUT"}, "no PATH given"},
		{[]string{"--out", "OUT", "--progress", "sometimes", logs}, "--progress must be auto, always, never or json"},
		{[]string{"--out", "OUT", "--compression", "lz5", logs}, "--compression must be one of"},
		{[]string{"--out", "OUT", "--max-member-mb", "-1", logs}, "--max-member-mb must be positive"},
	} {
		out := filepath.Join(t.TempDir(), "ds")
		for i, a := range tc.args {
			if a == "OUT" {
				tc.args[i] = out
			}
		}
		_, _, err := runCommand(t, tc.args...)
		var usage *cliutil.UsageError
		if !errors.As(err, &usage) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want a usage error with %q", tc.args, err, tc.want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%v: the dataset folder exists after a usage error (%v)", tc.args, err)
		}
	}
}

// The summary of a run over a good log, one that cannot be read and a .json
// that is no log: the counts, the file skipped, the reply classes and where
// the tables are; each error goes to stderr as it is found, and the exit
// code is 1. A second run reads only the failed file again and says that
// nothing changed.
func TestSummaryOfARun(t *testing.T) {
	logs := t.TempDir()
	testutil.CopyFile(t, testutil.Path(t, "testdata", "logs", "zstd-basic.eval"), filepath.Join(logs, "good.eval"))
	broken := filepath.Join(logs, "broken.eval")
	notes := filepath.Join(logs, "notes.json")
	os.WriteFile(broken, []byte("PK\x03\x04 not a zip"), 0o644)
	os.WriteFile(notes, []byte(`{"hello": 1}`), 0o644)
	ds := filepath.Join(t.TempDir(), "ds")

	stdout, stderr, err := runCommand(t, "--out", ds, "--progress", "never", logs)
	var exit cli.ExitCoder
	if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(err.Error(), "1 of 2 files could not be read") {
		t.Errorf("err %v, want exit code 1 naming the file that could not be read", err)
	}
	if !strings.Contains(stderr, "error: "+broken+": ") {
		t.Errorf("stderr does not name the broken file:\n%s", stderr)
	}
	samples := testutil.Query(t, ds, "SELECT count(*) FROM replies")[0][0]
	for _, want := range []string{
		"ingested 1 of 2 files, " + samples + " samples, ",
		"; 1 failed; 1 file skipped\n",
		"  skipped " + notes + ": a .json file that is not an Inspect log",
		"reply classes:\n  answer ",
		"tables in " + filepath.Join(ds, store.CurrentLink) + " (DuckDB views: " + filepath.Join(ds, store.ViewsFile) + ")\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "incremental:") || strings.Contains(stdout, "log set:") {
		t.Errorf("a first run into a new dataset, with no log superseded, prints an incremental or log set line:\n%s", stdout)
	}

	stdout, _, _ = runCommand(t, "--out", ds, "--progress", "never", logs)
	for _, want := range []string{
		"ingested 0 of 1 new or changed file, 0 samples",
		"incremental: new 1, changed 0, unchanged 1, removed 0 (--full reads every file again)\n",
		"nothing changed: the dataset is as it was\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("second run: summary lacks %q:\n%s", want, stdout)
		}
	}
}

// --progress json writes one JSON object a line on stderr, among the
// messages: a first line with the files to read, and a last one with every
// file, sample and byte read, as the summary counts them.
func TestProgressJSON(t *testing.T) {
	logs := testutil.Path(t, "testdata", "logs")
	stdout, stderr, err := runCommand(t, "--out", filepath.Join(t.TempDir(), "ds"), "--progress", "json", logs)
	if err != nil && !errors.As(err, new(*cliutil.PartialError)) {
		t.Fatalf("ingest: %v\n%s", err, stderr)
	}
	type line struct {
		Progress string `json:"progress"`
		Files    int    `json:"files"`
		Total    int    `json:"total"`
		Samples  int64  `json:"samples"`
		Bytes    int64  `json:"bytes"`
	}
	var lines []line
	for _, s := range strings.Split(strings.TrimSpace(stderr), "\n") {
		if !strings.HasPrefix(s, `{"progress":`) {
			continue // a message about a file
		}
		var l line
		if err := json.Unmarshal([]byte(s), &l); err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		lines = append(lines, l)
	}
	if len(lines) < 2 {
		t.Fatalf("%d progress lines in:\n%s", len(lines), stderr)
	}
	first, last := lines[0], lines[len(lines)-1]
	if first.Progress != "ingest" || first.Files != 0 || first.Total == 0 {
		t.Errorf("first line %+v: want the files to read and none read", first)
	}
	if last.Files != last.Total || last.Total != first.Total {
		t.Errorf("last line %+v: want every one of the %d files read", last, first.Total)
	}
	if want := fmt.Sprintf("ingested %d of %d files, %d samples", last.Files-failedFiles(stdout), last.Total, last.Samples); !strings.Contains(stdout, want) {
		t.Errorf("the summary does not say %q:\n%s", want, stdout)
	}
	if strings.Contains(stderr, "\r") || strings.Contains(stderr, "\033[") {
		t.Errorf("terminal codes in json mode: %q", stderr)
	}
}

// failedFiles reads "; N failed" from an ingest summary.
func failedFiles(summary string) int {
	var n int
	if m := regexp.MustCompile(`; (\d+) failed`).FindStringSubmatch(summary); m != nil {
		n, _ = strconv.Atoi(m[1])
	}
	return n
}
