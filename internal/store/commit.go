package store

// Commit, step by step (commitStep numbers them for the kill tests), each
// step a function whose errors say which dataset it was committing and what
// it was doing ("commit DIR: link carried tables: ..."):
//
//  1. stageGeneration: the tables this run did not write (nor Drop) are
//     hard-linked from the current generation into the build's final
//     folder, and generation.json is written there;
//  2. placeGeneration: the final folder is renamed to gen/<n>, n one past
//     the highest generation;
//  3. writeViews: the DuckDB view file is written into gen/<n>
//     (Stage.Views);
//  4. syncGeneration: every file and folder of gen/<n>, and gen/ itself, is
//     fsynced;
//  5. linkNext: a new symlink .current-<n> -> gen/<n> is made beside
//     current;
//  6. switchCurrent: it is renamed over current, and DIR is fsynced: the
//     switch, one atomic rename; readers see the old generation before it
//     and the new one after;
//  7. linkViewsFile: DIR/empties.duckdb is made if missing;
//  8. removePrevious: the previous generation is removed (the files its
//     generation.json names; a file empties did not write keeps its folder
//     alive).
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
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"empties/internal/guard"
)

// commitStep is called after each step of Commit, with its number; the kill
// tests set it to stop the process there.
var commitStep = func(int) {}

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
	prev, err := currentNumber(d.Dir)
	if err != nil {
		return fmt.Errorf("commit %s: find the current generation: %w", d.Dir, err)
	}
	gen, err := d.stageGeneration(prev, files)
	if err != nil {
		return err
	}
	commitStep(1)
	g, err := d.placeGeneration(gen.Generation)
	if err != nil {
		return err
	}
	commitStep(2)
	if err := d.writeViews(g); err != nil {
		return err
	}
	commitStep(3)
	if err := d.syncGeneration(g); err != nil {
		return err
	}
	commitStep(4)
	next, err := d.linkNext(gen.Generation)
	if err != nil {
		return err
	}
	commitStep(5)
	if err := d.switchCurrent(next); err != nil {
		return err
	}
	commitStep(6)
	if err := d.linkViewsFile(); err != nil {
		return err
	}
	commitStep(7)
	d.removePrevious(prev)
	commitStep(8)
	if err := d.newBuild(); err != nil {
		return fmt.Errorf("commit %s: generation %s is current; make the next build folder: %w", d.Dir, genName(gen.Generation), err)
	}
	return nil
}

// stageGeneration is step 1: the build's final folder becomes the next
// generation, numbered, with the extra files moved in, the tables the run
// did not write nor drop carried from generation prev, and its
// generation.json.
func (d *Dataset) stageGeneration(prev int, files []string) (*generation, error) {
	final := filepath.Join(d.build, finalDir)
	gen := &generation{Parent: prev, Written: time.Now().UTC().Format(time.RFC3339), Tables: map[string][]string{}}
	for _, f := range files {
		if err := os.Rename(filepath.Join(d.build, f), filepath.Join(final, f)); err != nil {
			return nil, fmt.Errorf("commit %s: move %s into the new generation: %w", d.Dir, f, err)
		}
		gen.Files = append(gen.Files, f)
	}
	if err := d.carry(prev); err != nil {
		return nil, fmt.Errorf("commit %s: link carried tables: %w", d.Dir, err)
	}
	for _, t := range d.drops {
		if d.carried[t] { // carried by Preview, dropped since
			os.RemoveAll(filepath.Join(final, t))
		}
	}
	if err := listTables(final, gen); err != nil {
		return nil, fmt.Errorf("commit %s: list the new generation's tables: %w", d.Dir, err)
	}
	gen.Files = append(gen.Files, ViewsFile, ViewsFile+".wal")
	gen.Generation = nextNumber(d.Dir, prev)
	b, err := json.MarshalIndent(gen, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("commit %s: encode %s: %w", d.Dir, genFile, err)
	}
	if err := os.WriteFile(filepath.Join(final, genFile), append(b, '\n'), 0o644); err != nil {
		return nil, fmt.Errorf("commit %s: write %s: %w", d.Dir, genFile, err)
	}
	return gen, nil
}

// listTables records in gen every table folder of final and its files.
func listTables(final string, gen *generation) error {
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
	return nil
}

// nextNumber is the number of the next generation of the dataset at dir:
// one past prev, and past every generation folder there (an unswitched one
// a killed run left, not yet removed).
func nextNumber(dir string, prev int) int {
	n := prev + 1
	if all := generations(dir); len(all) > 0 && all[len(all)-1] >= n {
		n = all[len(all)-1] + 1
	}
	return n
}

// placeGeneration is step 2: the build's final folder is renamed to
// gen/<n>, which it returns.
func (d *Dataset) placeGeneration(n int) (string, error) {
	g := filepath.Join(d.Dir, genDir, genName(n))
	if _, err := os.Lstat(g); err == nil {
		// Not a generation folder (nextNumber passed those): someone's
		// file or link, which the rename would fail over.
		return "", fmt.Errorf("commit %s: rename the new generation to %s: %s is someone else's, not a generation; left as it is: move it out of %s and run again",
			d.Dir, filepath.Join(genDir, genName(n)), g, filepath.Join(d.Dir, genDir))
	}
	if err := os.Rename(filepath.Join(d.build, finalDir), g); err != nil {
		return "", fmt.Errorf("commit %s: rename the new generation to %s: %w", d.Dir, filepath.Join(genDir, genName(n)), err)
	}
	return g, nil
}

// writeViews is step 3: the stage's DuckDB view file is written into
// generation g (Stage.Views; none without one).
func (d *Dataset) writeViews(g string) error {
	if d.by.Views.Write == nil {
		return nil
	}
	if err := d.by.Views.Write(context.Background(), g); err != nil {
		return fmt.Errorf("commit %s: write the view file of %s: %w", d.Dir, g, err)
	}
	repaired.Lock()
	repaired.m[g] = true // written for where it lies
	repaired.Unlock()
	os.Remove(filepath.Join(g, ViewsFile+".wal"))
	return nil
}

// syncGeneration is step 4: every file and folder of generation g, and gen/
// itself, is fsynced (the carried tables' files were, by an earlier Commit).
func (d *Dataset) syncGeneration(g string) error {
	if err := syncTree(g, d.carried); err != nil {
		return fmt.Errorf("commit %s: sync %s: %w", d.Dir, g, err)
	}
	if err := guard.Sync(filepath.Join(d.Dir, genDir)); err != nil {
		return fmt.Errorf("commit %s: sync %s: %w", d.Dir, filepath.Join(d.Dir, genDir), err)
	}
	return nil
}

// linkNext is step 5: the symlink .current-<n> -> gen/<n> is made beside
// current; it returns its path. A link of that name (one a killed commit
// left) is replaced; anything else there is someone's, and the commit
// stops, leaving it as it is.
func (d *Dataset) linkNext(n int) (string, error) {
	name := ".current-" + genName(n)
	next := filepath.Join(d.Dir, name)
	if err := guard.RemoveLink(d.Dir, name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("commit %s: make the link %s: %w", d.Dir, name, err)
	}
	if err := os.Symlink(filepath.Join(genDir, genName(n)), next); err != nil {
		return "", fmt.Errorf("commit %s: make the link %s: %w", d.Dir, filepath.Base(next), err)
	}
	return next, nil
}

// switchCurrent is step 6, the switch: the link next is renamed over
// current, one atomic rename, and DIR is fsynced so that the switch is
// durable.
func (d *Dataset) switchCurrent(next string) error {
	if err := os.Rename(next, filepath.Join(d.Dir, CurrentLink)); err != nil {
		return fmt.Errorf("commit %s: rename %s over %s: %w", d.Dir, filepath.Base(next), CurrentLink, err)
	}
	if err := guard.Sync(d.Dir); err != nil {
		return fmt.Errorf("commit %s: sync the dataset folder after the switch: %w", d.Dir, err)
	}
	return nil
}

// linkViewsFile is step 7: DIR/empties.duckdb -> current/empties.duckdb is
// made if missing.
func (d *Dataset) linkViewsFile() error {
	link := filepath.Join(d.Dir, ViewsFile)
	if _, err := os.Lstat(link); os.IsNotExist(err) {
		if err := os.Symlink(filepath.Join(CurrentLink, ViewsFile), link); err != nil {
			return fmt.Errorf("commit %s: make the link %s: %w", d.Dir, ViewsFile, err)
		}
	}
	return nil
}

// removePrevious is step 8: generation prev (0: none) and the build folder
// are removed.
func (d *Dataset) removePrevious(prev int) {
	if prev > 0 {
		// This process's own reads of the previous generation are over
		// (it holds the lock and has switched past it): its pin, taken by
		// the reads that built this generation, would keep it.
		unpin(d.Dir, filepath.Join(d.Dir, genDir, genName(prev)))
		removeGeneration(d.Dir, prev)
	}
	removeBuild(d.build)
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

// oneName reports whether n is one plain name (no separator, not . or ..).
func oneName(n string) bool {
	return filepath.IsLocal(n) && !strings.ContainsRune(n, filepath.Separator) && n != "."
}

// isDir reports whether p is a folder (not a symlink to one).
func isDir(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.IsDir()
}
