package ingest

import (
	"time"

	"empties/internal/logset"
	"empties/internal/store"
	"empties/schema"
)

// SetSummary is what the log-set rules did: superseded files and their
// samples, by reason.
type SetSummary struct {
	Logs, Samples int64
	ByReason      map[string]int64
}

// applyLogSet fills the set columns of every logs row once all headers are
// read: by inspect_ai's rules (internal/logset), or every file counted with
// allAttempts.
func applyLogSet(rows []schema.Log, allAttempts bool) SetSummary {
	files := setFiles(rows)
	verdicts := logset.AllCounted(files)
	if !allAttempts {
		verdicts = logset.Resolve(files)
	}
	sum := SetSummary{ByReason: map[string]int64{}}
	for i, v := range verdicts {
		r := &rows[i]
		r.SetStatus, r.SupersededBy, r.SupersededReason = v.Status, nil, nil
		if v.Status == logset.Superseded {
			by, reason := v.SupersededBy, v.Reason
			r.SupersededBy, r.SupersededReason = &by, &reason
			sum.Logs++
			sum.Samples += r.SampleCount
			sum.ByReason[reason]++
		}
	}
	return sum
}

// writeLogs stages the logs table (rows in the order the files were read).
func writeLogs(ds *store.Dataset, rows []schema.Log) error {
	w, err := store.WriterOf(ds, schema.Logs)
	if err != nil {
		return err
	}
	if err := w.Write(rows...); err != nil {
		w.Discard()
		return err
	}
	if err := w.Keep(ds); err != nil {
		return err
	}
	return store.MergeTable(ds, schema.Logs)
}

// setFiles are the logs rows as the log set's rules read them.
func setFiles(rows []schema.Log) []logset.File {
	files := make([]logset.File, len(rows))
	for i, r := range rows {
		files[i] = logset.File{ID: r.LogID, Path: r.Path, TaskID: deref(r.TaskID), EvalID: deref(r.EvalID), RunID: deref(r.RunID), Status: r.Status}
		if r.Created != nil {
			files[i].Created = time.UnixMicro(*r.Created)
		}
		if r.Modified != nil {
			files[i].ModTime = time.UnixMicro(*r.Modified)
		}
	}
	return files
}

// Newest is the log ids of rows that the log set counts (the rule ingest
// applies without --all-attempts): the newest attempt of each eval. For a
// dataset ingested with every attempt (rerun's ledger), whose rows are all
// counted.
func Newest(rows []schema.Log) []string {
	var out []string
	for i, v := range logset.Resolve(setFiles(rows)) {
		if v.Status == logset.Counted {
			out = append(out, rows[i].LogID)
		}
	}
	return out
}
