package rerun

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"empties/internal/guard"
	"empties/internal/ingest"
	"empties/internal/manifest"
	"empties/internal/measures"
	"empties/internal/store"
	"empties/internal/study"
	"empties/schema"
)

// Spend is what the logs under each folder Account was asked about hold and
// spent, from folder_spend (sql/macros).
type Spend struct {
	folders map[string]FolderState
}

// FolderState is what the logs under a folder hold and spent: the records
// and the finish of the newest attempt of each eval (what a next run of
// eval_set reuses), and the calls of every attempt, each once (the ledger:
// a stopped attempt's calls were paid for).
type FolderState struct {
	Records, Calls, Unpriced int
	USD                      float64
	UnpricedModels           []string // the models of the unpriced calls
	Finished                 bool     // there are logs, and every newest attempt finished
}

// In is what the logs under dir hold: nothing when Account was not asked
// about dir or found no logs.
func (s *Spend) In(dir string) FolderState { return s.folders[filepath.Clean(dir)] }

// Account ingests every attempt's log under dirs into a scratch dataset
// (ingest --all-attempts, then rescore, as the study places them) and reads
// what the logs under each of dirs and of more (folders inside them: the
// plan's groups) hold and spent, from folder_spend (sql/macros), which sums
// log_spend, the calls priced with priced_calls, the cost table's view. The
// newest attempts folder_spend reads the records of are those ingest's log
// set counts (ingest.Newest, the one rule).
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
	if err := ingest.Build(ctx, ingest.Config{Paths: paths, Out: ds, AllAttempts: true}); err != nil && !store.HasTable(ds, "replies") {
		return nil, fmt.Errorf("rerun: reading the logs in %s: %w", strings.Join(paths, ", "), err)
	}
	if !store.HasTable(ds, "replies") {
		return nil, fmt.Errorf("rerun: the logs in %s hold no replies", strings.Join(paths, ", "))
	}
	if _, err := study.Rescore(ctx, study.Config{Data: ds, Manifest: m.Path}); err != nil {
		return nil, fmt.Errorf("rerun: placing the logs in %s in the study: %w", strings.Join(paths, ", "), err)
	}
	logs, err := store.ReadAll[schema.Log](ds, "logs")
	if err != nil {
		return nil, err
	}
	newest := ingest.Newest(logs)
	err = measures.Query(ctx, ds, measures.ParamsFrom(m), []string{"folder_spend"}, func(c *sql.Conn) error {
		for _, d := range append(slices.Clone(dirs), more...) {
			d = filepath.Clean(d)
			var f FolderState
			var models duckdb.Composite[[]string]
			if err := c.QueryRowContext(ctx, "SELECT finished, n_records, cost_usd, n_calls, n_unpriced, unpriced_models FROM folder_spend(?, ?::VARCHAR[])", d, newest).
				Scan(&f.Finished, &f.Records, &f.USD, &f.Calls, &f.Unpriced, &models); err != nil {
				return fmt.Errorf("rerun: what the logs in %s spent: %w", d, err)
			}
			f.UnpricedModels = models.Get()
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
// (Account counts them), with the calls no route prices counted and named.
// FromPlan is true when there is no dataset.
func DatasetSpend(ctx context.Context, data string, logDirs []string, m *manifest.Manifest) (DataSpend, error) {
	if data == "" || !store.HasTable(data, "log_assignments") {
		return DataSpend{FromPlan: true}, nil
	}
	leftOut := make([]string, len(logDirs))
	for i, d := range logDirs {
		leftOut[i] = filepath.Clean(d)
	}
	var out DataSpend
	err := measures.Query(ctx, data, measures.ParamsFrom(m), []string{"study_spend"}, func(c *sql.Conn) error {
		var models duckdb.Composite[[]string]
		if err := c.QueryRowContext(ctx, "SELECT cost_usd, n_unpriced, unpriced_models FROM study_spend(?::VARCHAR[])", leftOut).
			Scan(&out.USD, &out.Unpriced, &models); err != nil {
			return err
		}
		out.UnpricedModels = models.Get()
		return nil
	})
	return out, err
}

// DataSpend is what a dataset's calls cost (DatasetSpend).
type DataSpend struct {
	USD            float64
	Unpriced       int      // calls no route prices
	UnpricedModels []string // their models
	FromPlan       bool     // no dataset: the spend is what the plan recorded
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
