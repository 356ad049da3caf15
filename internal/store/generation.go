package store

// Generations: the numbered folders of a dataset, the current one readers
// pin, and the tables found in it.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"empties/internal/guard"
)

// generation is the content of generation.json.
type generation struct {
	Generation int                 `json:"generation"`
	Parent     int                 `json:"parent"`
	Written    string              `json:"written"`
	Tables     map[string][]string `json:"tables"` // table → its file names
	Files      []string            `json:"files"`  // other files of the generation
}

// generations lists the numbered generation folders, in order.
func generations(dir string) []int {
	entries, _ := os.ReadDir(filepath.Join(dir, genDir))
	var out []int
	for _, e := range entries {
		if n, err := strconv.Atoi(e.Name()); err == nil && e.IsDir() && genName(n) == e.Name() {
			out = append(out, n)
		}
	}
	sort.Ints(out)
	return out
}

func genName(n int) string { return fmt.Sprintf("%06d", n) }

// currentNumber is the number of the current generation (0: none).
func currentNumber(dir string) (int, error) {
	t, err := os.Readlink(filepath.Join(dir, CurrentLink))
	if err != nil {
		if os.IsNotExist(err) {
			return 0, nil
		}
		return 0, err
	}
	n, err := strconv.Atoi(filepath.Base(t))
	if err != nil || filepath.Dir(t) != genDir {
		return 0, fmt.Errorf("%s: %s points to %s, not a generation", dir, CurrentLink, t)
	}
	return n, nil
}

// removeGeneration removes the files generation n's generation.json names,
// then the folders they leave empty. A file empties did not write stays, and
// so does its folder.
func removeGeneration(dir string, n int) {
	g := filepath.Join(dir, genDir, genName(n))
	gen, err := readGeneration(g)
	if err != nil {
		return // not a complete generation of ours: leave it
	}
	f, err := os.Open(filepath.Join(g, genFile))
	if err != nil {
		return
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return // pinned by a reader (Current): a later run removes it
	}
	// The names come from a file that may be someone else's (a dataset
	// received): each is removed only if it is a plain file inside g
	// (guard.RemoveFile refuses "..", absolute paths and symlinks).
	for t, files := range gen.Tables {
		for _, f := range files {
			guard.RemoveFile(g, filepath.Join(t, f))
		}
		guard.RemoveDir(g, t)
	}
	for _, f := range gen.Files {
		guard.RemoveFile(g, f)
	}
	guard.RemoveFile(g, genFile)
	guard.RemoveDir(g, ".")
}

func readGeneration(g string) (*generation, error) {
	b, err := os.ReadFile(filepath.Join(g, genFile))
	if err != nil {
		return nil, err
	}
	var gen generation
	if err := json.Unmarshal(b, &gen); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(g, genFile), err)
	}
	return &gen, nil
}

// Current returns the folder of the current generation of the dataset at
// dir, whose table folders readers read: resolved once, so a reader that
// takes every table from it sees one generation. The generation is pinned
// for the rest of the process (a shared flock on its generation.json), so a
// Commit in another process leaves it in place, for a later run to remove,
// instead of removing it under the reader; Create releases the pins the
// process holds on the dataset, whose reads are then under its lock. A
// marked dataset with no generation yet returns "". A folder without a
// marker is returned as it is (a folder of table folders, such as one a
// test writes by hand).
func Current(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(filepath.Join(abs, MarkerFile)); err != nil {
		return abs, nil
	}
	for try := 0; ; try++ {
		n, err := currentNumber(abs)
		if err != nil || n == 0 {
			return "", err
		}
		g := filepath.Join(abs, genDir, genName(n))
		if pin(abs, g) || try == 3 {
			return g, nil
		}
		// Switched and being removed between the readlink and the pin:
		// the next readlink finds the new generation.
	}
}

// pins are the generations this process reads, by dataset.
var pins = struct {
	sync.Mutex
	m map[string]map[string]*os.File // dataset → generation folder → its pinned generation.json
}{m: map[string]map[string]*os.File{}}

// pin takes a shared flock on generation g of dataset dir, once per
// process; false if g is gone or being removed.
func pin(dir, g string) bool {
	pins.Lock()
	defer pins.Unlock()
	if pins.m[dir][g] != nil {
		return true
	}
	f, err := os.Open(filepath.Join(g, genFile))
	if err != nil {
		return false
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
		f.Close()
		return false
	}
	if pins.m[dir] == nil {
		pins.m[dir] = map[string]*os.File{}
	}
	pins.m[dir][g] = f
	return true
}

// repaired are the generations whose view file this process checked.
var repaired = struct {
	sync.Mutex
	m map[string]bool
}{m: map[string]bool{}}

// RepairOnce checks, once per process, that the view file of generation g
// reads g's own files, and rewrites it if not (repair: duck.RepairViews,
// which duck.CreateViews passes for every reader): best effort, a read-only
// copy keeps its view file, which then fails loudly. A nil repair does
// nothing.
func RepairOnce(g string, repair func(ctx context.Context, genDir string) error) {
	if repair == nil {
		return
	}
	repaired.Lock()
	done := repaired.m[g]
	repaired.m[g] = true
	repaired.Unlock()
	if !done {
		repair(context.Background(), g)
	}
}

// unpin releases this process's pin on generation g of dataset dir.
func unpin(dir, g string) {
	pins.Lock()
	defer pins.Unlock()
	if f := pins.m[dir][g]; f != nil {
		f.Close()
		delete(pins.m[dir], g)
	}
}

// Release unpins generation g of the dataset at dir (a folder Current
// returned), for a reader that lives on and moves to a newer generation: a
// later Commit may then remove g, so nothing of it may be read afterwards.
func Release(dir, g string) {
	if abs, err := filepath.Abs(dir); err == nil {
		unpin(abs, g)
	}
}

// unpinAll releases this process's pins on dataset dir.
func unpinAll(dir string) {
	pins.Lock()
	defer pins.Unlock()
	for _, f := range pins.m[dir] {
		f.Close()
	}
	delete(pins.m, dir)
}

// tableRoot is Current, with an error only for a broken pointer.
func tableRoot(dir string) string {
	r, err := Current(dir)
	if err != nil {
		return filepath.Join(dir, genDir, "broken-"+CurrentLink)
	}
	return r
}

// TableFiles lists a table's Parquet files in the current generation of
// the dataset at dir, sorted; none if the table is absent.
func TableFiles(dir, table string) []string {
	root := tableRoot(dir)
	if root == "" {
		return nil
	}
	entries, _ := os.ReadDir(filepath.Join(root, table))
	var out []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".parquet") {
			out = append(out, filepath.Join(root, table, e.Name()))
		}
	}
	return out
}

func tableFiles(dir, table string) ([]string, error) {
	files := TableFiles(dir, table)
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no table %q (run `empties ingest` first)", dir, table)
	}
	return files, nil
}

// TableGlob is the path pattern of a table's files in the current
// generation, for messages. It is not escaped: SQL names a table's files
// through duck.ReadParquet.
func TableGlob(dir, table string) string {
	return filepath.Join(tableRoot(dir), table, "*.parquet")
}

// HasTable reports whether the current generation of the dataset holds a
// table.
func HasTable(dir, table string) bool {
	return len(TableFiles(dir, table)) > 0
}

// Tables lists the tables of the current generation, sorted.
func Tables(dir string) []string {
	return TablesExcept(dir)
}

// TablesExcept lists the tables of the current generation other than keep,
// sorted.
func TablesExcept(dir string, keep ...string) []string {
	skip := map[string]bool{}
	for _, k := range keep {
		skip[k] = true
	}
	root := tableRoot(dir)
	if root == "" {
		return nil
	}
	entries, _ := os.ReadDir(root)
	var out []string
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() && !skip[n] && !strings.HasPrefix(n, ".") && len(TableFiles(dir, n)) > 0 {
			out = append(out, n)
		}
	}
	return out
}
