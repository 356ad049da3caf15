package ingest

import (
	"fmt"
	"strconv"

	"empties/internal/evallog"
)

// sampleKeys makes a sample (id and epoch) one reply row of its log, however
// many members hold it.
//
// inspect_ai 0.3.285 writes a sample to samples/{id}_epoch_{n}.json (a .json
// log: once in its samples, a re-logged sample replacing the earlier one),
// but its readers disagree on a log that holds a sample twice, which only a
// crafted or damaged log does: read_eval_log takes every member under
// samples/ that ends in .json for a sample (log/_recorders/eval.py, whatever
// the name: samples/../../x.json too) and gives the sample as often as it is
// held; read_eval_log_sample(id, epoch) reads the one member
// samples/{id}_epoch_{n}.json, and for a .json log the first sample with
// that id and epoch (log/_recorders/file.py), as read_eval_log_samples and
// inspect view show it. The row is that one: the member of the sample's own
// name when the log has it, else the first holder in the reader's order; a
// .json log's first. Every other holder is an ingest_errors row naming its
// member, and the exit code is 1, so duplicate keys never reach the tables
// (`empties check` verifies the key again).
type sampleKeys struct {
	eval    bool
	members map[string]bool   // the log's sample members (.eval)
	held    map[string]string // key → the member whose rows are kept
}

func newSampleKeys(l *evallog.Log) sampleKeys {
	k := sampleKeys{eval: l.Format == evallog.FormatEval, held: map[string]string{}}
	if k.eval {
		k.members = make(map[string]bool, len(l.Samples))
		for _, ref := range l.Samples {
			k.members[ref.Member] = true
		}
	}
	return k
}

// take records that member holds sample id, epoch, or says why its rows
// are not the sample's.
func (k sampleKeys) take(member, id string, epoch int64) error {
	key := id + "\x00" + strconv.FormatInt(epoch, 10)
	own := "samples/" + id + "_epoch_" + strconv.FormatInt(epoch, 10) + ".json"
	if k.eval && member != own && k.members[own] {
		return fmt.Errorf("holds sample %s epoch %d, which the member %s holds: inspect_ai's read_eval_log_sample reads that one, and the tables keep it; read_eval_log would give the sample twice", id, epoch, own)
	}
	if first, ok := k.held[key]; ok {
		return fmt.Errorf("holds sample %s epoch %d, which %s holds before it in the log: the tables keep the first, as inspect_ai's read_eval_log_sample reads it; read_eval_log would give the sample twice", id, epoch, first)
	}
	k.held[key] = member
	return nil
}
