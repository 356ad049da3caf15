package rerun

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"empties/internal/ingest"
	"empties/internal/manifest"
	"empties/internal/study"
	"empties/internal/testutil"
)

// The dataset's spend leaves out the logs under rerun's log folders, which
// Account counts on its own: a dataset holding a study's logs and two plans'
// log folders spends, those folders left out, exactly what a dataset of the
// study's logs alone spends (study_spend, the figure select writes into a
// plan), and with one folder left out, the whole less what Account finds in
// it.
func TestDatasetSpendLeavesOutTheLogFolders(t *testing.T) {
	ctx := context.Background()
	m, err := manifest.Load(testutil.Path(t, "data", "study.yaml"), manifest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	demo := testutil.Path(t, "data", "demo", "logs")
	own, wide, control := filepath.Join(dir, "study", "default"), filepath.Join(dir, "plans", "wide"), filepath.Join(dir, "plans", "control")
	for src, dst := range map[string]string{"default": own, "wide": wide, "control": control} {
		if err := os.CopyFS(filepath.Join(dst, "xstest_safe"), os.DirFS(filepath.Join(demo, src, "xstest_safe"))); err != nil {
			t.Fatal(err)
		}
	}
	dataset := func(name string, logs ...string) string {
		out := filepath.Join(dir, name)
		if err := ingest.Build(ctx, ingest.Config{Paths: logs, Out: out}); err != nil {
			t.Fatal(err)
		}
		if _, err := study.Rescore(ctx, study.Config{Data: out, Manifest: m.Path}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	spend := func(data string, leftOut ...string) float64 {
		got, err := DatasetSpend(ctx, data, leftOut, m)
		if err != nil || got.FromPlan {
			t.Fatalf("%s without %v: %v (from the plan: %v)", data, leftOut, err, got.FromPlan)
		}
		return got.USD
	}
	all := dataset("all", own, wide, control)
	alone := spend(dataset("alone", own))
	whole := spend(all)
	if alone <= 0 || whole <= alone {
		t.Fatalf("the study's logs spent $%g, with the plans' $%g: want both priced, the second more", alone, whole)
	}
	if got := spend(all, wide, control+"/"); got != alone {
		t.Errorf("the plans' folders left out: $%.17g, want the study's logs' $%.17g", got, alone)
	}
	acc, err := Account(ctx, []string{wide}, m)
	if err != nil {
		t.Fatal(err)
	}
	inWide := acc.In(wide).USD
	if got := spend(all, wide); inWide <= 0 || math.Abs(got-(whole-inWide)) > 1e-9 {
		t.Errorf("the wide folder left out: $%.17g, want $%.17g less its $%.17g", got, whole, inWide)
	}
	if got := spend(all, filepath.Join(dir, "plans", "wid")); got != whole {
		t.Errorf("a folder whose name begins another's left out $%.17g of $%.17g", whole-got, whole)
	}
	if got, err := DatasetSpend(ctx, filepath.Join(dir, "none"), nil, m); err != nil || !got.FromPlan || got.USD != 0 {
		t.Errorf("no dataset: $%g, from the plan %v, %v", got.USD, got.FromPlan, err)
	}
}
