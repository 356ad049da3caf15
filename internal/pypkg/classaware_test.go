package pypkg_test

import (
	"context"
	"encoding/json"
	"math"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"empties/internal/ingest"
	"empties/internal/ingest/ingesttest"
	"empties/internal/manifest"
	"empties/internal/study"
	"empties/internal/testutil"
)

// rescored ingests and rescores logs into a new dataset.
func rescored(t *testing.T, logs string) string {
	t.Helper()
	dir := ingesttest.Build(t, ingest.Config{Paths: []string{logs}, Workers: 2})
	if _, err := study.Rescore(context.Background(), study.Config{Data: dir, Manifest: testutil.Path(t, "data", "study.yaml")}); err != nil {
		t.Fatalf("rescore %s: %v", logs, err)
	}
	return dir
}

// sameValue compares two values as JSON (numbers as written: 1 and 1.0 are
// different values of an eval's shape); NaN, which JSON has no word for, only
// equals NaN.
func sameValue(a, b string) bool {
	if a == "NaN" || b == "NaN" {
		return a == b
	}
	dec := func(s string) any {
		d := json.NewDecoder(strings.NewReader(s))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			return "undecodable: " + s
		}
		return v
	}
	return reflect.DeepEqual(dec(a), dec(b))
}

// For every demo eval, the real inspect_evals task run with class_aware
// around its scorers (scripts/difftest/class_aware_demo.py: mockllm replies
// of each class, the demo's scripted judges) logs, sample for sample, the
// value rescore's P3 gives the same replies run as shipped, with the same
// reason, and inspect_ai's own metric over the wrapped run is rescore's P3
// headline. No judge under a scorer is called for a reply P3 re-routes.
func TestClassAwareReproducesP3(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	runPython(t, "", nil, testutil.Path(t, "scripts", "difftest", "class_aware_demo.py"), out)
	p0, p3 := rescored(t, filepath.Join(out, "p0")), rescored(t, filepath.Join(out, "p3"))

	// rescore's P3 of the run as shipped, by eval, sample and epoch
	type cell struct{ value, reason, class string }
	want := map[string]cell{}
	keys := []string{}
	for _, r := range testutil.Query(t, p0, `SELECT eval, sample_id, epoch::VARCHAR, value_json, reason, class, needs_judge::VARCHAR
	  FROM policy_scores WHERE policy = 'P3' ORDER BY ALL`) {
		if r[6] == "true" {
			t.Errorf("%s sample %s epoch %s: P3 needs a judge the run did not call; the comparison would be empty", r[0], r[1], r[2])
		}
		k := strings.Join(r[:3], " ")
		want[k] = cell{r[3], r[4], r[5]}
		keys = append(keys, k)
	}
	if len(want) < 150 {
		t.Fatalf("only %d P3 rows", len(want))
	}

	// what the wrapped scorer logged, under the profile's score key
	got := map[string]cell{}
	for _, r := range testutil.Query(t, p3, `SELECT a.eval, s.sample_id, s.epoch::VARCHAR, s.value_json, coalesce(s.reason, ''),
	    coalesce(json_extract_string(s.metadata, '$.reply_class'), ''), rp.class,
	    coalesce(json_extract_string(s.metadata, '$.rerouted'), ''), coalesce(json_extract_string(s.metadata, '$.reply_rule'), '')
	  FROM scores s JOIN log_assignments a USING (log_id)
	  JOIN replies rp USING (log_id, sample_id, epoch)
	  WHERE s.scorer = (SELECT score_key FROM (VALUES `+profileKeys(t)+`) v(eval, score_key) WHERE v.eval = a.eval)`) {
		k := strings.Join(r[:3], " ")
		// every score, re-routed or not, names the reply's class and the reply rule
		if r[5] != r[6] {
			t.Errorf("%s: class_aware logged class %q, ingest reads the reply as %s", k, r[5], r[6])
		}
		if r[7] != "true" && r[7] != "false" || r[8] != "first" && r[8] != "final" {
			t.Errorf("%s: class_aware logged rerouted %q, reply_rule %q", k, r[7], r[8])
		}
		reason := r[4]
		if r[7] == "false" { // passed through: the eval's own score
			reason = "logged"
		}
		got[k] = cell{r[3], reason, r[6]}
	}

	reasons, classes, rerouted := map[string]int{}, map[string]int{}, 0
	for _, k := range keys {
		w, g := want[k], got[k]
		switch {
		case g == cell{}:
			t.Errorf("%s: no score in the class_aware run", k)
		case !sameValue(w.value, g.value) || logged(w.reason) != g.reason:
			t.Errorf("%s (%s): rescore P3 %s (%s, logged as %s), class_aware logged %s (%s)", k, w.class, w.value, w.reason, logged(w.reason), g.value, g.reason)
		case w.class != g.class:
			t.Errorf("%s: class %s as shipped, %s under class_aware: the replies differ", k, w.class, g.class)
		}
		reasons[w.reason]++
		classes[w.class]++
		if w.reason != "logged" {
			rerouted++
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d scores in the class_aware run, %d P3 rows", len(got), len(want))
	}
	for _, r := range []string{"logged", "max_tokens", "provider_refusal", "no_response"} {
		if reasons[r] == 0 {
			t.Errorf("no P3 row with reason %s: the comparison does not cover it", r)
		}
	}
	for _, c := range []string{"answer", "truncated_text", "truncated_empty", "silent", "reasoning_only", "refusal_flag", "filtered", "error_text", "tool_only"} {
		if classes[c] == 0 {
			t.Errorf("no reply of class %s compared", c)
		}
	}

	// the headline: rescore's P3 over the shipped run against the metric
	// inspect_ai computed, with the eval's own metric code, over the wrapped run
	stored := map[string][]string{}
	for _, r := range testutil.Query(t, p3, `SELECT eval, coalesce(stored::VARCHAR, 'NULL'), status FROM p0_check`) {
		stored[r[0]] = r[1:]
	}
	moved := 0
	for _, r := range testutil.Query(t, p0, `SELECT h.eval, coalesce(h.value::VARCHAR, 'NULL'), coalesce(p.value::VARCHAR, 'NULL')
	  FROM headlines h JOIN headlines p ON p.eval = h.eval AND p.route = h.route AND p.arm = h.arm AND p.policy = 'P0'
	  WHERE h.policy = 'P3' ORDER BY 1`) {
		s, ok := stored[r[0]]
		if !ok {
			t.Errorf("%s: the class_aware run stores no headline", r[0])
			continue
		}
		if !sameFloat(r[1], s[0]) {
			t.Errorf("%s: rescore's P3 headline %s, the class_aware run's metric %s", r[0], r[1], s[0])
		}
		if !sameFloat(r[1], r[2]) {
			moved++
		}
		t.Logf("%-22s P0 %-22s P3 %-22s class_aware %s", r[0], r[2], r[1], s[0])
	}
	if len(stored) != 11 {
		t.Errorf("%d evals in the class_aware run, want the 11 demo evals", len(stored))
	}
	if moved < 5 {
		t.Errorf("P3 moves the headline of only %d evals: the replies do not exercise the policy", moved)
	}

	// no judge (a model call under a scorer span) for a reply P3 re-routes;
	// the run as shipped called judges for some of them
	judged := func(dir string) map[string]int {
		n := map[string]int{}
		for _, r := range testutil.Query(t, dir, `SELECT a.eval, c.sample_id, c.epoch::VARCHAR, count(*)::VARCHAR FROM model_calls c
		  JOIN log_assignments a USING (log_id) WHERE c.kind = 'judge' GROUP BY ALL`) {
			n[strings.Join(r[:3], " ")], _ = strconv.Atoi(r[3])
		}
		return n
	}
	j0, j3 := judged(p0), judged(p3)
	saved := 0
	for _, k := range keys {
		if want[k].reason == "logged" {
			if j0[k] != j3[k] {
				t.Errorf("%s: an answer was judged %d times as shipped, %d under class_aware", k, j0[k], j3[k])
			}
			continue
		}
		if j3[k] > 0 {
			t.Errorf("%s (%s): class_aware re-routed it and still called a judge %d times", k, want[k].class, j3[k])
		}
		saved += j0[k]
	}
	if saved == 0 {
		t.Error("the run as shipped judged no re-routed reply: the test does not show class_aware keeping judges away")
	}
	t.Logf("%d samples × epochs compared (%d re-routed), reasons %v; %d judge calls on non-answers saved", len(keys), rerouted, reasons, saved)
}

// logged is the Score.reason class_aware logs for a P3 row of this reason.
func logged(reason string) string {
	if r, ok := study.ScoreReasons[reason]; ok {
		return r
	}
	return reason
}

// profileKeys is a VALUES list of (eval, score key) from the profiles.
func profileKeys(t *testing.T) string {
	t.Helper()
	files, err := filepath.Glob(testutil.Path(t, "data", "profiles", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("profiles: %v", err)
	}
	var rows []string
	for _, f := range files {
		p, err := manifest.LoadProfile(f)
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, "('"+p.Name+"', '"+strings.ReplaceAll(p.Score.Key, "'", "''")+"')")
	}
	return strings.Join(rows, ", ")
}

func sameFloat(a, b string) bool {
	if a == "NULL" || b == "NULL" || a == "nan" || b == "nan" {
		return (a == "NULL" || a == "nan") && (b == "NULL" || b == "nan")
	}
	x, err1 := strconv.ParseFloat(a, 64)
	y, err2 := strconv.ParseFloat(b, 64)
	return err1 == nil && err2 == nil && math.Abs(x-y) <= 1e-9*math.Max(1, math.Abs(x))
}
