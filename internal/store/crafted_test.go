package store_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"empties/internal/store"
	"empties/internal/testutil"
)

// craft rewrites generation.json of folder g through edit.
func craft(t *testing.T, g string, edit func(tables map[string]any, files []any) []any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(g, "generation.json"))
	if err != nil {
		t.Fatal(err)
	}
	var gen map[string]any
	if err := json.Unmarshal(b, &gen); err != nil {
		t.Fatal(err)
	}
	gen["files"] = edit(gen["tables"].(map[string]any), gen["files"].([]any))
	b, _ = json.Marshal(gen)
	if err := os.WriteFile(filepath.Join(g, "generation.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCraftedGenerationDeletesNothingOutside: a dataset received from
// someone else whose generation.json lists paths outside its generation
// (traversal, absolute paths, symlinks to the victim's files) gets a new
// generation and the old one is removed without a file outside the
// generation being removed or carried in; table names that leave the
// generation, or a symlinked table folder, refuse the commit; a crafted
// generation that is not current is removed by the next Create, again
// deleting nothing outside.
func TestCraftedGenerationDeletesNothingOutside(t *testing.T) {
	base := t.TempDir()
	victim := testutil.NewUserTree(t, filepath.Join(base, "victim"))
	dir := filepath.Join(base, "ds")
	commitTables(t, dir, "a", "t")
	g := filepath.Join(dir, "gen", "000001")
	os.Symlink(filepath.Join(victim.Dir, "notes.txt"), filepath.Join(g, "t", "link.parquet"))
	craft(t, g, func(tables map[string]any, files []any) []any {
		tables["t"] = append(tables["t"].([]any), "../../../../victim/notes.txt", filepath.Join(victim.Dir, "notes.txt"),
			"link.parquet", "../../../victim/thesis/data.csv", "../../../victim/notes-link")
		return append(files, "../../victim/notes.txt", filepath.Join(victim.Dir, "thesis", "data.csv"), "t/../../../victim/notes.txt", "t/link.parquet")
	})
	ds, err := store.Create(testStage, dir)
	if err != nil {
		t.Fatal(err)
	}
	writeTables(t, ds, "b", "u")
	if err := ds.Commit(); err != nil {
		t.Fatal(err)
	}
	ds.Close()
	victim.Check(t, "a commit over crafted file names")
	filepath.WalkDir(filepath.Join(dir, "gen"), func(p string, e os.DirEntry, err error) error {
		if err == nil && e.Type().IsRegular() {
			if b, _ := os.ReadFile(p); string(b) == "my notes\n" || string(b) == "a,b\n1,2\n" {
				t.Errorf("a victim's file was carried into the dataset: %s", p)
			}
		}
		return nil
	})
	if _, err := os.Stat(filepath.Join(g, "t", "part-00000.parquet")); !os.IsNotExist(err) {
		t.Errorf("generation 1's own part file is still there (%v)", err)
	}

	// table names that leave the generation, a symlinked table folder
	g2 := filepath.Join(dir, "gen", "000002")
	os.Symlink(filepath.Join(victim.Dir, "thesis"), filepath.Join(g2, "evil"))
	craft(t, g2, func(tables map[string]any, files []any) []any {
		tables["evil"] = []any{"chapter1.md", "data.csv"}
		tables["../../../victim/thesis"] = []any{"chapter1.md"}
		tables[filepath.Join(victim.Dir, "thesis")] = []any{"data.csv"}
		return files
	})
	ds, err = store.Create(testStage, dir)
	if err != nil {
		t.Fatal(err)
	}
	writeTables(t, ds, "c", "v")
	if err := ds.Commit(); err == nil || !strings.Contains(err.Error(), "not a folder of it") {
		t.Errorf("a commit over crafted table names: %v, want a refusal", err)
	}
	ds.Close()
	victim.Check(t, "a commit over crafted table names")

	// a crafted generation that is not current: removed by recovery
	stale := filepath.Join(dir, "gen", "000009")
	os.MkdirAll(stale, 0o755)
	b, _ := os.ReadFile(filepath.Join(g2, "generation.json"))
	os.WriteFile(filepath.Join(stale, "generation.json"), b, 0o644)
	os.Symlink(filepath.Join(victim.Dir, "thesis"), filepath.Join(stale, "evil"))
	ds, err = store.Create(testStage, dir)
	if err != nil {
		t.Fatal(err)
	}
	ds.Close()
	victim.Check(t, "recovery over a crafted generation")
}

// TestPreviousGenerationGoesAtCommit: the generation a commit replaces is
// removed by that commit (README, step 8), also when this process read it.
func TestPreviousGenerationGoesAtCommit(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ds")
	commitTables(t, dir, "a", "t")
	for i, v := range []string{"b", "c"} {
		ds, err := store.Create(testStage, dir)
		if err != nil {
			t.Fatal(err)
		}
		if !store.HasTable(dir, "t") { // a read under the lock pins the current generation
			t.Fatal("no table t")
		}
		writeTables(t, ds, v, "t")
		if err := ds.Commit(); err != nil {
			t.Fatal(err)
		}
		entries, _ := os.ReadDir(filepath.Join(dir, "gen"))
		var gens []string
		for _, e := range entries {
			if e.Name()[0] != '.' {
				gens = append(gens, e.Name())
			}
		}
		if len(gens) != 1 {
			t.Errorf("after commit %d: generations %v, want only the current one", i+2, gens)
		}
		ds.Close()
	}
}
