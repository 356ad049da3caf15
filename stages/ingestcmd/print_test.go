package ingestcmd

import (
	"bytes"
	"testing"
	"time"

	"empties/internal/ingest"
	"empties/internal/logset"
	"empties/internal/objstore"
	"empties/internal/store"
)

// The summary states what the result holds, line by line: the counts with
// the failed and skipped files, what object storage returned, each file
// skipped and why, each link to a folder not followed, the classes in the seed's order, where the tables are,
// an incremental run's counts with its notes, a compaction, whether the
// dataset changed and which later tables were removed, and the log set.
func TestPrintResult(t *testing.T) {
	sum := ingest.Summary{Files: 5, Failed: 1, Skipped: 2, Samples: 1234, Bytes: 2_500_000, Elapsed: 1500 * time.Millisecond,
		SkippedFiles:     []ingest.Skipped{{Path: "/l/fifo.eval", Reason: "not a regular file (a named pipe)"}, {Path: "s3://b/notes.json", Reason: "a .json file that is not an Inspect log"}},
		LinksNotFollowed: []string{"/l/team"},
		Classes:          map[string]int64{"answer": 1200, "silent": 4, "error": 30, "zz_unknown": 1},
		Fetched:          objstore.Stats{Requests: 7, Bytes: 3_210_000}}
	full := &ingest.Result{Summary: sum, Dir: "/d", Committed: true,
		Set: ingest.SetSummary{Logs: 3, Samples: 40, ByReason: map[string]int64{logset.Retried: 2, logset.MergedShards: 1}}}
	tables := "tables in /d/" + store.CurrentLink + " (DuckDB views: /d/" + store.ViewsFile + ")\n"
	want := "ingested 4 of 5 files, 1,234 samples, 2.5 MB in 1.5s; 1 failed; 2 files skipped\n" +
		"fetched 3.2 MB from object storage in 7 GETs\n" +
		"  skipped /l/fifo.eval: not a regular file (a named pipe)\n" +
		"  skipped s3://b/notes.json: a .json file that is not an Inspect log\n" +
		"  not followed: /l/team, a link to a folder outside the folders named (inspect_ai's listing does not follow it either); name it to read the logs in it\n" +
		"reply classes:\n" +
		"  error                  30\n" +
		"  silent                  4\n" +
		"  answer               1200\n" +
		"  zz_unknown              1\n" +
		tables +
		"log set: 3 logs superseded (2 retried, 1 merged_shards) holding 40 samples, counted by no measure (logs.set_status; --all-attempts counts every file)\n"
	check := func(name string, res *ingest.Result, want string) {
		t.Helper()
		var b bytes.Buffer
		printResult(&b, res)
		if b.String() != want {
			t.Errorf("%s: printed\n%s\nwant\n%s", name, b.String(), want)
		}
	}
	check("full", full, want)

	inc := &ingest.Result{Summary: ingest.Summary{Files: 2, Samples: 9, Bytes: 100_000, Elapsed: time.Second, Classes: map[string]int64{"answer": 9}},
		Dir: "/d", Committed: true, Dropped: []string{"headlines", "overview"},
		Incremental: &ingest.Incremental{New: 1, Changed: 1, Unchanged: 4, Removed: 2, Hashed: 3, Stale: 1},
		Compacted:   ingest.Compaction{{Table: "replies", Compacted: store.Compacted{Parts: 9, Into: 1}}, {Table: "scores", Compacted: store.Compacted{Parts: 10, Into: 2}}}}
	check("incremental", inc, "ingested 2 of 2 new or changed files, 9 samples, 0.1 MB in 1.0s\n"+
		"reply classes of the files read:\n"+
		"  answer                  9\n"+
		tables+
		"incremental: new 1, changed 1, unchanged 4, removed 2; 3 with a new size or time settled by content hash, 1 changed because another empties version read them (--full reads every file again)\n"+
		"compacted 19 part files into 3 (replies 9 into 1, scores 10 into 2), in the order a full ingest writes\n"+
		"removed the tables computed from the old rows (headlines, overview): run rescore, analyze and decide again\n")

	same := &ingest.Result{Dir: "/d", Incremental: &ingest.Incremental{Unchanged: 4}, AllAttempts: true}
	check("unchanged", same, "ingested 0 of 0 new or changed files, 0 samples, 0.0 MB in 0.0s\n"+
		tables+
		"incremental: new 0, changed 0, unchanged 4, removed 0 (--full reads every file again)\n"+
		"nothing changed: the dataset is as it was\n"+
		"log set: --all-attempts, every file counted\n")
}
