package check_test

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"empties/internal/cliutil"
	"empties/internal/store"
	"empties/internal/testutil"
	"empties/schema"
	"empties/stages/check"
	"empties/stages/ingest"
)

// A sample the summaries list without a member must be accounted for by an
// ingest_errors row: check passes with the row ingest writes, and fails on a
// dataset where it is absent (what ingest wrote before it reported them).
func TestMissingMemberInvariant(t *testing.T) {
	good := filepath.Join(testutil.SharedCorpus(t), "scorer", "logs", "2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval")
	holed := filepath.Join(t.TempDir(), "holed.eval")
	zr, err := zip.OpenReader(good)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, m := range zr.File {
		if m.Name == "samples/7_epoch_1.json" {
			continue
		}
		rc, _ := m.Open()
		body, _ := io.ReadAll(rc)
		rc.Close()
		w, _ := zw.Create(m.Name)
		w.Write(body)
	}
	zw.Close()
	os.WriteFile(holed, buf.Bytes(), 0o644)

	dir := t.TempDir()
	err = ingest.Run(context.Background(), ingest.Options{Paths: []string{holed}, Out: dir, Progress: "never"}, io.Discard, io.Discard)
	var partial *cliutil.PartialError
	if !errors.As(err, &partial) {
		t.Fatalf("ingest: want a partial failure, got %v", err)
	}
	var out bytes.Buffer
	if err := check.Run(context.Background(), check.Options{Data: dir}, &out); err != nil {
		t.Fatalf("check with the ingest_errors row: %v\n%s", err, out.String())
	}

	// the same dataset without its ingest_errors row
	ds, err := store.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	w, err := store.NewWriter[schema.IngestError](ds, "ingest_errors")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Keep(ds); err != nil {
		t.Fatal(err)
	}
	if err := store.Merge[schema.IngestError](ds, "ingest_errors"); err != nil {
		t.Fatal(err)
	}
	if err := ds.Commit(); err != nil {
		t.Fatal(err)
	}
	ds.Close()
	out.Reset()
	err = check.Run(context.Background(), check.Options{Data: dir}, &out)
	if !errors.As(err, &partial) || !strings.Contains(out.String(), "invariant broken: every sample a log's summaries list is a reply or an ingest_errors row") {
		t.Fatalf("check without the row: %v\n%s", err, out.String())
	}
}

// Every column of the vocabulary holds only its values: a class the
// classifier does not know breaks the check, named with its column.
func TestVocabularyInvariants(t *testing.T) {
	good := filepath.Join(testutil.SharedCorpus(t), "scorer", "logs", "2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval")
	dir := t.TempDir()
	if err := ingest.Run(context.Background(), ingest.Options{Paths: []string{good}, Out: dir, Progress: "never"}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := check.Run(context.Background(), check.Options{Data: dir}, &out); err != nil {
		t.Fatalf("check of an ingested log: %v\n%s", err, out.String())
	}
	ds, err := store.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	err = store.Rewrite(ds, "replies", func(r *schema.Reply) error {
		r.Class = "unheard_of"
		return nil
	})
	if err == nil {
		err = ds.Commit()
	}
	ds.Close()
	if err != nil {
		t.Fatal(err)
	}
	out.Reset()
	err = check.Run(context.Background(), check.Options{Data: dir}, &out)
	var partial *cliutil.PartialError
	if !errors.As(err, &partial) || !strings.Contains(out.String(), "invariant broken: every replies.class is one of error, no_choices,") {
		t.Fatalf("check after an unknown class: %v\n%s", err, out.String())
	}
}
