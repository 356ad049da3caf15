package store

// The layout of a dataset folder DIR:
//
//	DIR/empties-dataset.json    marker: this folder is an empties dataset, and its format
//	DIR/.lock                   held (flock) by the one process writing DIR
//	DIR/current -> gen/<n>      symlink to the generation readers see
//	DIR/empties.duckdb -> current/empties.duckdb
//	DIR/gen/<n>/<table>/*.parquet
//	DIR/gen/<n>/empties.duckdb  one DuckDB view per table of generation n
//	DIR/gen/<n>/generation.json the tables and files of generation n
//	DIR/gen/.build-<pid>-<t>/   a run's build folder (gone after Commit or Close)
//
// Tables never sit at the top of DIR, so a dataset written into a folder
// beside Inspect's ./logs cannot meet it, and everything empties removes is
// under DIR/gen/ and named in a generation.json or a build folder it marked as
// its own. A folder that is neither empty nor marked is refused.
//
// Commit, step by step (commitStep numbers them for the kill tests):
//
//  1. the tables this run did not write (nor Drop) are hard-linked from the
//     current generation into the build's final folder, and generation.json
//     is written there;
//  2. the final folder is renamed to gen/<n>, n one past the highest
//     generation;
//  3. the DuckDB view file is written into gen/<n> (Stage.Views);
//  4. every file and folder of gen/<n>, and gen/ itself, is fsynced;
//  5. a new symlink .current-<n> -> gen/<n> is made beside current;
//  6. it is renamed over current, and DIR is fsynced: the switch, one atomic
//     rename; readers see the old generation before it and the new one after;
//  7. DIR/empties.duckdb is made if missing;
//  8. the previous generation is removed (the files its generation.json
//     names; a file empties did not write keeps its folder alive).
//
// A run killed before step 6 leaves current as it was and a build folder or
// an unswitched gen/<n>; one killed after it leaves the new generation
// current and perhaps the old one. The next Create removes both kinds of
// leftover.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"empties/internal/guard"
)

// FormatVersion is the dataset layout written by this empties. Version 1 was
// the layout with the tables at the top of DIR (no marker).
const FormatVersion = 2

const (
	// MarkerFile names a folder as an empties dataset.
	MarkerFile = guard.DatasetMarker
	// CurrentLink is the symlink to the current generation.
	CurrentLink = "current"
	// ViewsFile is the DuckDB view file of a generation, and the symlink at
	// the top of DIR that reaches the current one.
	ViewsFile = "empties.duckdb"
	genDir    = "gen"
	genFile   = "generation.json"
	finalDir  = "final"
	lockFile  = ".lock"
	buildMark = ".empties-build"
)

// Stage is who opens a dataset to write it: the stage, which may write
// only the tables schema/ gives it (TableDef.Writers) and any table schema/
// does not declare (an analysis output, a scratch table), and the view file
// its commits write.
type Stage struct {
	Name  string   // schema.StageIngest, ...; "" writes no declared table
	Views ViewFile // package duck's duck.ViewFile; the zero value writes none
}

// ViewFile writes and repairs the DuckDB view file of a generation
// (ViewsFile inside genDir). Package duck provides it (duck.ViewFile);
// store does not link DuckDB, so a dataset opened without it gets
// generations without a view file.
type ViewFile struct {
	// Write writes the view file of a generation, at step 3 of Commit.
	Write func(ctx context.Context, genDir string) error
	// Repair rewrites the view file of a generation that was written for
	// another place (a copied or moved dataset); Create calls it on the
	// current generation, and readers through RepairOnce.
	Repair func(ctx context.Context, genDir string) error
}

// commitStep is called after each step of Commit, with its number; the kill
// tests set it to stop the process there.
var commitStep = func(int) {}

// Dataset is a dataset folder opened for writing: it holds the lock and the
// build folder of the next generation.
type Dataset struct {
	Dir     string
	build   string
	lock    *os.File
	seq     int
	staged  map[string][]string // table → staged files, in order
	drops   []string            // tables left out of the next generation
	carried map[string]bool     // tables Preview linked from the current generation
	codec   *compression        // page compression of the files it writes
	by      Stage               // who writes: mayWrite, and the view file of Commit
}

type marker struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
}

// generation is the content of generation.json.
type generation struct {
	Generation int                 `json:"generation"`
	Parent     int                 `json:"parent"`
	Written    string              `json:"written"`
	Tables     map[string][]string `json:"tables"` // table → its file names
	Files      []string            `json:"files"`  // other files of the generation
}

// Create opens dir for writing: it creates it (or takes an empty folder) as
// a new dataset, or opens an empties dataset, locks it, and removes what
// killed runs left. A folder that holds anything else is refused, and left
// as it was; so is one that is, holds or lies inside a path of avoid (the
// LOGS a stage reads) or lies inside another dataset (guard.CheckDataset).
// by names the stage that writes (Stage).
func Create(by Stage, dir string, avoid ...string) (*Dataset, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if _, err := guard.CheckDataset(abs, guard.Rules{Avoid: avoid}); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, err
	}
	marked, err := checkMarker(abs)
	if err != nil {
		return nil, err
	}
	if !marked {
		if err := checkEmpty(abs); err != nil {
			return nil, err
		}
	}
	lock, err := os.OpenFile(filepath.Join(abs, lockFile), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		lock.Close()
		return nil, fmt.Errorf("%s is being written by another empties process (lock %s held)", abs, lock.Name())
	}
	unpinAll(abs) // from here on this process reads under the lock
	d := &Dataset{Dir: abs, lock: lock, codec: compressions[DefaultCompression], by: by}
	if !marked {
		b, _ := json.Marshal(marker{Format: "empties dataset", Version: FormatVersion})
		if err := writeSynced(filepath.Join(abs, MarkerFile), append(b, '\n')); err != nil {
			d.Close()
			return nil, err
		}
	}
	if err := os.MkdirAll(filepath.Join(abs, genDir), 0o755); err != nil {
		d.Close()
		return nil, err
	}
	d.recover()
	if n, err := currentNumber(abs); err == nil && n > 0 {
		RepairOnce(filepath.Join(abs, genDir, genName(n)), by.Views.Repair)
	}
	if err := d.newBuild(); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

// checkMarker reports whether dir is an empties dataset of a format this
// empties writes.
func checkMarker(dir string) (bool, error) {
	b, err := os.ReadFile(filepath.Join(dir, MarkerFile))
	if os.IsNotExist(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	var m marker
	if err := json.Unmarshal(b, &m); err != nil || m.Format != "empties dataset" {
		return false, fmt.Errorf("%s: %s is not an empties dataset marker; refusing to write into %s", dir, MarkerFile, dir)
	}
	if m.Version > FormatVersion {
		return false, fmt.Errorf("%s was written by a newer empties (dataset format %d, this one writes %d); use that version", dir, m.Version, FormatVersion)
	}
	return true, nil
}

// checkEmpty refuses a folder with anything in it that is not an empties
// dataset.
func checkEmpty(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var names []string
	for _, e := range entries {
		if e.Name() != lockFile {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		return nil
	}
	if fi, err := os.Stat(filepath.Join(dir, "replies")); err == nil && fi.IsDir() {
		if _, err := os.Stat(filepath.Join(dir, ViewsFile)); err == nil {
			return fmt.Errorf("%s holds a dataset written by an older empties (tables at the top, no %s); nothing was changed: ingest again into a new folder, e.g. --out %s-v2", dir, MarkerFile, filepath.Base(dir))
		}
	}
	if len(names) > 3 {
		names = append(names[:3], "...")
	}
	return fmt.Errorf("%s is not an empties dataset (no %s) and is not empty (%s); nothing was changed: write the dataset to a new or empty folder, e.g. --out data/study", dir, MarkerFile, strings.Join(names, ", "))
}

// newBuild makes the build folder of the next generation.
func (d *Dataset) newBuild() error {
	b := filepath.Join(d.Dir, genDir, ".build-"+strconv.Itoa(os.Getpid())+"-"+strconv.FormatInt(time.Now().UnixNano(), 36))
	if err := os.Mkdir(b, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(b, buildMark), nil, 0o644); err != nil {
		return err
	}
	if err := os.Mkdir(filepath.Join(b, finalDir), 0o755); err != nil {
		return err
	}
	d.build, d.staged, d.drops, d.seq, d.carried = b, map[string][]string{}, nil, 0, map[string]bool{}
	return nil
}

// Staging returns the build folder. Files a stage writes into
// Staging()/final/<table>/ form that table of the next generation; other
// files named to Commit move into the generation.
func (d *Dataset) Staging() string { return d.build }

// Close removes the build folder of an uncommitted run and releases the
// lock.
func (d *Dataset) Close() error {
	if d.build != "" {
		removeBuild(d.build)
		d.build = ""
	}
	if d.lock == nil {
		return nil
	}
	err := d.lock.Close()
	d.lock = nil
	return err
}

// recover removes what killed runs left, under the lock: build folders
// marked as empties' own, symlinks of a switch not made, and generations
// that are not current.
func (d *Dataset) recover() {
	gdir := filepath.Join(d.Dir, genDir)
	entries, _ := os.ReadDir(gdir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".build-") && e.IsDir() {
			removeBuild(filepath.Join(gdir, e.Name()))
		}
	}
	top, _ := os.ReadDir(d.Dir)
	for _, e := range top {
		if strings.HasPrefix(e.Name(), ".current-") && e.Type()&os.ModeSymlink != 0 {
			os.Remove(filepath.Join(d.Dir, e.Name()))
		}
	}
	guard.CleanTemps(d.Dir, "."+MarkerFile+".")
	cur, _ := currentNumber(d.Dir)
	for _, n := range generations(d.Dir) {
		if n != cur {
			removeGeneration(d.Dir, n)
		}
	}
}

// removeBuild removes a build folder, only if it carries empties' mark.
func removeBuild(b string) {
	if _, err := os.Stat(filepath.Join(b, buildMark)); err == nil {
		os.RemoveAll(b)
	}
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

// Drop leaves tables out of the generation the next Commit makes, for
// tables a stage makes stale.
func (d *Dataset) Drop(tables ...string) error {
	d.drops = append(d.drops, tables...)
	return nil
}

// Commit makes the next generation current: every table merged or written
// into the build in this run, each extra file named in files (relative to
// the build folder, Staging()), and every table of the current generation
// the run did not write or Drop. It switches them together in one atomic
// rename, after fsyncing them, and removes the previous generation once the
// switch is durable (see the top of this file). The Dataset stays open for
// another Commit.
func (d *Dataset) Commit(files ...string) error {
	if d.build == "" {
		return errors.New("store: Commit after Close")
	}
	final := filepath.Join(d.build, finalDir)
	prev, err := currentNumber(d.Dir)
	if err != nil {
		return err
	}
	gen := generation{Parent: prev, Written: time.Now().UTC().Format(time.RFC3339), Tables: map[string][]string{}}
	for _, f := range files {
		if err := os.Rename(filepath.Join(d.build, f), filepath.Join(final, f)); err != nil {
			return err
		}
		gen.Files = append(gen.Files, f)
	}
	if err := d.carry(prev); err != nil {
		return err
	}
	for _, t := range d.drops {
		if d.carried[t] { // carried by Preview, dropped since
			os.RemoveAll(filepath.Join(final, t))
		}
	}
	written, err := os.ReadDir(final)
	if err != nil {
		return err
	}
	for _, e := range written {
		if e.IsDir() {
			gen.Tables[e.Name()] = nil
		}
	}
	for t := range gen.Tables {
		entries, err := os.ReadDir(filepath.Join(final, t))
		if err != nil {
			return err
		}
		for _, e := range entries {
			gen.Tables[t] = append(gen.Tables[t], e.Name())
		}
	}
	gen.Files = append(gen.Files, ViewsFile, ViewsFile+".wal")
	n := prev + 1
	if all := generations(d.Dir); len(all) > 0 && all[len(all)-1] >= n {
		n = all[len(all)-1] + 1
	}
	gen.Generation = n
	b, err := json.MarshalIndent(gen, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(final, genFile), append(b, '\n'), 0o644); err != nil {
		return err
	}
	commitStep(1)

	gpath := filepath.Join(d.Dir, genDir, genName(n))
	if err := os.Rename(final, gpath); err != nil {
		return err
	}
	commitStep(2)
	if d.by.Views.Write != nil {
		if err := d.by.Views.Write(context.Background(), gpath); err != nil {
			return err
		}
		repaired.Lock()
		repaired.m[gpath] = true // written for where it lies
		repaired.Unlock()
		os.Remove(filepath.Join(gpath, ViewsFile+".wal"))
	}
	commitStep(3)
	if err := syncTree(gpath, d.carried); err != nil {
		return err
	}
	if err := guard.Sync(filepath.Join(d.Dir, genDir)); err != nil {
		return err
	}
	commitStep(4)
	tmp := filepath.Join(d.Dir, ".current-"+genName(n))
	os.Remove(tmp)
	if err := os.Symlink(filepath.Join(genDir, genName(n)), tmp); err != nil {
		return err
	}
	commitStep(5)
	if err := os.Rename(tmp, filepath.Join(d.Dir, CurrentLink)); err != nil {
		return err
	}
	if err := guard.Sync(d.Dir); err != nil {
		return err
	}
	commitStep(6)
	if _, err := os.Lstat(filepath.Join(d.Dir, ViewsFile)); os.IsNotExist(err) {
		if err := os.Symlink(filepath.Join(CurrentLink, ViewsFile), filepath.Join(d.Dir, ViewsFile)); err != nil {
			return err
		}
	}
	commitStep(7)
	if prev > 0 {
		// This process's own reads of the previous generation are over
		// (it holds the lock and has switched past it): its pin, taken by
		// the reads that built this generation, would keep it.
		unpin(d.Dir, filepath.Join(d.Dir, genDir, genName(prev)))
		removeGeneration(d.Dir, prev)
	}
	removeBuild(d.build)
	commitStep(8)
	return d.newBuild()
}

// carry hard-links every table of generation prev that the build has not
// written and that is not dropped into the build's final folder.
func (d *Dataset) carry(prev int) error {
	if prev == 0 {
		return nil
	}
	final := filepath.Join(d.build, finalDir)
	dropped := map[string]bool{}
	for _, t := range d.drops {
		dropped[t] = true
	}
	old := filepath.Join(d.Dir, genDir, genName(prev))
	og, err := readGeneration(old)
	if err != nil {
		return fmt.Errorf("the current generation of %s cannot be carried over (%w); nothing was changed", d.Dir, err)
	}
	for t, names := range og.Tables {
		if _, err := os.Stat(filepath.Join(final, t)); err == nil || dropped[t] {
			continue
		}
		d.carried[t] = true
		if !oneName(t) || !isDir(filepath.Join(old, t)) {
			return fmt.Errorf("%s lists a table %q that is not a folder of it; nothing was changed", filepath.Join(old, genFile), t)
		}
		names = slices.DeleteFunc(slices.Clone(names), func(n string) bool {
			// a file removed by hand is not carried, nor a name that is
			// not a plain file of the table's folder (a crafted listing)
			return !oneName(n) || guard.Inside(old, filepath.Join(t, n)) != nil
		})
		if err := linkTable(filepath.Join(old, t), filepath.Join(final, t), names); err != nil {
			return err
		}
	}
	return nil
}

// Preview returns a folder of every table the next generation will hold so
// far (the build's tables, and the current generation's others, linked),
// readable as a dataset, for a stage that computes some tables from others
// it writes in the same run and switches them all in one Commit. Tables
// written after Preview replace what it showed; tables dropped after it are
// still shown.
func (d *Dataset) Preview() (string, error) {
	prev, err := currentNumber(d.Dir)
	if err != nil {
		return "", err
	}
	if err := d.carry(prev); err != nil {
		return "", err
	}
	return filepath.Join(d.build, finalDir), nil
}

// linkTable hard-links a table's files into the new generation (copying
// them where the file system has no hard links).
func linkTable(src, dst string, names []string) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	for _, name := range names {
		s, t := filepath.Join(src, name), filepath.Join(dst, name)
		if err := os.Link(s, t); err != nil {
			if err := CopyFile(s, t); err != nil {
				return fmt.Errorf("carrying %s into the new generation: %w", s, err)
			}
		}
	}
	return nil
}

// CopyFile copies src to dst and fsyncs it.
func CopyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := guard.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil { // syncTree skips carried tables
		out.Close()
		return err
	}
	return out.Close()
}

// syncTree fsyncs every file and folder under root, root included, except
// the files of the tables in carried: links to files a previous Commit
// synced.
func syncTree(root string, carried map[string]bool) error {
	return filepath.WalkDir(root, func(p string, e os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() {
			return guard.Sync(p)
		}
		if rel, _ := filepath.Rel(root, p); carried[filepath.Dir(rel)] {
			return nil
		}
		return guard.Sync(p)
	})
}

// writeSynced writes a small file through an exclusive temporary name,
// fsynced, then fsyncs its folder.
func writeSynced(path string, data []byte) error {
	return guard.WriteFile(path, true, func(w io.Writer) error { _, err := w.Write(data); return err })
}

// oneName reports whether n is one plain name (no separator, not . or ..).
func oneName(n string) bool {
	return filepath.IsLocal(n) && !strings.ContainsRune(n, filepath.Separator) && n != "."
}

// isDir reports whether p is a folder (not a symlink to one).
func isDir(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.IsDir()
}

// TableDir returns the folder of a table in the next generation (made if
// need be), for a stage that writes a table's Parquet files itself, such as
// DuckDB's COPY; Commit switches it in with the rest.
func (d *Dataset) TableDir(table string) (string, error) {
	if err := d.mayWrite(table, nil); err != nil {
		return "", err
	}
	p := filepath.Join(d.build, finalDir, table)
	if d.carried[table] {
		// Its files are hard links to the current generation's: writing
		// into them would change that generation. Start afresh.
		delete(d.carried, table)
		if err := os.RemoveAll(p); err != nil {
			return "", err
		}
	}
	return p, os.MkdirAll(p, 0o755)
}
