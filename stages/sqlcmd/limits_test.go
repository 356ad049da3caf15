package sqlcmd_test

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"empties/internal/app"
	"empties/internal/duck"
	"empties/internal/ingest"
	"empties/internal/ingest/ingesttest"
	"empties/internal/testutil"
	"empties/stages/sqlcmd"
)

// A query that would take the machine (an ORDER BY over two billion rows,
// as an adversarial pass ran) is stopped by its limits, each named with the
// flag that raises it: its time (--timeout: DuckDB has no statement timeout,
// the context interrupts it), and its memory and the disk it may spill to
// (--memory-limit, --max-spill), which DuckDB holds from the settings made
// before the configuration is locked. Small limits stand in for the
// defaults (half the memory, half the free space of the temporary folder).
func TestQueriesHaveLimits(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ds")
	ingesttest.Build(t, ingest.Config{Paths: []string{testutil.Path(t, "testdata", "logs", "zstd-basic.eval")}, Out: dir})
	ctx := context.Background()
	const huge = "SELECT range, repeat('x', 200) FROM range(2000000000) ORDER BY hash(range)"
	const big = "SELECT * FROM (SELECT range, repeat('x', 200) || range AS s FROM range(20000000) ORDER BY hash(range)) OFFSET 19999999"
	for _, c := range []struct {
		name  string
		opts  sqlcmd.Options
		wants []string
	}{
		{"timeout", sqlcmd.Options{Query: huge, Timeout: time.Second, Format: "csv"}, []string{"the query ran for 1s, its time limit, and was stopped", "--timeout raises it"}},
		{"spill", sqlcmd.Options{Query: big, Memory: 64 << 20, Spill: 64 << 20, Format: "csv"}, []string{"the query needs more than its memory (64 MiB) and the disk it may spill to (64 MiB)", "--max-spill raises it", "--memory-limit raises it"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.opts.Data = dir
			var out bytes.Buffer
			err := sqlcmd.Run(ctx, c.opts, &out)
			var le *duck.LimitError
			if !errors.As(err, &le) {
				t.Fatalf("err %v, want a limit's error", err)
			}
			for _, w := range c.wants {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err %q lacks %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "SET memory_limit") {
				t.Errorf("err %q gives DuckDB's advice, which no reader can follow", err)
			}
		})
	}
	// The command: exit code 1 (a failure, not the 130 of an interrupt), the
	// message once, no row count of a result that is not whole.
	var stdout, stderr bytes.Buffer
	code := app.Main(ctx, app.Root(), []string{"empties", "sql", huge, "--data", dir, "--timeout", "1s"}, &stdout, &stderr)
	if code != 1 || stderr.String() != "empties: sql: the query ran for 1s, its time limit, and was stopped; --timeout raises it (0 for none)\n" || strings.Contains(stdout.String(), "rows)") {
		t.Errorf("empties sql with --timeout 1s: exit %d, stderr %q, stdout %q", code, stderr.String(), stdout.String())
	}
	var out bytes.Buffer
	if err := sqlcmd.Run(ctx, sqlcmd.Options{Query: "SELECT current_setting('memory_limit') AS m, current_setting('threads') AS t", Data: dir, Format: "csv", Memory: 300 << 20, Threads: 1}, &out); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "m,t\n300.0 MiB,1\n" {
		t.Errorf("the settings: %q", got)
	}
}
