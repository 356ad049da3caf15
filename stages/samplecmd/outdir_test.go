package samplecmd_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"empties/internal/guard"
	"empties/internal/ingest/ingesttest"
	"empties/internal/sample"
	"empties/internal/testutil"
	"empties/stages/samplecmd"
)

// TestReviewFolderIsGuarded: the review files go to DATA/review or a folder
// of empties' review files (one pair per seed, the others kept); a user's
// folder, the dataset itself or a folder inside its generations is refused
// before the draw and left as it was.
func TestReviewFolderIsGuarded(t *testing.T) {
	data := ingesttest.Fixtures(t, "classify", "logs")
	base := t.TempDir()
	mine := testutil.NewUserTree(t, filepath.Join(base, "mine"))
	for _, seed := range []int64{1, 2} {
		var buf bytes.Buffer
		if err := samplecmd.Run(context.Background(), samplecmd.Options{Config: sample.Config{PerClass: 2, Seed: seed}, Data: data}, &buf); err != nil {
			t.Fatal(err) // the default folder, DATA/review
		}
		draw(t, data, filepath.Join(data, "review"), seed, 2) // the same, named
	}
	for _, n := range []string{"review-seed1.jsonl", "review-seed2.html"} {
		if _, err := os.Stat(filepath.Join(data, "review", n)); err != nil {
			t.Error(err)
		}
	}
	dataTree := testutil.WitnessTree(t, data)
	for _, out := range []string{mine.Dir, data, filepath.Join(data, "current"), filepath.Join(data, "gen", "review")} {
		var buf bytes.Buffer
		err := samplecmd.Run(context.Background(), samplecmd.Options{Config: sample.Config{PerClass: 2, Seed: 1}, Data: data, Out: out}, &buf)
		var r *guard.Refusal
		if !errors.As(err, &r) {
			t.Errorf("sample --out %s: %v, want a refusal", out, err)
		}
	}
	mine.Check(t, "sample refused")
	dataTree.Check(t, "sample refused")
}
