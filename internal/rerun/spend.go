package rerun

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"empties/internal/guard"
	"empties/internal/ingest"
	"empties/internal/manifest"
	"empties/internal/measures"
	"empties/internal/store"
	"empties/internal/study"
)

// Spend is what the counted logs under each folder Account was asked about
// hold and spent, from folder_spend (sql/macros).
type Spend struct {
	folders map[string]FolderState
}

// FolderState is what the counted logs under a folder hold together.
type FolderState struct {
	Records, Calls, Unpriced int
	USD                      float64
	Finished                 bool // there are logs, and every one finished
}

// In is what the logs under dir hold: nothing when Account was not asked
// about dir or found no logs.
func (s *Spend) In(dir string) FolderState { return s.folders[filepath.Clean(dir)] }

// Account ingests and places the logs of log folders in a scratch dataset
// (ingest and rescore, as the study reads them) and reads what the counted
// logs under each of dirs and of more (folders inside them: the plan's
// groups) hold and spent, from folder_spend (sql/macros), which sums
// log_spend, the calls priced with priced_calls, the cost table's view.
func Account(ctx context.Context, dirs []string, m *manifest.Manifest, more ...string) (*Spend, error) {
	s := &Spend{folders: map[string]FolderState{}}
	var paths []string
	for _, d := range dirs {
		if hasLogs(d) {
			paths = append(paths, d)
		}
	}
	if len(paths) == 0 {
		return s, nil
	}
	tmp, err := guard.TempDir(os.TempDir(), "empties-rerun-account.")
	if err != nil {
		return nil, err
	}
	defer tmp.Close()
	ds := filepath.Join(tmp.Path, "data")
	if err := ingest.Build(ctx, ingest.Config{Paths: paths, Out: ds}); err != nil && !store.HasTable(ds, "replies") {
		return nil, fmt.Errorf("rerun: reading the logs in %s: %w", strings.Join(paths, ", "), err)
	}
	if !store.HasTable(ds, "replies") {
		return nil, fmt.Errorf("rerun: the logs in %s hold no replies", strings.Join(paths, ", "))
	}
	if _, err := study.Rescore(ctx, study.Config{Data: ds, Manifest: m.Path}); err != nil {
		return nil, fmt.Errorf("rerun: placing the logs in %s in the study: %w", strings.Join(paths, ", "), err)
	}
	err = measures.Query(ctx, ds, measures.ParamsFrom(m), []string{"folder_spend"}, func(c *sql.Conn) error {
		for _, d := range append(slices.Clone(dirs), more...) {
			d = filepath.Clean(d)
			var f FolderState
			if err := c.QueryRowContext(ctx, "SELECT finished, n_records, cost_usd, n_calls, n_unpriced FROM folder_spend(?)", d).
				Scan(&f.Finished, &f.Records, &f.USD, &f.Calls, &f.Unpriced); err != nil {
				return fmt.Errorf("rerun: what the logs in %s spent: %w", d, err)
			}
			s.folders[d] = f
		}
		return nil
	})
	return s, err
}

// SiblingLogFolders are the other log folders of rerun beside root (the
// logs of the study's other plans): their spend counts until the dataset
// holds them.
func SiblingLogFolders(root string) []string {
	parent := filepath.Dir(root)
	entries, _ := os.ReadDir(parent)
	var out []string
	for _, e := range entries {
		p := filepath.Join(parent, e.Name())
		if p != root && e.IsDir() && guard.IsLogFolder(p, "rerun") {
			out = append(out, p)
		}
	}
	return out
}

// DatasetSpend is what the dataset's calls cost (study_spend, the spend
// select writes into a plan), the logs under the given log folders left out
// (Account counts them). fromPlan is true when there is no dataset.
func DatasetSpend(ctx context.Context, data string, logDirs []string, m *manifest.Manifest) (usd float64, fromPlan bool, err error) {
	if data == "" || !store.HasTable(data, "log_assignments") {
		return 0, true, nil
	}
	leftOut := make([]string, len(logDirs))
	for i, d := range logDirs {
		leftOut[i] = filepath.Clean(d)
	}
	err = measures.Query(ctx, data, measures.ParamsFrom(m), []string{"study_spend"}, func(c *sql.Conn) error {
		return c.QueryRowContext(ctx, "SELECT cost_usd FROM study_spend(?::VARCHAR[])", leftOut).Scan(&usd)
	})
	return usd, false, err
}

func hasLogs(dir string) bool {
	found := false
	filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err == nil && !e.IsDir() && (strings.HasSuffix(p, ".eval") || strings.HasSuffix(p, ".json") && !strings.HasSuffix(p, "eval-set.json") && !strings.HasSuffix(p, "logs.json")) {
			found = true
			return filepath.SkipAll
		}
		return nil
	})
	return found
}
