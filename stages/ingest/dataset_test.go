package ingest_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"empties/internal/store"
	"empties/internal/testutil"
	"empties/stages/ingest"
)

// tree maps every path under dir to its kind and content digest.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(dir, p)
		if e.IsDir() {
			out[rel] = "dir"
			return nil
		}
		b, _ := os.ReadFile(p)
		h := sha256.Sum256(b)
		out[rel] = hex.EncodeToString(h[:])
		return nil
	})
	return out
}

// `empties ingest logs --out .` in a folder holding Inspect's ./logs is
// refused, and every file stays as it was (the tables would once have been
// written over ./logs).
func TestOutDotBesideInspectLogs(t *testing.T) {
	dir := t.TempDir()
	logs := filepath.Join(dir, "logs")
	os.MkdirAll(logs, 0o755)
	b, err := os.ReadFile(testutil.Path(t, "testdata", "logs", "zstd-basic.eval"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(logs, "2025-01-01T00-00-00_task_abc.eval"), b, 0o644)
	os.WriteFile(filepath.Join(logs, "logs.json"), []byte("{}"), 0o644)
	os.WriteFile(filepath.Join(dir, "notes.md"), []byte("mine"), 0o644)
	before := tree(t, dir)
	t.Chdir(dir)
	var out, errb bytes.Buffer
	err = ingest.Run(context.Background(), ingest.Options{Paths: []string{"logs"}, Out: ".", Progress: "never"}, &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "holds logs, which this command reads") || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("ingest --out . beside ./logs: %v", err)
	}
	after := tree(t, dir)
	if len(after) != len(before) {
		t.Errorf("files before %v, after %v", before, after)
	}
	for p, h := range before {
		if after[p] != h {
			t.Errorf("%s changed", p)
		}
	}
	// Into a folder of its own beside the logs, it works, and a second run
	// replaces the tables in place.
	for range 2 {
		if err := ingest.Run(context.Background(), ingest.Options{Paths: []string{"logs"}, Out: "data", Progress: "never"}, &out, &errb); err != nil {
			t.Fatal(err)
		}
	}
	if !store.HasTable(filepath.Join(dir, "data"), "replies") {
		t.Error("no replies table in data/")
	}
	if after := tree(t, logs); len(after) != 3 {
		t.Errorf("logs/ now holds %v", after)
	}
}

// Files that are not regular (a FIFO, a socket, a device), found in a folder
// or named, are skipped without being opened, and every skipped file is
// named in the summary with its reason, as are .json files that are not
// logs.
func TestSkippedFilesAreNamed(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.eval")
	b, err := os.ReadFile(testutil.Path(t, "testdata", "logs", "zstd-basic.eval"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(good, b, 0o644)
	fifo := filepath.Join(dir, "stuck.eval")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	named := filepath.Join(t.TempDir(), "named.eval")
	if err := syscall.Mkfifo(named, 0o644); err != nil {
		t.Fatal(err)
	}
	// A socket path must be short.
	sockDir, err := os.MkdirTemp("", "s")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(sockDir)
	sock := filepath.Join(sockDir, "x.eval")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	os.Symlink(fifo, filepath.Join(dir, "link-to-fifo.eval"))
	os.WriteFile(filepath.Join(dir, "notes.json"), []byte(`{"hello": 1}`), 0o644)
	os.WriteFile(filepath.Join(dir, "empty.json"), nil, 0o644)

	out, errb := &bytes.Buffer{}, &bytes.Buffer{}
	data := t.TempDir()
	err = ingest.Run(context.Background(), ingest.Options{Paths: []string{dir, named, sockDir, "/dev/null"}, Out: data, Progress: "never"}, out, errb)
	if err != nil {
		t.Fatalf("%v\n%s", err, errb)
	}
	for _, want := range []string{
		"ingested 1 of 1 files",
		"7 files skipped",
		"skipped " + fifo + ": not a regular file (a named pipe)",
		"skipped " + filepath.Join(dir, "link-to-fifo.eval") + ": not a regular file (a named pipe)",
		"skipped " + named + ": not a regular file (a named pipe)",
		"skipped " + sock + ": not a regular file (a socket)",
		"skipped /dev/null: not a regular file (a character device)",
		"skipped " + filepath.Join(dir, "notes.json") + ": a .json file that is not an Inspect log",
		"skipped " + filepath.Join(dir, "empty.json") + ": an empty .json file",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
}

// An empties dataset inside a logs folder (an earlier ingest's --out) is
// no folder of logs: a later ingest of the folder leaves it out silently,
// listing none of its generation.json files as skipped non-logs, and
// ingesting the dataset itself as logs is refused by name.
func TestDatasetInsideLogsIsLeftOut(t *testing.T) {
	logs := t.TempDir()
	b, err := os.ReadFile(testutil.Path(t, "testdata", "logs", "zstd-basic.eval"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(logs, "a.eval"), b, 0o644)
	inner := filepath.Join(t.TempDir(), "ds")
	if err := ingest.Run(context.Background(), ingest.Options{Paths: []string{logs}, Out: inner, Progress: "never"}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	// twice, so the dataset holds more than one generation's leftovers
	if err := ingest.Run(context.Background(), ingest.Options{Paths: []string{logs}, Out: inner, Progress: "never", Full: true}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	moved := filepath.Join(logs, "results")
	if err := os.Rename(inner, moved); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := ingest.Run(context.Background(), ingest.Options{Paths: []string{logs}, Out: t.TempDir(), Progress: "never"}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "ingested 1 of 1 files") || strings.Contains(out.String(), "skipped") {
		t.Errorf("ingest of a logs folder holding a dataset:\n%s", out.String())
	}
	err = ingest.Run(context.Background(), ingest.Options{Paths: []string{moved}, Out: t.TempDir(), Progress: "never"}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "is an empties dataset, not a folder of logs") {
		t.Errorf("ingest of a dataset: %v", err)
	}
}
