package ingest_test

import (
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"empties/internal/ingest"
	"empties/internal/testutil"
)

// Files that are not regular (a FIFO, a socket, a device), found in a folder
// or named, are skipped without being opened, and every skipped file is
// named in the result with its reason (the command's summary prints them),
// as are .json files that are not logs.
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

	res, log, err := ingestWith(t, ingest.Config{Paths: []string{dir, named, sockDir, "/dev/null"}, Out: t.TempDir()})
	if err != nil {
		t.Fatalf("%v\n%s", err, log)
	}
	if res.Files != 1 || res.Failed != 0 || res.Skipped != 7 {
		t.Errorf("files %d, failed %d, skipped %d; want 1 file read and 7 skipped", res.Files, res.Failed, res.Skipped)
	}
	for _, want := range []ingest.Skipped{
		{fifo, "not a regular file (a named pipe)"},
		{filepath.Join(dir, "link-to-fifo.eval"), "not a regular file (a named pipe)"},
		{named, "not a regular file (a named pipe)"},
		{sock, "not a regular file (a socket)"},
		{"/dev/null", "not a regular file (a character device)"},
		{filepath.Join(dir, "notes.json"), "a .json file that is not an Inspect log"},
		{filepath.Join(dir, "empty.json"), "an empty .json file"},
	} {
		if !skippedAs(res.SkippedFiles, want) {
			t.Errorf("skipped files lack %+v: %+v", want, res.SkippedFiles)
		}
	}
}

// skippedAs reports whether skipped names want.Path with a reason that
// begins as want.Reason does.
func skippedAs(skipped []ingest.Skipped, want ingest.Skipped) bool {
	return slices.ContainsFunc(skipped, func(s ingest.Skipped) bool {
		return s.Path == want.Path && strings.HasPrefix(s.Reason, want.Reason)
	})
}

// A path named that is a symbolic link to a folder is read as that folder,
// its logs named under the link (as the user named them); below a path
// named, a link to a folder is not followed.
func TestNamedLinkToAFolderIsWalked(t *testing.T) {
	logs := t.TempDir()
	b, err := os.ReadFile(testutil.Path(t, "testdata", "logs", "zstd-basic.eval"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(logs, "run.eval"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	link := filepath.Join(dir, "logs")
	if err := os.Symlink(logs, link); err != nil {
		t.Fatal(err)
	}
	res, log, err := ingestWith(t, ingest.Config{Paths: []string{link}, Out: t.TempDir()})
	if err != nil {
		t.Fatalf("ingest of a link to a folder of one log: %v\n%s", err, log)
	}
	if res.Files != 1 || res.Skipped != 0 {
		t.Errorf("files %d, skipped %d; want the one log under the link read", res.Files, res.Skipped)
	}
	if got := testutil.Query(t, res.Dir, "SELECT path FROM logs"); len(got) != 1 || got[0][0] != filepath.Join(link, "run.eval") {
		t.Errorf("logs.path %v, want the log named under the link %s", got, link)
	}
	// below a path named, the same link is not followed: nothing is found,
	// and the refusal names the link
	_, log, err = ingestWith(t, ingest.Config{Paths: []string{dir}, Out: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "no .eval or .json logs found") || !strings.Contains(err.Error(), ingest.NotFollowed(link)) {
		t.Errorf("ingest of a folder holding only a link to a folder: %v, want no logs found and %q\n%s", err, ingest.NotFollowed(link), log)
	}
}

// A link to a folder below a folder named is not followed (as inspect_ai's
// listing does not follow it); the summary names each one whose folder lies
// outside the folders named, since its logs are not read: not a link into
// a folder the walk reads anyway (latest -> run1), nor one under a name the
// walk leaves out (.hidden), nor a link to a file; and none once its folder
// is named too.
func TestLinksToFoldersOutsideAreNamed(t *testing.T) {
	b, err := os.ReadFile(testutil.Path(t, "testdata", "logs", "zstd-basic.eval"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	logs, outside := filepath.Join(dir, "logs"), filepath.Join(dir, "outside")
	for _, d := range []string{filepath.Join(logs, "run1"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "run.eval"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, to := range map[string]string{"latest": "run1", "team": "../outside", "run1/team-again": "../../outside", ".hidden": "../outside", "file-link": "../outside/run.eval"} {
		if err := os.Symlink(to, filepath.Join(logs, link)); err != nil {
			t.Fatal(err)
		}
	}
	res, log, err := ingestWith(t, ingest.Config{Paths: []string{logs}, Out: t.TempDir()})
	if err != nil {
		t.Fatalf("ingest: %v\n%s", err, log)
	}
	want := []string{filepath.Join(logs, "run1", "team-again"), filepath.Join(logs, "team")}
	if res.Files != 1 || !slices.Equal(res.LinksNotFollowed, want) {
		t.Errorf("files %d, links not followed %q; want the one log of run1 and %q", res.Files, res.LinksNotFollowed, want)
	}
	res, log, err = ingestWith(t, ingest.Config{Paths: []string{logs, outside}, Out: t.TempDir()})
	if err != nil {
		t.Fatalf("ingest: %v\n%s", err, log)
	}
	if res.Files != 2 || len(res.LinksNotFollowed) != 0 {
		t.Errorf("with the outside folder named too: files %d, links not followed %q; want 2 and none", res.Files, res.LinksNotFollowed)
	}
}
