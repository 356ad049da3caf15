package rescorecmd

import (
	"bytes"
	"strings"
	"testing"

	"empties/schema"
)

// The summary counts the re-runs by status and lists those not paired (the
// statuses of the reruns table, as stages/selectcmd's test writes them).
func TestPrintPairing(t *testing.T) {
	reruns := []schema.Rerun{
		{Eval: "e", Route: "r", Arm: "wide", SampleID: "1", Epoch: 1, Status: "paired"},
		{Eval: "hle_text", Route: "r", Arm: "wide", SampleID: "2", Epoch: 1, Status: "no_original"},
		{Eval: "xstest_safe", Route: "r", Arm: "wide", SampleID: "3", Epoch: 1, Status: "not_rerun"},
	}
	var out bytes.Buffer
	printPairing(&out, reruns, []schema.JudgeTest{{}})
	for _, want := range []string{
		"re-runs: 1 paired, 1 without an original, 1 planned but not re-run\n",
		"  no_original: wide hle_text r sample 2 epoch 1\n",
		"  not_rerun: wide xstest_safe r sample 3 epoch 1\n",
		"judge tests (Part C): 1 verdicts\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "paired: ") {
		t.Errorf("a paired re-run is listed:\n%s", out.String())
	}
}
