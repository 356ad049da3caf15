package ingest

// The writer: a file's rows, held in memory or spilled to staging files, go
// to the table sinks only once the whole file has been read.

import (
	"context"
	"fmt"
	"io"
	"slices"

	"empties/internal/evallog"
	"empties/internal/store"
	"empties/schema"
)

// writer collects the rows of the current file and hands them to the table
// sinks only once the whole file has been read, so a file that fails
// part-way leaves nothing behind. The rows are small next to the raw log (no
// events, no inputs); past spillAt bytes a log's rows go to staging files,
// so memory stays bounded however many samples one log holds.
type writer struct {
	ds      *store.Dataset
	sum     *Summary
	prog    Progress
	log     io.Writer // Config.Log
	sinks   *sinks
	spillAt int64

	cur     *evallog.Log
	ctx     *logContext
	failed  bool
	replies []schema.Reply
	scores  []schema.Score
	calls   []schema.ModelCall
	held    int64 // approximate bytes of the rows held in memory
	spilled *spill
	nRows   int64            // replies of this log, held or spilled
	classes map[string]int64 // of this log
	keys    sampleKeys       // of this log
}

// spill holds the staging files of one log's rows that did not fit in memory.
type spill struct {
	replies *store.Writer[schema.Reply]
	scores  *store.Writer[schema.Score]
	calls   *store.Writer[schema.ModelCall]
}

// sinks write the three big tables concurrently.
type sinks struct {
	replies *store.Sink[schema.Reply]
	scores  *store.Sink[schema.Score]
	calls   *store.Sink[schema.ModelCall]
}

func openSinks(ds *store.Dataset, starts map[string]int) (*sinks, error) {
	var s sinks
	var err error
	if s.replies, err = store.SinkOf(ds, schema.Replies, starts["replies"]); err != nil {
		return nil, err
	}
	if s.scores, err = store.SinkOf(ds, schema.Scores, starts["scores"]); err != nil {
		return nil, err
	}
	if s.calls, err = store.SinkOf(ds, schema.ModelCalls, starts["model_calls"]); err != nil {
		return nil, err
	}
	return &s, nil
}

// close flushes every sink and returns the first error.
func (s *sinks) close() error {
	var first error
	for _, c := range []func() error{s.replies.Close, s.scores.Close, s.calls.Close} {
		if err := c(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

func (w *writer) handle(ctx context.Context, it item) error {
	switch {
	case it.err != nil:
		w.fail(it.path, "", it.err)
		w.prog.File(0)
	case it.log != nil:
		w.cur, w.ctx, w.failed = it.log, it.ctx, false
		w.replies, w.scores, w.calls, w.held, w.nRows = nil, nil, nil, 0, 0
		w.classes = map[string]int64{}
		w.keys = newSampleKeys(it.log)
		w.missing(it.path, it.log.Missing)
	case it.sample != nil:
		var res jobResult
		select {
		case res = <-it.sample.result:
		case <-ctx.Done():
			return ctx.Err()
		}
		if w.failed {
			return nil
		}
		if res.err != nil {
			w.fail(it.path, it.sample.ref.Member, res.err)
			return nil
		}
		r := res.rows
		if err := w.keys.take(it.sample.ref.Member, r.Reply.SampleID, r.Reply.Epoch); err != nil {
			w.duplicate(it.path, it.sample.ref.Member, err)
			return nil
		}
		n := r.size()
		if w.held > 0 && w.held+n > w.spillAt {
			// The rows held before this sample go to staging files; this
			// sample's are in memory already, and spilling them alone (one
			// huge reply) would only copy them out and back.
			if err := w.spill(); err != nil {
				return err
			}
		}
		w.replies = append(w.replies, r.Reply)
		w.scores = append(w.scores, r.Scores...)
		w.calls = append(w.calls, r.Calls...)
		w.nRows++
		w.classes[r.Reply.Class]++
		w.held += n
		w.prog.Sample()
	case it.end:
		return w.endFile()
	}
	return nil
}

func (w *writer) fail(path, member string, err error) {
	w.failed = true
	w.sum.Failed++
	e := schema.IngestError{Path: path, Member: nonEmpty(member), Error: err.Error()}
	w.sum.Errors = append(w.sum.Errors, e)
	w.prog.Clear()
	if member != "" {
		fmt.Fprintf(w.log, "error: %s: %s: %v\n", path, member, err)
	} else {
		fmt.Fprintf(w.log, "error: %s: %v\n", path, err)
	}
}

// missing reports the samples a log's summaries list without a member, one
// ingest_errors row each, naming the sample and the member expected.
//
// The log's other samples are still ingested, unlike the samples of a file
// that cannot be read, which is left out whole. An unreadable file gives no
// reason to trust any of its rows; a missing member is a hole in a readable
// log, whose every other member reads as inspect_ai reads it (read_eval_log
// returns them and never looks at the summaries). Leaving them out would
// drop samples the user's own reader shows, and leaving the hole unreported
// would lose a sample silently: so every present sample is a row, the absent
// one an error row, and the exit code is 1.
func (w *writer) missing(path string, missing []evallog.MissingSample) {
	for _, m := range missing {
		err := fmt.Errorf("sample %s epoch %d is listed in %s but the log has no member %s: the sample cannot be read", m.ID, m.Epoch, m.Source, m.Member)
		w.sum.Missing++
		w.sum.Errors = append(w.sum.Errors, schema.IngestError{Path: path, Member: nonEmpty(m.Member), Error: err.Error()})
		w.prog.Clear()
		fmt.Fprintf(w.log, "error: %s: %s: %v\n", path, m.Member, err)
	}
}

// duplicate reports a sample member whose sample another member of the log
// holds: an ingest_errors row naming it, and no rows (sampleKeys).
func (w *writer) duplicate(path, member string, err error) {
	w.sum.Duplicates++
	w.sum.Errors = append(w.sum.Errors, schema.IngestError{Path: path, Member: nonEmpty(member), Error: err.Error()})
	w.prog.Clear()
	fmt.Fprintf(w.log, "error: %s: %s: %v\n", path, member, err)
}

func (w *writer) endFile() error {
	l := w.cur
	w.cur = nil
	defer l.Close()
	if !w.failed {
		// An object's hash comes from the download its sample reads fed.
		if err := l.FinishHash(); err != nil {
			w.fail(l.Path, "", err)
		}
	}
	if w.failed {
		w.drop()
		w.prog.File(0)
		return nil
	}
	w.sum.logs = append(w.sum.logs, logRow(w.ctx, l, w.nRows))
	if w.spilled != nil {
		if err := w.unspill(); err != nil {
			return err
		}
	}
	w.sinks.replies.Write(w.replies)
	w.sinks.scores.Write(w.scores)
	w.sinks.calls.Write(w.calls)
	w.sum.Samples += w.nRows
	w.sum.Bytes += l.Size
	for c, n := range w.classes {
		w.sum.Classes[c] += n
	}
	w.replies, w.scores, w.calls = nil, nil, nil
	w.prog.File(l.Size)
	return nil
}

// spill moves the rows held in memory to the log's staging files.
func (w *writer) spill() error {
	if w.spilled == nil {
		var s spill
		var err error
		if s.replies, err = store.NewWriter[schema.Reply](w.ds, "spill-replies"); err != nil {
			return err
		}
		if s.scores, err = store.NewWriter[schema.Score](w.ds, "spill-scores"); err != nil {
			return err
		}
		if s.calls, err = store.NewWriter[schema.ModelCall](w.ds, "spill-model_calls"); err != nil {
			return err
		}
		w.spilled = &s
	}
	s := w.spilled
	for _, err := range []error{s.replies.Write(w.replies...), s.scores.Write(w.scores...), s.calls.Write(w.calls...)} {
		if err != nil {
			return err
		}
	}
	w.replies, w.scores, w.calls, w.held = nil, nil, nil, 0
	return nil
}

// unspill streams a finished log's spilled rows into the sinks, in order,
// before the rows still in memory.
func (w *writer) unspill() error {
	s := w.spilled
	w.spilled = nil
	var finished []func() error // each spilled file's removal, once Finish closed it
	defer func() {
		for _, remove := range finished {
			remove()
		}
	}()
	p, err := s.replies.Finish()
	finished = append(finished, s.replies.RemoveFinished)
	if err == nil {
		err = store.ReadFile(p, func(rows []schema.Reply) error { w.sinks.replies.Write(slices.Clone(rows)); return nil })
	}
	if err != nil {
		return err
	}
	p, err = s.scores.Finish()
	finished = append(finished, s.scores.RemoveFinished)
	if err == nil {
		err = store.ReadFile(p, func(rows []schema.Score) error { w.sinks.scores.Write(slices.Clone(rows)); return nil })
	}
	if err != nil {
		return err
	}
	p, err = s.calls.Finish()
	finished = append(finished, s.calls.RemoveFinished)
	if err == nil {
		err = store.ReadFile(p, func(rows []schema.ModelCall) error { w.sinks.calls.Write(slices.Clone(rows)); return nil })
	}
	return err
}

// drop forgets the rows of the current file, held or spilled.
func (w *writer) drop() {
	w.replies, w.scores, w.calls, w.held = nil, nil, nil, 0
	if s := w.spilled; s != nil {
		s.replies.Discard()
		s.scores.Discard()
		s.calls.Discard()
		w.spilled = nil
	}
}

// abort drops the rows of an unfinished file (on cancellation).
func (w *writer) abort() {
	w.drop()
	if w.cur != nil {
		w.cur.Close()
		w.cur = nil
	}
}
