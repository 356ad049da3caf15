package store_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"empties/internal/cliutil"
	"empties/internal/store"
)

// --data that names no dataset is said to be what it is, with a command
// that would work: a missing folder, a file, a folder of logs (ingest it
// beside itself, not into itself), a folder that is no dataset.
func TestCheckReadable(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "notes.txt")
	os.WriteFile(file, []byte("x"), 0o644)
	logs := filepath.Join(root, "logs")
	os.MkdirAll(filepath.Join(logs, "sub"), 0o755)
	os.WriteFile(filepath.Join(logs, "sub", "a.eval"), []byte("PK"), 0o644)
	other := filepath.Join(root, "other")
	os.MkdirAll(other, 0o755)
	os.WriteFile(filepath.Join(other, "readme.md"), []byte("x"), 0o644)
	for _, c := range []struct{ dir, want string }{
		{filepath.Join(root, "none"), "no such folder"},
		{file, "is a file, not a dataset folder"},
		{logs, "is a folder of Inspect logs (1 .eval/.json files), not a dataset; ingest them into a dataset beside it and read that: empties ingest " + logs + " --out " + logs + "-empties, then --data " + logs + "-empties"},
		{other, "is not an empties dataset (no empties-dataset.json, no tables)"},
	} {
		err := store.CheckReadable("sql", c.dir)
		var usage *cliutil.UsageError
		if !errors.As(err, &usage) || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "sql: ") {
			t.Errorf("%s: %v, want a usage error saying %q", c.dir, err, c.want)
		}
	}
	// serve names the dataset as its DIR argument, not with --data.
	err := store.CheckReadableAs("serve", logs, "DIR")
	if want := "then give " + logs + "-empties as DIR"; err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "--data") {
		t.Errorf("serve's DIR: %v, want it to say %q and never --data", err, want)
	}
	// "." is a folder of logs: the suggestion is beside it, by name.
	wd, _ := os.Getwd()
	defer os.Chdir(wd)
	os.Chdir(logs)
	if err := store.CheckReadable("sql", "."); err == nil || !strings.Contains(err.Error(), "--out "+filepath.Join("..", "logs-empties")) {
		t.Errorf(". in a logs folder: %v", err)
	}
}
