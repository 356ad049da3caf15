package logset

import "strings"

// The names a folder's listing reads, as data: ingest's discovery (local and
// in a bucket, internal/ingest/discover.go) applies them, and `empties schema
// --format json` exports them (vocab.Export, "discovery") for the Python
// package's `python -m empties classify`, which reads them from its shipped
// vocabulary instead of keeping a copy.
const (
	// EvalSuffix ends an .eval log: every such file is read.
	EvalSuffix = logSuffix
	// JSONSuffix ends a .json log: such a file is read when it opens like
	// one (JSONFirstKeys within its first JSONHeadBytes bytes).
	JSONSuffix = ".json"
	// HiddenPrefix starts a folder that holds no logs: .buffer holds a
	// running eval's realtime segments; dot folders also hold empties' own
	// build folders.
	HiddenPrefix = "."
	// CompanionSuffix ends a companion folder (IsCompanionDir).
	CompanionSuffix = checkpoints
	// JSONHeadBytes is how much of a .json file is read to tell whether it
	// opens like a log.
	JSONHeadBytes = 256
)

// NotLogs are the JSON files inspect_ai writes beside its logs that are not
// logs (the log folder's listing, the eval set's state): never read.
var NotLogs = []string{"eval-set.json", "listing.json", "logs.json"}

// JSONFirstKeys are the keys inspect_ai's writer puts first in an EvalLog
// object: a .json file opens like a log when one of them is its first key.
var JSONFirstKeys = []string{"version", "status", "eval"}

// SkipDir reports whether a folder below a listed path is left out: a dot
// folder or a companion folder.
func SkipDir(name string) bool {
	return strings.HasPrefix(name, HiddenPrefix) || IsCompanionDir(name)
}

// LogName says whether a file's name is a log's: an .eval, or a .json that
// is not one of NotLogs.
func LogName(name string) (isEval, isJSON bool) {
	isEval = strings.HasSuffix(name, EvalSuffix)
	isJSON = strings.HasSuffix(name, JSONSuffix)
	for _, n := range NotLogs {
		if name == n {
			isJSON = false
		}
	}
	return isEval, isJSON
}
