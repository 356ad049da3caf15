package app_test

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"empties/internal/ingest"
	"empties/internal/ingest/ingesttest"
	"empties/internal/testutil"
)

// The built binary: `empties sql ... | head -1` on a result no one could
// hold prints its first line and ends, exit 0, nothing on stderr, once the
// reader has gone (the EPIPE is quiet, the query stops).
func TestSQLIntoAClosedPipe(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := testutil.Binary(t)
	data := ingesttest.Build(t, ingest.Config{Paths: []string{testutil.Path(t, "testdata", "logs", "zstd-basic.eval")},
		Out: filepath.Join(t.TempDir(), "data")})
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute) // a hang guard, far beyond any load
	defer cancel()
	for _, format := range []string{"csv", "table", "json"} {
		cmd := exec.CommandContext(ctx, bin, "sql", "SELECT range AS n FROM range(1000000000000)", "--data", data, "--format", format)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		first, err := bufio.NewReader(stdout).ReadString('\n')
		stdout.Close() // head exits
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		err = cmd.Wait()
		if err != nil || stderr.Len() != 0 {
			t.Errorf("%s: %v, stderr %q; want exit 0 and nothing said", format, err, stderr.String())
		}
		if !strings.HasPrefix(first, "n") && !strings.HasPrefix(first, `{"n":0}`) {
			t.Errorf("%s: first line %q", format, first)
		}
	}
}

// TestMain removes the binary testutil.Binary built.
func TestMain(m *testing.M) {
	code := m.Run()
	testutil.RemoveBinary()
	os.Exit(code)
}
