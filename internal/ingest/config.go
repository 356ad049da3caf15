package ingest

// What an ingest is given: its Config, the Progress it reports to, and the
// defaults of both.

import (
	"io"
	"runtime"
)

// Config configures an ingest.
type Config struct {
	Paths   []string // files, folders and s3:// URLs
	Out     string   // dataset directory
	Workers int      // sample decoders; 0 = one per CPU
	// Compression of the Parquet pages (store.Compressions); "" means
	// store.DefaultCompression.
	Compression string
	// SpillBytes is how many bytes of one log's rows are held in memory
	// before they go to a staging file; 0 means DefaultSpillBytes.
	SpillBytes int64
	// AllAttempts counts every file, superseded attempts included
	// (internal/logset decides otherwise).
	AllAttempts bool
	// MaxMemberBytes caps one zip member (or .json sample) inflated; a log
	// holding a larger one fails, naming it. 0 means
	// evallog.DefaultMaxMember.
	MaxMemberBytes int64
	// Full reads every file again, even into a dataset that holds their
	// rows; by default only new and changed files are read (incremental.go).
	Full bool
	// Compact rewrites every part file of replies, scores and model_calls
	// of an incremental ingest in the order a full ingest writes; by
	// default only a table's small parts, once there are too many
	// (compactTables).
	Compact bool
	// Progress hears of the files and samples as they are read; nil: no one.
	Progress Progress
	// Log receives each error and note as it is found, a line each (the
	// command's stderr); nil discards them.
	Log io.Writer
}

// Progress is told of the reading as it goes (the command draws it).
type Progress interface {
	Start(files int)  // the number of files to read is known
	Sample()          // a sample's rows are held
	File(bytes int64) // a file is done: read (its size) or failed (0)
	Clear()           // a line is about to go to Config.Log, or the reading is over
}

type noProgress struct{}

func (noProgress) Start(int)  {}
func (noProgress) Sample()    {}
func (noProgress) File(int64) {}
func (noProgress) Clear()     {}

// DefaultSpillBytes bounds the rows of one log held in memory.
const DefaultSpillBytes = 256 << 20

func workers(n int) int {
	if n > 0 {
		return n
	}
	return runtime.GOMAXPROCS(0)
}
