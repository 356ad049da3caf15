package pypkg_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"empties/internal/testutil"
)

// The two reply rules (vocab.ReplyRules: first, final), applied by the
// package's choose_reply to every sample of the shared corpora and the demo
// (scripts/difftest/reply_rules.py): on a sample with one generation of the
// model under test they pick the same call; every demo eval but AIR-Bench is
// single-turn; and every demo sample gets, under the rule of its eval's
// class_aware settings (final, first for AIR-Bench), the class it has under
// first, the study's: class_aware's default does not move the study's numbers.
func TestReplyRulesOnTheCorpora(t *testing.T) {
	t.Parallel()
	demo := testutil.Path(t, "data", "demo", "logs")
	paths := []string{filepath.Join(testutil.WildCorpus(t), "logs"), testutil.SharedCorpus(t), demo}
	out := runPython(t, "", nil, append([]string{testutil.Path(t, "scripts", "difftest", "reply_rules.py")}, paths...)...)
	type choice struct {
		source string
		call   *int
		class  string
	}
	decode := func(raw json.RawMessage) (choice, error) {
		var a []any
		if err := json.Unmarshal(raw, &a); err != nil || len(a) != 3 {
			return choice{}, fmt.Errorf("%s: %v", raw, err)
		}
		c := choice{source: fmt.Sprint(a[0]), class: fmt.Sprint(a[2])}
		if f, ok := a[1].(float64); ok {
			i := int(f)
			c.call = &i
		}
		return c, nil
	}
	n, multi, demoSamples := 0, 0, 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var r struct {
			Log         string          `json:"log"`
			SampleID    any             `json:"sample_id"`
			Epoch       int             `json:"epoch"`
			Eval        *string         `json:"eval"`
			EvalRule    *string         `json:"eval_rule"`
			Generations int             `json:"generations"`
			First       json.RawMessage `json:"first"`
			Final       json.RawMessage `json:"final"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%v: %s", err, sc.Text())
		}
		first, err1 := decode(r.First)
		final, err2 := decode(r.Final)
		if err1 != nil || err2 != nil {
			t.Fatalf("%v %v", err1, err2)
		}
		name := fmt.Sprintf("%s sample %v epoch %d", r.Log, r.SampleID, r.Epoch)
		n++
		same := first.source == final.source && first.class == final.class &&
			(first.call == nil) == (final.call == nil) && (first.call == nil || *first.call == *final.call)
		switch {
		case r.Generations <= 1 && !same:
			t.Errorf("%s: one generation, yet first picks %+v and final %+v", name, first, final)
		case r.Generations > 1:
			multi++
			if first.call == nil || final.call == nil || *final.call <= *first.call {
				t.Errorf("%s: %d generations, first picks %+v and final %+v", name, r.Generations, first, final)
			}
		}
		if !strings.HasPrefix(r.Log, demo+string(filepath.Separator)) {
			continue
		}
		demoSamples++
		if r.Eval == nil || r.EvalRule == nil {
			t.Errorf("%s: a demo log no eval's settings match", name)
			continue
		}
		if *r.Eval != "air_bench" && r.Generations > 1 {
			t.Errorf("%s (%s): %d generations in a single-turn eval", name, *r.Eval, r.Generations)
		}
		graded := final
		if *r.EvalRule == "first" {
			graded = first
		}
		if graded.class != first.class {
			t.Errorf("%s (%s): class %s under its settings' rule %s, %s under first (the study's)", name, *r.Eval, graded.class, *r.EvalRule, first.class)
		}
	}
	if n < 4000 || demoSamples < 1900 {
		t.Errorf("%d samples, %d of the demo", n, demoSamples)
	}
	if multi < 100 {
		t.Errorf("only %d samples with more than one generation: the rules are not told apart", multi)
	}
	t.Logf("%d samples (%d of the demo), %d with more than one generation of the model under test", n, demoSamples, multi)
}
