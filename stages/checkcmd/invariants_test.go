package checkcmd_test

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"empties/internal/cliutil"
	"empties/internal/ingest"
	"empties/internal/ingest/ingesttest"
	"empties/internal/store"
	"empties/internal/testutil"
	"empties/schema"
	"empties/stages/checkcmd"
)

// A sample the summaries list without a member must be accounted for by an
// ingest_errors row: check passes with the row ingest writes, and fails on a
// dataset where it is absent (what ingest wrote before it reported them).
func TestMissingMemberInvariant(t *testing.T) {
	good := filepath.Join(testutil.SharedCorpus(t), "scorer", "logs", "2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval")
	holed := filepath.Join(t.TempDir(), "holed.eval")
	testutil.DropMember(t, good, holed, "samples/7_epoch_1.json")

	dir := t.TempDir()
	err := ingest.Build(context.Background(), ingest.Config{Paths: []string{holed}, Out: dir})
	var partial *cliutil.PartialError
	if !errors.As(err, &partial) {
		t.Fatalf("ingest: want a partial failure, got %v", err)
	}
	var out bytes.Buffer
	if err := checkcmd.Run(context.Background(), checkcmd.Options{Data: dir}, &out); err != nil {
		t.Fatalf("check with the ingest_errors row: %v\n%s", err, out.String())
	}

	// the same dataset without its ingest_errors row
	ds, err := store.Create(testutil.Fixture, dir)
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
	err = checkcmd.Run(context.Background(), checkcmd.Options{Data: dir}, &out)
	if !errors.As(err, &partial) || !strings.Contains(out.String(), "invariant broken: every sample a log's summaries list is a reply or an ingest_errors row") {
		t.Fatalf("check without the row: %v\n%s", err, out.String())
	}
}

// The log set's columns hold together: check passes on what ingest wrote
// for a folder with retried, recovered and sharded logs, and fails when a
// superseded_by names a log the dataset does not hold, or a counted log
// names one.
func TestSupersededByInvariants(t *testing.T) {
	for _, c := range []struct {
		name, broken string
		edit         func(l *schema.Log, first *bool)
	}{
		{"as ingested", "", nil},
		{"superseded_by names no log", "every superseded_by leads to a counted log of the dataset", func(l *schema.Log, first *bool) {
			if l.SupersededBy != nil && *first {
				gone := "0000000000000000"
				l.SupersededBy, *first = &gone, false
			}
		}},
		{"a status outside the set", "every logs.set_status is one of counted, superseded", func(l *schema.Log, first *bool) {
			if l.SetStatus == "superseded" && *first {
				l.SetStatus, *first = "replaced", false
			}
		}},
		{"a reason outside the set", "every logs.superseded_reason is one of retried", func(l *schema.Log, first *bool) {
			if l.SupersededReason != nil && *first {
				reason := "newer"
				l.SupersededReason, *first = &reason, false
			}
		}},
		{"a counted log names a superseding one", "counted logs have no superseded_by", func(l *schema.Log, first *bool) {
			if l.SetStatus == "counted" && *first {
				by, reason := l.LogID, "retried"
				l.SupersededBy, l.SupersededReason, *first = &by, &reason, false
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := ingesttest.Dataset(t, testutil.LogSetStudy(t))
			if c.edit != nil {
				ds, err := store.Create(testutil.Fixture, dir)
				if err != nil {
					t.Fatal(err)
				}
				first := true
				if err := store.Rewrite(ds, "logs", func(l *schema.Log) error { c.edit(l, &first); return nil }); err != nil {
					t.Fatal(err)
				}
				if err := ds.Commit(); err != nil {
					t.Fatal(err)
				}
				ds.Close()
			}
			var out bytes.Buffer
			err := checkcmd.Run(context.Background(), checkcmd.Options{Data: dir}, &out)
			if c.broken == "" {
				if err != nil {
					t.Fatalf("check: %v\n%s", err, out.String())
				}
				return
			}
			if err == nil || !strings.Contains(out.String(), "invariant broken: "+c.broken) {
				t.Errorf("check passed or named another invariant (%v):\n%s", err, out.String())
			}
		})
	}
}

// Every column of the vocabulary holds only its values: a class the
// classifier does not know breaks the check, named with its column.
func TestVocabularyInvariants(t *testing.T) {
	good := filepath.Join(testutil.SharedCorpus(t), "scorer", "logs", "2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval")
	dir := ingesttest.Dataset(t, good)
	var out bytes.Buffer
	if err := checkcmd.Run(context.Background(), checkcmd.Options{Data: dir}, &out); err != nil {
		t.Fatalf("check of an ingested log: %v\n%s", err, out.String())
	}
	ds, err := store.Create(testutil.Fixture, dir)
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
	err = checkcmd.Run(context.Background(), checkcmd.Options{Data: dir}, &out)
	var partial *cliutil.PartialError
	if !errors.As(err, &partial) || !strings.Contains(out.String(), "invariant broken: every replies.class is one of error, no_choices,") {
		t.Fatalf("check after an unknown class: %v\n%s", err, out.String())
	}
}
