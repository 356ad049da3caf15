package testutil

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// LogSetStudy copies testdata/logsets/study (a folder with a retried task, a
// recovered log and merged shards, written by
// scripts/fixtures/logset_fixtures.py) to a temporary folder with the
// modification times the writer left, from MTIMES.tsv: git keeps none, and
// inspect_ai's shard rule compares them. It returns the copy.
func LogSetStudy(t testing.TB) string {
	t.Helper()
	root := Path(t, "testdata", "logsets")
	tsv, err := os.ReadFile(filepath.Join(root, "MTIMES.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "study")
	for _, line := range strings.Split(strings.TrimSpace(string(tsv)), "\n")[1:] {
		rel, ns, _ := strings.Cut(line, "\t")
		n, err := strconv.ParseInt(ns, 10, 64)
		if err != nil {
			t.Fatalf("MTIMES.tsv: %q", line)
		}
		to := filepath.Join(dst, strings.TrimPrefix(rel, "study/"))
		CopyFile(t, filepath.Join(root, rel), to)
		if err := os.Chtimes(to, time.Unix(0, n), time.Unix(0, n)); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// CopyFile copies a file, creating the folders above the copy.
func CopyFile(t testing.TB, from, to string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
