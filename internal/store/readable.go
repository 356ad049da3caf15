package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"empties/internal/cliutil"
	"empties/schema"
)

// RequireTables is every stage's precondition on the dataset it reads: dir
// is a dataset (CheckReadable's messages), and its current generation holds
// each of tables. A missing table is a UsageError (exit code 2) in one
// wording, which names the dataset, the table and the command of the stage
// that writes it (schema.Owner): "decide: data/study has no replies table;
// run `empties ingest LOGS --out data/study` first". A stage calls it once,
// before any work, with the tables without which it can do nothing; tables
// it can do without (an output skipped, a section left out) it tests with
// HasTable.
func RequireTables(stage, dir string, tables ...string) error {
	return RequireTablesAs(stage, dir, "--data", tables...)
}

// RequireTablesAs is RequireTables for a command that names the dataset
// otherwise than with --data (CheckReadableAs).
func RequireTablesAs(stage, dir, named string, tables ...string) error {
	if err := CheckReadableAs(stage, dir, named); err != nil {
		return err
	}
	for _, t := range tables {
		if !HasTable(dir, t) {
			return cliutil.Usagef("%s: %s", stage, missingTable(dir, t))
		}
	}
	return nil
}

// MissingTable is RequireTables' error, without the stage, for a reader
// that finds the table missing later (serve, on each generation it opens).
func MissingTable(dir, table string) error {
	return cliutil.Usagef("%s", missingTable(dir, table))
}

func missingTable(dir, table string) string {
	return fmt.Sprintf("%s has no %s table; run `%s` first", dir, table, producer(table, dir))
}

// producer is the command that writes table into dir.
func producer(table, dir string) string {
	switch owner := schema.Owner(table); owner {
	case schema.StageIngest:
		return "empties ingest LOGS --out " + dir
	case schema.StageRescore, schema.StageDecide:
		return "empties " + owner + " --data " + dir + " --manifest FILE"
	case schema.StageExposure:
		return "empties exposure PATH --out " + dir
	default:
		return "empties " + owner + " --data " + dir
	}
}

// CheckReadable checks, before a reader opens it, that --data names a
// dataset (or a folder of tables), and says what it names instead: nothing,
// a file, a folder of Inspect logs (with an ingest that would make a
// dataset of them, beside the logs rather than inside), or a folder that is
// no dataset. stage prefixes the message. The errors are UsageErrors.
func CheckReadable(stage, dir string) error { return CheckReadableAs(stage, dir, "--data") }

// CheckReadableAs is CheckReadable for a command that names the dataset
// otherwise than with --data (serve's DIR argument): the messages say how.
func CheckReadableAs(stage, dir, named string) error {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return cliutil.Usagef("%s: %s: no such folder; %s names the folder an ingest wrote (empties ingest LOGS --out %s makes it)", stage, dir, named, dir)
	case err != nil:
		return fmt.Errorf("%s: %w", stage, err)
	case !st.IsDir():
		return cliutil.Usagef("%s: %s is a file, not a dataset folder; %s names the folder an ingest wrote (empties ingest LOGS --out DIR)", stage, dir, named)
	}
	if _, err := os.Stat(filepath.Join(dir, MarkerFile)); err == nil {
		return nil
	}
	if len(Tables(dir)) > 0 {
		return nil // a folder of table folders, read as it is
	}
	if n := countLogs(dir, 10000); n > 0 {
		dest := besideName(dir, "-empties")
		return cliutil.Usagef("%s: %s is a folder of Inspect logs (%d .eval/.json files), not a dataset; ingest them into a dataset beside it and read that: empties ingest %s --out %s, then %s", stage, dir, n, dir, dest, then(named, dest))
	}
	return cliutil.Usagef("%s: %s is not an empties dataset (no %s, no tables); %s names the folder an ingest wrote (empties ingest LOGS --out DIR)", stage, dir, MarkerFile, named)
}

// then is how the hint names the dataset to read: with the flag, or as the
// command's argument.
func then(named, dest string) string {
	if strings.HasPrefix(named, "-") {
		return named + " " + dest
	}
	return "give " + dest + " as " + named
}

// countLogs counts .eval and .json files under dir, looking at no more than
// limit entries (folders that are no logs' skipped as ingest skips them).
func countLogs(dir string, limit int) int {
	n, seen := 0, 0
	filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if seen++; seen > limit {
			return filepath.SkipAll
		}
		if e.IsDir() {
			if p != dir && strings.HasPrefix(e.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(e.Name(), ".eval") || strings.HasSuffix(e.Name(), ".json") {
			n++
		}
		return nil
	})
	return n
}

// besideName is a folder name next to dir (not inside it): its name with
// suffix, written relative as dir was ("logs" → "logs-empties", "." →
// "../<name>-empties").
func besideName(dir, suffix string) string {
	clean := filepath.Clean(dir)
	base := filepath.Base(clean)
	if base == "." || base == ".." || base == string(filepath.Separator) {
		abs, err := filepath.Abs(clean)
		if err != nil || filepath.Base(abs) == string(filepath.Separator) {
			return filepath.Join(os.TempDir(), "empties-dataset")
		}
		return filepath.Join(clean, "..", filepath.Base(abs)+suffix)
	}
	return filepath.Join(filepath.Dir(clean), base+suffix)
}
