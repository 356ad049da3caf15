package app

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"empties/internal/store"
	"empties/internal/testutil"
)

// Every stage that reads a dataset refuses one without the table it needs,
// before any work, in store.RequireTables' one wording (exit 2): the
// dataset, the table, and the command that writes it. The stages held
// seven wordings of it ("has no tables; run the pipeline first", ...).
func TestEveryStageRequiresItsTablesInOneWording(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	var out, errs bytes.Buffer
	ingest := []string{"empties", "ingest", testutil.Path(t, "testdata", "logs", "zstd-basic.eval"), "--out", data, "--progress", "never"}
	if code := Main(context.Background(), Root(), ingest, &out, &errs); code != 0 {
		t.Fatalf("ingest: exit %d\n%s%s", code, out.String(), errs.String())
	}
	// select reads rescore's reply_outcomes, which an ingested dataset lacks
	type refusal struct {
		args []string
		says string
	}
	cases := []refusal{
		{[]string{"select", "--data", data, "--manifest", testutil.Path(t, "data", "study.yaml"), "--out", filepath.Join(t.TempDir(), "plan.json"), "wide"},
			"select: " + data + " has no reply_outcomes table; run `empties rescore --data " + data + " --manifest FILE` first"},
	}
	// the others read replies: a copy of the dataset without it
	noReplies := filepath.Join(t.TempDir(), "data")
	if err := os.CopyFS(noReplies, os.DirFS(data)); err != nil {
		t.Fatal(err)
	}
	cur, err := store.Current(noReplies)
	if err != nil || cur == "" {
		t.Fatalf("current generation of %s: %q %v", noReplies, cur, err)
	}
	if err := os.RemoveAll(filepath.Join(cur, "replies")); err != nil {
		t.Fatal(err)
	}
	if store.HasTable(noReplies, "replies") {
		t.Fatal("the copy still has a replies table")
	}
	manifest := testutil.Path(t, "data", "study.yaml")
	for _, c := range [][]string{
		{"analyze", "--data", noReplies, "--manifest", manifest},
		{"check", "--data", noReplies},
		{"classify", "--data", noReplies},
		{"decide", "--data", noReplies, "--manifest", manifest},
		{"report", "--data", noReplies, "--out", filepath.Join(t.TempDir(), "report")},
		{"rescore", "--data", noReplies, "--manifest", manifest},
		{"sample", "--data", noReplies},
		{"serve", noReplies},
	} {
		cases = append(cases, refusal{c, c[0] + ": " + noReplies + " has no replies table; run `empties ingest LOGS --out " + noReplies + "` first"})
	}
	for _, c := range cases {
		out.Reset()
		errs.Reset()
		code := Main(context.Background(), Root(), append([]string{"empties"}, c.args...), &out, &errs)
		if code != 2 || !strings.Contains(errs.String(), c.says) {
			t.Errorf("empties %s: exit %d, want 2 and %q\nstderr: %s", c.args[0], code, c.says, errs.String())
		}
	}
}
