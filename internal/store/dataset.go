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
// This file opens a dataset and its build folder; generation.go has the
// generations, their pins and the tables readers find in them; commit.go has
// the steps of a commit.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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

// Drop leaves tables out of the generation the next Commit makes, for
// tables a stage makes stale.
func (d *Dataset) Drop(tables ...string) error {
	d.drops = append(d.drops, tables...)
	return nil
}

// writeSynced writes a small file through an exclusive temporary name,
// fsynced, then fsyncs its folder.
func writeSynced(path string, data []byte) error {
	return guard.WriteFile(path, true, func(w io.Writer) error { _, err := w.Write(data); return err })
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
