package schemacmd_test

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"empties/internal/classify"
	"empties/internal/vocab"
	"empties/schema"
	"empties/stages/schemacmd"
)

// empties schema lists every table the stages write and every analysis
// output, each with its columns.
func TestSchemaListsEveryTable(t *testing.T) {
	var out bytes.Buffer
	if err := schemacmd.Run(context.Background(), schemacmd.Options{Format: "json"}, &out); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tables []struct {
			Name    string `json:"name"`
			Columns []struct {
				Name, Type string
			} `json:"columns"`
		} `json:"tables"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	have := map[string]int{}
	for _, tb := range doc.Tables {
		have[tb.Name] = len(tb.Columns)
	}
	for _, tb := range schema.Tables() {
		if have[tb.Name] != len(tb.Columns()) {
			t.Errorf("%s: %d columns listed, %d declared", tb.Name, have[tb.Name], len(tb.Columns()))
		}
	}
	for _, name := range []string{"class_rates", "d1a_truncation", "d3_headline_deltas", "d4_judge_behaviour", "cost"} {
		if have[name] == 0 {
			t.Errorf("analysis output %s not listed", name)
		}
	}
	if err := schemacmd.Run(context.Background(), schemacmd.Options{Table: "nope", Format: "text"}, &out); err == nil {
		t.Error("an unknown table was accepted")
	}
}

// empties schema shows each column as the pages head and format it: the
// label and format its contract (or row struct) declares.
func TestSchemaShowsLabels(t *testing.T) {
	var out bytes.Buffer
	if err := schemacmd.Run(context.Background(), schemacmd.Options{Table: "non_answer_rates", Format: "text"}, &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`["non-answers", percent]: x_non_answer / n_samples`, `["interval, low end", interval_low of non_answer_rate]`,
		`["eval/task", identifier]`, `files only]`, `["arm", identifier, in a study]`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("empties schema non_answer_rates lacks %q:\n%s", want, out.String())
		}
	}
}

// The JSON schema carries the vocabulary, each set as its package defines
// it: a script reading it classifies as the Go classifier does.
func TestSchemaJSONExportsTheVocabulary(t *testing.T) {
	var out bytes.Buffer
	if err := schemacmd.Run(context.Background(), schemacmd.Options{Format: "json"}, &out); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Vocabulary vocab.Vocabulary `json:"vocabulary"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	v := doc.Vocabulary
	if !slices.Equal(v.Classes, classify.Classes()) || v.Classes[0] != classify.Error || v.Classes[len(v.Classes)-1] != classify.Answer {
		t.Errorf("classes %v", v.Classes)
	}
	if !slices.Equal(v.Policies, vocab.Policies) || len(v.CallKinds) != 3 || len(v.JudgeClasses) != 5 {
		t.Errorf("policies %v, call kinds %v, judge classes %v", v.Policies, v.CallKinds, v.JudgeClasses)
	}
	if len(v.Rules) != len(classify.OrderedRules()) || len(v.ErrorForms) != len(classify.ErrorForms) {
		t.Fatalf("%d rules, %d forms", len(v.Rules), len(v.ErrorForms))
	}
	offered, notOffered := true, false
	for _, c := range v.Classes {
		want := classify.NonAnswer(c, &notOffered)
		got := slices.Contains(v.NonAnswer.Classes, c) || slices.Contains(v.NonAnswer.UnlessToolsOffered, c)
		if got != want {
			t.Errorf("%s: exported non-answer without tools %v, classify says %v", c, got, want)
		}
		if got, want := slices.Contains(v.NonAnswer.Classes, c), classify.NonAnswer(c, &offered); got != want {
			t.Errorf("%s: exported non-answer with tools %v, classify says %v", c, got, want)
		}
	}
	// Every form's exported patterns match what the Go form matches.
	for i, f := range v.ErrorForms {
		for _, text := range []string{"Invalid prompt: your prompt was flagged as potentially violating our usage policy.", "BLOCKED: SAFETY\n", "(no content)", "an answer"} {
			matched := false
			for _, p := range f.Patterns {
				matched = matched || regexp.MustCompile(p).MatchString(text)
			}
			if matched != classify.ErrorForms[i].Matches(text) {
				t.Errorf("%s on %q: exported %v, Go %v", f.Name, text, matched, !matched)
			}
		}
	}
}

// A column that holds a vocabulary value names its set, from the code that
// defines it: `empties schema replies` lists the classes in rule order.
func TestSchemaNamesEachColumnsSet(t *testing.T) {
	var out bytes.Buffer
	if err := schemacmd.Run(context.Background(), schemacmd.Options{Table: "replies", Format: "markdown"}, &out); err != nil {
		t.Fatal(err)
	}
	want := "one of " + strings.Join(classify.Classes(), ", ") + " |"
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(line, "| class |") {
			if !strings.HasSuffix(line, want) {
				t.Errorf("replies.class: %q, want it to end %q", line, want)
			}
			return
		}
	}
	t.Errorf("no class column in:\n%s", out.String())
}
