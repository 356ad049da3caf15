package ingest

import (
	"bytes"
	"empties/internal/cliutil"
	"empties/internal/logset"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// skippedJSON are JSON files inspect_ai writes beside logs that are not logs
// (§1.1).
var skippedJSON = map[string]bool{"logs.json": true, "listing.json": true, "eval-set.json": true}

// discover expands files and folders (recursively) into log files, sorted and
// de-duplicated. Folders contribute every .eval file and every .json file
// that starts like an Inspect log; a file named explicitly is always taken,
// so a bad one is reported rather than skipped.
func discover(paths []string) (files []string, skipped int, err error) {
	seen := map[string]bool{}
	add := func(p string) error {
		abs, err := filepath.Abs(p)
		if err != nil {
			return err
		}
		if !seen[abs] {
			seen[abs] = true
			files = append(files, abs)
		}
		return nil
	}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			if os.IsNotExist(err) {
				return nil, 0, cliutil.Usagef("ingest: %s: no such file or folder", p)
			}
			return nil, 0, err
		}
		if !st.IsDir() {
			if err := add(p); err != nil {
				return nil, 0, err
			}
			continue
		}
		err = filepath.WalkDir(p, func(q string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			name := e.Name()
			if e.IsDir() {
				// .buffer holds a running eval's realtime segments; dot
				// folders also hold empties' own staging areas.
				if q != p && strings.HasPrefix(name, ".") {
					return filepath.SkipDir
				}
				// <name>.checkpoints/ holds sandbox checkpoints, not logs.
				if q != p && logset.IsCompanionDir(name) {
					return filepath.SkipDir
				}
				return nil
			}
			switch {
			case strings.HasSuffix(name, ".eval"):
				return add(q)
			case strings.HasSuffix(name, ".json") && !skippedJSON[name]:
				if looksLikeLog(q) {
					return add(q)
				}
				skipped++
			}
			return nil
		})
		if err != nil {
			return nil, 0, fmt.Errorf("listing %s: %w", p, err)
		}
	}
	sort.Strings(files)
	return files, skipped, nil
}

// looksLikeLog reports whether a JSON file opens like an EvalLog: an object
// whose first key is one the writer puts first (version, status or eval).
func looksLikeLog(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return true // let ingest report the error
	}
	defer f.Close()
	buf := make([]byte, 256)
	n, _ := f.Read(buf)
	b := bytes.TrimLeft(buf[:n], " \t\r\n\xef\xbb\xbf")
	if len(b) == 0 || b[0] != '{' {
		return false
	}
	b = bytes.TrimLeft(b[1:], " \t\r\n")
	for _, k := range []string{`"version"`, `"status"`, `"eval"`} {
		if bytes.HasPrefix(b, []byte(k)) {
			return true
		}
	}
	return false
}
