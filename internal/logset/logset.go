// Package logset decides which log files of a folder count, by the rules
// inspect_ai 0.3.285 applies to the folders it writes. A folder holds more
// than one log of the same samples in three ways, and in each one log counts
// and the others are superseded:
//
//   - Retried attempts. An eval set's retry writes a new log (new eval_id)
//     for the same eval.task_id, seeded with the previous attempt's samples,
//     and leaves the older attempt beside it. eval_set keeps "the newest log
//     per task" (_eval/evalset.py: latest_completed_task_eval_logs): an older
//     attempt "holds nothing the newest lacks". Reason "retried".
//   - Recovered logs. recover_eval_log writes <name>-recovered.eval beside a
//     crashed <name>.eval (log/_recover/_api.py): the same eval (task_id,
//     eval_id) with the buffered samples added. It is the newer attempt of
//     the task, so the same rule picks it. Reason "recovered".
//   - Shards. A sharded run writes per-worker logs to
//     <dir>/<name>.shards/<k>/*.eval and merges them into <dir>/<name>.eval
//     (or <name>-recovered.eval) (_util/log_layout.py). In each <k>/ the
//     last attempt is the shard's current one (log/_shards/_walk.py); a
//     current shard is hidden by inspect_ai's listing, and superseded here,
//     when its merged log is present, every present merged log has status
//     success, and the shard was last written before the oldest of them
//     (log/_shard_listing.py: filter_merged_shards). Reason "merged_shards".
//     An unsharded log of the set's task that counts over its merged log
//     supersedes the shards too (inspect ctl: "an unsharded attempt is
//     current over the task's shard set"): reason "retried".
//
// Attempts of a task are grouped by eval.task_id (eval_id when a log has
// none, as inspect ctl does) and ordered as inspect_ai orders shard
// attempts (attempt_sort_key): by the {created} timestamp that leads the file
// name, then a -recovered copy after its original, then modification time,
// then path. eval_set itself orders by modification time alone; the file
// name comes first here because copies and checkouts do not keep mtimes,
// and for logs written where they lie the two orders agree (an attempt is
// created after the one it retries stopped writing).
//
// Two files of one attempt (the same eval_id; for logs older than eval_id,
// the same run_id and created) that are not a crashed log and its recovered
// copy are copies: the same bytes twice, the same log as .eval and .json, an
// older snapshot of a running log. Reason "duplicate". Checkpoint folders (<name>.checkpoints/,
// sandbox checkpoints) hold no logs: IsCompanionDir names them for
// discovery.
package logset

import (
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
)

// Statuses of a file in its set.
const (
	Counted    = "counted"
	Superseded = "superseded"
)

// Reasons a file is superseded.
const (
	Retried      = "retried"       // a newer attempt of the same task (eval set retry)
	Recovered    = "recovered"     // its -recovered copy
	MergedShards = "merged_shards" // a shard log its finished merged log covers
	Duplicate    = "duplicate"     // another copy of the same attempt (same eval)
)

// Statuses and Reasons are the sets logs.set_status and
// logs.superseded_reason hold (vocab.Columns).
var (
	Statuses = []string{Counted, Superseded}
	Reasons  = []string{Retried, Recovered, MergedShards, Duplicate}
)

// File is what the rules read of one log file: its header and its listing.
type File struct {
	ID      string    // key the verdict names (logs.log_id)
	Path    string    // absolute path
	TaskID  string    // eval.task_id
	EvalID  string    // eval.eval_id (absent before inspect_ai 0.3.95)
	RunID   string    // eval.run_id
	Created time.Time // eval.created
	Status  string    // header status: started, success, cancelled, error
	ModTime time.Time
}

// Verdict is a file's place in its set.
type Verdict struct {
	Status string // Counted or Superseded
	// SupersededBy is the ID of the file that holds its samples instead: the
	// task's newest attempt, the shard's current attempt (itself superseded
	// when its merged log covers it), or the merged log; "" when counted.
	SupersededBy string
	Reason       string // one of the reasons above; "" when counted
}

const (
	logSuffix       = ".eval"
	recoveredSuffix = "-recovered"
	shardsSuffix    = ".shards"
	checkpoints     = ".checkpoints"
)

// IsCompanionDir reports whether a directory name is a companion folder that
// holds no logs: <name>.checkpoints (sandbox checkpoints). Shard folders
// (<name>.shards) hold logs and are not companions in this sense.
func IsCompanionDir(name string) bool {
	return strings.HasSuffix(name, checkpoints) && name != checkpoints
}

// AllCounted returns a verdict of Counted for every file (--all-attempts).
func AllCounted(files []File) []Verdict {
	out := make([]Verdict, len(files))
	for i := range out {
		out[i] = Verdict{Status: Counted}
	}
	return out
}

// Resolve applies the rules to the files of one ingest and returns a verdict
// per file, in the same order. Every file is either counted or superseded by
// a file of the same call; files whose headers could not be read are not
// passed, so they supersede nothing.
func Resolve(files []File) []Verdict {
	out := AllCounted(files)
	byPath := map[string]int{}
	for i, f := range files {
		byPath[filepath.Clean(f.Path)] = i
	}
	supersede := func(i, by int, reason string) {
		out[i] = Verdict{Status: Superseded, SupersededBy: files[by].ID, Reason: reason}
	}

	// Shard attempts, per <k>/ directory; the rest are unsharded logs.
	shardDirs := map[string][]int{}
	var unsharded []int
	for i, f := range files {
		if _, ok := shardSet(f.Path); ok {
			d := filepath.Dir(filepath.Clean(f.Path))
			shardDirs[d] = append(shardDirs[d], i)
		} else {
			unsharded = append(unsharded, i)
		}
	}

	// Unsharded attempts of one task: the newest counts.
	groups := map[string][]int{}
	for _, i := range unsharded {
		key := files[i].TaskID
		if key == "" {
			key = "eval:" + files[i].EvalID
		}
		if key == "eval:" {
			continue // neither id: nothing to group it with
		}
		groups[key] = append(groups[key], i)
	}
	current := map[string]int{} // task key -> counted unsharded log
	for key, g := range groups {
		sortAttempts(files, g)
		newest := g[len(g)-1]
		current[key] = newest
		for _, i := range g[:len(g)-1] {
			supersede(i, newest, attemptReason(files[i], files[newest]))
		}
	}

	// Shards: the current attempt of each <k>/, then the set against its
	// merged logs.
	for _, g := range shardDirs {
		sortAttempts(files, g)
		cur := g[len(g)-1]
		for _, i := range g[:len(g)-1] {
			supersede(i, cur, attemptReason(files[i], files[cur]))
		}
		set, _ := shardSet(files[cur].Path)
		var merged []int // present merged logs, in attempt order
		for _, c := range mergedCandidates(set) {
			if j, ok := byPath[c]; ok {
				merged = append(merged, j)
			}
		}
		sortAttempts(files, merged)
		key := setKey(set)
		if len(merged) > 0 {
			m := files[merged[len(merged)-1]]
			if key = m.TaskID; key == "" {
				key = "eval:" + m.EvalID
			}
		}
		// an unsharded log counted over the set's merged logs is a retry
		// of the whole set
		if j, ok := current[key]; ok && !contains(merged, j) {
			supersede(cur, j, Retried)
			continue
		}
		if by, ok := coveringMerged(files, merged, files[cur]); ok {
			supersede(cur, by, MergedShards)
		}
	}
	return out
}

// coveringMerged applies filter_merged_shards to one current shard: it is
// covered when every present merged log has status success and the shard
// was last written before the oldest of them (a tie keeps it: coarse mtimes
// cannot order a shard write and a merge in the same tick). It returns the
// merged log that counts.
func coveringMerged(files []File, merged []int, shard File) (int, bool) {
	if len(merged) == 0 {
		return 0, false
	}
	oldest := files[merged[0]].ModTime
	for _, j := range merged {
		// evallog.StatusSuccess: logset cannot import evallog (whose tests
		// reach logset through testutil and duck).
		if files[j].Status != "success" {
			return 0, false
		}
		if files[j].ModTime.Before(oldest) {
			oldest = files[j].ModTime
		}
	}
	if !shard.ModTime.Before(oldest) {
		return 0, false
	}
	return merged[len(merged)-1], true
}

// attemptReason says why older is superseded by newer, an attempt of the same
// task or shard.
func attemptReason(older, newer File) string {
	switch {
	case !sameEval(older, newer):
		return Retried
	case isRecoveredName(newer.Path) && !isRecoveredName(older.Path):
		return Recovered
	}
	return Duplicate
}

// sameEval reports whether two logs record the same attempt: the same
// eval_id, or for logs without one, the same run_id and created (what the
// reader derives the eval_id from).
func sameEval(a, b File) bool {
	if a.EvalID != "" || b.EvalID != "" {
		return a.EvalID == b.EvalID
	}
	return a.RunID != "" && a.RunID == b.RunID && a.Created.Equal(b.Created)
}

// shardSet returns the <dir>/<name>.shards directory of a shard log at
// <dir>/<name>.shards/<k>/<file>, and false for any other path
// (merged_log_candidates_for_shard). A log in a <k> whose name starts with
// "." is not a shard attempt (list_shard_set).
func shardSet(path string) (string, bool) {
	k := filepath.Dir(filepath.Clean(path))
	set := filepath.Dir(k)
	base := filepath.Base(set)
	if !strings.HasSuffix(base, shardsSuffix) || base == shardsSuffix || strings.HasPrefix(filepath.Base(k), ".") {
		return "", false
	}
	return set, true
}

// mergedCandidates are the logs a shard set merges into: <name>.eval and,
// after a manual recovery, <name>-recovered.eval.
func mergedCandidates(set string) []string {
	stem := strings.TrimSuffix(set, shardsSuffix)
	return []string{stem + logSuffix, stem + recoveredSuffix + logSuffix}
}

// setKey is the task id a shard set's name carries ({created}_{task}_{id}),
// for a set without a merged log present (inspect ctl's _set_key).
func setKey(set string) string {
	name := strings.TrimSuffix(filepath.Base(set), shardsSuffix)
	if i := strings.LastIndexByte(name, '_'); i >= 0 && timestampPrefix.MatchString(name) {
		return name[i+1:]
	}
	return name
}

func isRecoveredName(path string) bool {
	return strings.HasSuffix(strings.TrimSuffix(filepath.Base(path), logSuffix), recoveredSuffix)
}

// timestampPrefix is the {created} that leads a native log name
// (log/_file.py: _timestamp_prefix_re).
var timestampPrefix = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}[:-]\d{2}[:-]\d{2}`)

// created parses a log name's timestamp prefix as UTC (the zone the recorder
// names files in; the offset after it is ignored because file names replace
// its "+" with "-").
func created(path string) (time.Time, bool) {
	m := timestampPrefix.FindString(filepath.Base(path))
	if m == "" {
		return time.Time{}, false
	}
	digits := strings.NewReplacer(":", "", "-", "").Replace(m)
	t, err := time.Parse("20060102T150405", digits)
	return t, err == nil
}

// sortAttempts orders file indexes oldest first (attempt_sort_key): names
// without a timestamp first, by mtime; then by the name's timestamp, a
// -recovered copy after its original, mtime, and path.
func sortAttempts(files []File, idx []int) {
	sort.SliceStable(idx, func(a, b int) bool {
		fa, fb := files[idx[a]], files[idx[b]]
		ca, oka := created(fa.Path)
		cb, okb := created(fb.Path)
		if oka != okb {
			return !oka
		}
		if !ca.Equal(cb) {
			return ca.Before(cb)
		}
		if ra, rb := isRecoveredName(fa.Path), isRecoveredName(fb.Path); ra != rb {
			return !ra
		}
		if !fa.ModTime.Equal(fb.ModTime) {
			return fa.ModTime.Before(fb.ModTime)
		}
		return fa.Path < fb.Path
	})
}

func contains(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
