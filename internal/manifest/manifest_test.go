package manifest

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"empties/internal/testutil"
)

// The study manifest loads, and every threshold is the number its file
// holds under that key (read here with a plain YAML decode).
func TestStudyManifestThresholds(t *testing.T) {
	path := testutil.Path(t, "data", "study.yaml")
	m, err := Load(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Thresholds map[string]float64 `yaml:"thresholds"`
	}
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	v := reflect.ValueOf(m.Thresholds)
	if v.NumField() != len(doc.Thresholds) {
		t.Errorf("%d threshold fields, the file has %d keys", v.NumField(), len(doc.Thresholds))
	}
	for i := 0; i < v.NumField(); i++ {
		key := v.Type().Field(i).Tag.Get("yaml")
		want, ok := doc.Thresholds[key]
		got := v.Field(i).Interface().(*float64)
		if !ok || got == nil || *got != want {
			t.Errorf("thresholds.%s: loaded %v, file %v (present %v)", key, got, want, ok)
		}
	}
	if len(m.EvalNames) == 0 || len(m.Routes) == 0 || m.Bootstrap.Resamples < 100 {
		t.Errorf("evals %v, routes %d, bootstrap %+v", m.EvalNames, len(m.Routes), m.Bootstrap)
	}
}

// A broken manifest fails with its file and line, and the pre-registration
// check can be overridden only on purpose.
func TestLoadRejects(t *testing.T) {
	src := testutil.Path(t, "data", "study.yaml")
	base, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	text := string(base)
	// The copy sits in a temporary folder with the profiles and the
	// pre-registration it names beside it, as in data/.
	dataDir := filepath.Dir(src)
	files, err := filepath.Glob(filepath.Join(dataDir, "profiles", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no profiles (%v)", err)
	}
	files = append(files, filepath.Join(dataDir, "preregistration.txt"))
	copyBeside := func(t *testing.T, dir string) {
		for _, f := range files {
			rel, _ := filepath.Rel(dataDir, f)
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			os.MkdirAll(filepath.Join(dir, filepath.Dir(rel)), 0o755)
			if err := os.WriteFile(filepath.Join(dir, rel), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, c := range []struct {
		name, from, to, want string
		opts                 Options
	}{
		{"unchanged", "", "", "", Options{}},
		{"interval out of range", "interval: 0.95", "interval: 1.5", "interval must be between 0 and 1", Options{}},
		{"too few resamples", "resamples: 2000", "resamples: 10", "resamples must be at least 100", Options{}},
		{"a missing threshold", "  d2_form_disagreement: 0.10", "", "d2_form_disagreement is missing", Options{}},
		{"a typo in a key", "budget: {ceiling_usd: 200}", "budget: {ceiling_usd: 200}\nbudgett: 1", "budgett", Options{}},
		{"a Part C judge in the solver", "    strong_reject: {samples: 40, repeats: 3}", "    strong_reject: {samples: 40, repeats: 3}\n    air_bench: {samples: 40, repeats: 3}", `part_c: eval "air_bench" has its judge in "solver"`, Options{}},
		{"a Part C eval without a judge", "    strong_reject: {samples: 40, repeats: 3}", "    strong_reject: {samples: 40, repeats: 3}\n    gpqa_diamond: {samples: 40, repeats: 3}", `part_c: eval "gpqa_diamond" has its judge in "none"`, Options{}},
		// money is finite: NaN passes no comparison, so "<= 0" alone let it through
		{"a NaN ceiling", "budget: {ceiling_usd: 200}", "budget: {ceiling_usd: .nan}", "budget: ceiling_usd is NaN", Options{}},
		{"an infinite ceiling", "budget: {ceiling_usd: 200}", "budget: {ceiling_usd: .inf}", "budget: ceiling_usd is +Inf", Options{}},
		{"a zero ceiling", "budget: {ceiling_usd: 200}", "budget: {ceiling_usd: 0}", "budget: ceiling_usd is 0", Options{}},
		{"a negative price", "prices: {input: 0.25,", "prices: {input: -0.25,", `route "gpt-5-mini/openai-responses": prices.input is -0.25`, Options{}},
		{"a NaN price", "prices: {input: 0.25,", "prices: {input: .nan,", `prices.input is NaN`, Options{}},
		// a route's name becomes a folder of empties rerun's logs
		{"a route name that leaves its folder", "name: gpt-5-mini/openai-responses", "name: ../../gpt-5-mini", `route name "../../gpt-5-mini": part ".." is not a name`, Options{}},
		{"pre-registration changed", "sha256: 1aac", "sha256: 0aac", "preregistration: ", Options{}},
		{"pre-registration changed, overridden", "sha256: 1aac", "sha256: 0aac", "", Options{AllowPreregMismatch: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			edited := text
			if c.from != "" {
				if !strings.Contains(edited, c.from) {
					t.Fatalf("the manifest has no %q", c.from)
				}
				edited = strings.Replace(edited, c.from, c.to, 1)
			}
			dir := t.TempDir()
			copyBeside(t, dir)
			p := filepath.Join(dir, "study.yaml")
			if err := os.WriteFile(p, []byte(edited), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Load(p, c.opts)
			if c.want == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			var me *Error
			if !errors.As(err, &me) || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), p+":") {
				t.Fatalf("got %v, want an error at %s:LINE containing %q", err, p, c.want)
			}
		})
	}
}
