package measures

import (
	"context"
	"testing"

	"empties/internal/ingest"
	"empties/internal/ingest/ingesttest"
	"empties/internal/testutil"
)

// The source views leave out a superseded log's rows: over the log-set
// fixture, every view keyed by log_id holds the counted logs' rows only, and
// with --all-attempts every row; logs itself keeps every file with its
// set_status.
func TestSourceViewsExcludeSupersededLogs(t *testing.T) {
	ctx := context.Background()
	study := testutil.LogSetStudy(t)
	for _, all := range []bool{false, true} {
		dir := ingesttest.Build(t, ingest.Config{Paths: []string{study}, AllAttempts: all})
		// what the Parquet holds, counted and in all
		want := testutil.Query(t, dir, `SELECT
			(SELECT count(*) FROM logs WHERE set_status = 'counted'),
			(SELECT count(*) FROM replies JOIN logs USING (log_id) WHERE set_status = 'counted'),
			(SELECT count(*) FROM scores JOIN logs USING (log_id) WHERE set_status = 'counted'),
			(SELECT count(*) FROM logs), (SELECT count(*) FROM replies)`)[0]
		conn := testDB(t)
		if _, err := createSourceViews(ctx, conn, dir, sourceViews); err != nil {
			t.Fatal(err)
		}
		var logs, replies, scores string
		if err := conn.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM logs), (SELECT count(*) FROM replies), (SELECT count(*) FROM scores)`).Scan(&logs, &replies, &scores); err != nil {
			t.Fatal(err)
		}
		if got := []string{logs, replies, scores}; got[0] != want[3] || got[1] != want[1] || got[2] != want[2] {
			t.Errorf("all=%v: views hold logs, replies, scores %v; want all %s logs and the counted replies, scores %v", all, got, want[3], want[1:3])
		}
		if all != (want[0] == want[3]) || all != (want[1] == want[4]) {
			t.Errorf("all=%v: counted %v of %v logs and replies", all, want[:2], want[3:])
		}
	}
}
