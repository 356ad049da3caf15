package analyzecmd_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"empties/internal/cliutil"
	"empties/internal/ingest/ingesttest"
	"empties/internal/store"
	"empties/internal/testutil"
	"empties/stages/analyzecmd"
)

// The command line reaches the measure suite with its flags, and a flag out
// of range is a usage error before anything runs.
func TestCommand(t *testing.T) {
	ctx := context.Background()
	dir := ingesttest.Dataset(t, testutil.Path(t, "testdata", "logs", "attachments.eval"))
	var out bytes.Buffer
	cmd := analyzecmd.Command()
	cmd.Writer = &out
	if err := cmd.Run(ctx, []string{"analyze", "--data", dir, "--examples-per-class", "2"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "class_rates") || !store.HasTable(dir, "class_examples") {
		t.Errorf("output:\n%s", out.String())
	}
	err := analyzecmd.Command().Run(ctx, []string{"analyze", "--data", dir, "--examples-per-class", "0"})
	var usage *cliutil.UsageError
	if !errors.As(err, &usage) || !strings.Contains(err.Error(), "--examples-per-class") {
		t.Errorf("--examples-per-class 0: %v, want a usage error naming the flag", err)
	}
}
