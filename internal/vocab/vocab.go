// Package vocab is the closed sets of values the tables use: the policies
// and call kinds, defined here, and the reply classes, classifier rules,
// error forms, non-answer rule and judge classes of internal/classify, all
// exported together by `empties schema --format json`. Stages, checks and
// scripts read them from here instead of keeping their own copies.
package vocab

import (
	"empties/internal/classify"
	"empties/internal/logset"
)

// The routing policies (policy_scores.policy); stages/rescore applies them.
const (
	P0 = "P0"
	P1 = "P1"
	P2 = "P2"
	P3 = "P3"
)

// Policies are the routing policies, in order.
var Policies = []string{P0, P1, P2, P3}

// Call kinds (model_calls.kind): whose call a model event is.
const (
	KindMUT   = "model_under_test"
	KindJudge = "judge"
	KindOther = "other"
)

// CallKinds are the call kinds in order.
var CallKinds = []string{KindMUT, KindJudge, KindOther}

// Column is a column of schema/ whose every value is one of a closed set.
type Column struct {
	Table, Column string
	Values        []string
}

// Columns are the columns that hold a value of the vocabulary: `empties
// schema` names each one's set in its doc, and `empties check` verifies that
// every value in the dataset is one of it (NULL is allowed where the column
// is nullable).
func Columns() []Column {
	classes, judge := classify.Classes(), classify.JudgeClasses()
	return []Column{
		{"replies", "class", classes},
		{"model_calls", "kind", CallKinds},
		{"model_calls", "judge_class", judge},
		{"policy_scores", "policy", Policies},
		{"policy_scores", "class", classes},
		{"headlines", "policy", Policies},
		{"judge_verdicts", "judge_class", judge},
		{"judge_verdicts", "reply_class", classes},
		{"reply_outcomes", "class", classes},
		{"reruns", "orig_class", classes},
		{"reruns", "rerun_class", classes},
		{"judge_tests", "judge_class", judge},
		{"logs", "set_status", logset.Statuses},
		{"logs", "superseded_reason", logset.Reasons},
	}
}

// Vocabulary is every closed set, as `empties schema --format json` exports
// it so scripts (scripts/fixtures/classify_fixtures.py) and checks read them
// instead of keeping their own copies.
type Vocabulary struct {
	ClassifierVersion string      `json:"classifier_version"` // classify.Version, part of every class_rule
	Classes           []string    `json:"classes"`            // reply classes, first-match order
	Rules             []Rule      `json:"rules"`              // the classifier's rules in evaluation order, error forms expanded
	ErrorForms        []ErrorForm `json:"error_forms"`        // the provider error texts behind error_text.form.<name>
	Definitions       []ClassDef  `json:"class_definitions"`  // each class, what it means and how it counts
	NonAnswer         NonAnswer   `json:"non_answer"`
	NotReplies        []string    `json:"not_replies"`   // classes that are no reply at all (neither answer nor non-answer)
	JudgeClasses      []string    `json:"judge_classes"` // judge-reply classes, PaperBench order
	Policies          []string    `json:"policies"`      // policy_scores.policy, in order
	CallKinds         []string    `json:"call_kinds"`    // model_calls.kind
}

// Rule is one classifier rule.
type Rule struct {
	ID    string `json:"id"` // class_rule without the @version
	Class string `json:"class"`
	Seed  string `json:"seed"` // the seed's wording
}

// ErrorForm is one provider error form; a text is the form when any pattern
// (RE2 syntax, which Python's re reads the same for these) matches it.
type ErrorForm struct {
	Name     string   `json:"name"`
	Provider string   `json:"provider"`
	Source   string   `json:"source"`
	Patterns []string `json:"patterns"`
}

// NonAnswer is the non-answer rule: these classes always, and those of
// UnlessToolsOffered (tool_only) when the eval is known to have offered no
// tools (tools_offered false; NULL reads as offered).
type NonAnswer struct {
	Classes            []string `json:"classes"`
	UnlessToolsOffered []string `json:"unless_tools_offered"`
}

// How a class counts (ClassDef.CountsAs): the three parts the report splits
// every sample's reply into, and tool_only's "it depends".
const (
	CountsNonAnswer              = "non_answer"
	CountsNonAnswerUnlessOffered = "non_answer_unless_tools_offered"
	CountsNoReply                = "no_reply"
	CountsAnswer                 = "answer"
)

// ClassDef is one reply class: what it means (classify.Meanings) and how it
// counts: a non-answer, a non-answer unless the eval offered tools
// (tool_only), no reply at all (error, no_choices), or an answer.
type ClassDef struct {
	Class    string `json:"class"`
	CountsAs string `json:"counts_as"`
	Meaning  string `json:"meaning"`
}

// Export collects the sets from the code that defines them.
func Export() Vocabulary {
	v := Vocabulary{
		ClassifierVersion: classify.Version,
		Classes:           classify.Classes(),
		NonAnswer:         NonAnswer{Classes: classify.NonAnswerClasses()},
		JudgeClasses:      classify.JudgeClasses(),
		Policies:          Policies,
		CallKinds:         CallKinds,
	}
	offered, notOffered := true, false
	for _, c := range v.Classes {
		if !classify.IsReply(c) {
			v.NotReplies = append(v.NotReplies, c)
		}
		if classify.NonAnswer(c, &notOffered) && !classify.NonAnswer(c, &offered) {
			v.NonAnswer.UnlessToolsOffered = append(v.NonAnswer.UnlessToolsOffered, c)
		}
	}
	for _, c := range v.Classes {
		d := ClassDef{Class: c, Meaning: classify.Meanings[c], CountsAs: CountsAnswer}
		switch {
		case !classify.IsReply(c):
			d.CountsAs = CountsNoReply
		case classify.NonAnswer(c, &offered):
			d.CountsAs = CountsNonAnswer
		case classify.NonAnswer(c, &notOffered):
			d.CountsAs = CountsNonAnswerUnlessOffered
		}
		v.Definitions = append(v.Definitions, d)
	}
	for _, r := range classify.OrderedRules() {
		v.Rules = append(v.Rules, Rule{ID: r.ID, Class: r.Class, Seed: r.Seed})
	}
	for _, f := range classify.ErrorForms {
		e := ErrorForm{Name: f.Name, Provider: f.Provider, Source: f.Source}
		for _, p := range f.Patterns {
			e.Patterns = append(e.Patterns, p.String())
		}
		v.ErrorForms = append(v.ErrorForms, e)
	}
	return v
}
