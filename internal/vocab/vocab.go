// Package vocab is the closed sets of values the tables use: the policies
// and call kinds, defined here, and the reply classes, classifier rules,
// error forms, non-answer rule and judge classes of internal/classify, all
// exported together by `empties schema --format json`. Stages, checks and
// scripts read them from here instead of keeping their own copies.
package vocab

import (
	"fmt"

	"empties/internal/classify"
	"empties/internal/evallog"
	"empties/internal/guard"
	"empties/internal/logset"
	"empties/schema"
)

// The routing policies (policy_scores.policy); stages/rescorecmd applies them.
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

// Call statuses (model_calls.call_status): how a model event ended.
const (
	CallCompleted   = "completed"   // the call returned
	CallPlaceholder = "placeholder" // pending, never completed: not a generation
	CallRetried     = "retried"     // errored, then retried
	CallFailed      = "failed"      // errored, not retried
)

// CallStatuses are the call statuses in order.
var CallStatuses = []string{CallCompleted, CallPlaceholder, CallRetried, CallFailed}

// Reply sources (replies.reply_source): where a sample's reply was taken from.
const (
	SourceModelEvent   = "model_event"
	SourceSampleOutput = "sample_output"
	SourceNone         = "none"
)

// ReplySources are the reply sources in order.
var ReplySources = []string{SourceModelEvent, SourceSampleOutput, SourceNone}

// Reply rules: which completed generation of the model under test a
// sample's reply is. Both read the same calls (model_calls.kind
// model_under_test, call_status completed or failed: placeholders and
// retried attempts are not generations) and fall back the same way to
// sample.output (state.output while scoring) when there is none, unless that
// output is a judge's or another call's.
//   - first: the first such generation after the sample's input, as the
//     pre-registration reads the reply ("the first assistant message after
//     generation"), so that an output a solver overwrote with a judge's text
//     (AIR-Bench's annotate) is never taken for the model's. The study's
//     measures (replies.class and everything computed from it) use it.
//   - final: the last such generation, which is what state.output holds when
//     the scorer runs unless a solver replaced it: the reply the eval's
//     scorer grades on multi-turn and agent tasks. Where a solver calls the
//     model under test itself as a judge (a judge in the solver, profile
//     judge.where: solver, as AIR-Bench), the last generation is that judge
//     call: use first there.
//
// On a sample with one generation the two are the same call.
const (
	ReplyFirst = "first"
	ReplyFinal = "final"
)

// IsGeneration reports whether a model call (its model_calls.kind and
// call_status) is a generation of the model under test: a call both reply
// rules read, one that completed or failed without a retry. Ingest gives
// each one a class (model_calls.class); no other call has one.
func IsGeneration(kind, status string) bool {
	return kind == KindMUT && (status == CallCompleted || status == CallFailed)
}

// ReplyRules are the reply rules: the pre-registered one, then the graded one.
var ReplyRules = []string{ReplyFirst, ReplyFinal}

// ReplyRuleMeanings say what each reply rule picks, as `empties schema
// --format json` exports them for the Python package.
var ReplyRuleMeanings = map[string]string{
	ReplyFirst: "the first completed generation of the model under test (the pre-registered reply)",
	ReplyFinal: "the last completed generation of the model under test (the reply the scorer grades)",
}

// KindReasons (model_calls.kind_reason) say why a call has its kind, in
// the order ingest's callKind tries them.
var KindReasons = []string{"scorer_span", "scorer_step", "grader_role", "other_role", "other_model", "eval_model"}

// MaxTokensSources (replies.max_tokens_source): where a reply's max_tokens
// came from.
var MaxTokensSources = []string{"call", "eval", "unset"}

// SampleIDTypes (replies.sample_id_type): the JSON type of a sample id.
var SampleIDTypes = []string{"int", "str"}

// ValueKinds (scores.value_kind, policy_scores.value_kind): the JSON kind
// of a score value (internal/scorevalue).
var ValueKinds = []string{"str", "int", "float", "bool", "list", "dict", "null"}

// The D2 refusal forms besides the provider refusal classes
// (reply_outcomes.form): an answer the eval's scorer counts as a refusal,
// and no refusal.
const (
	FormText = "text"
	FormNone = "none"
)

// RefusalForms are D2's refusal forms: each provider refusal class, then
// text and none.
var RefusalForms = append(append([]string(nil), classify.ProviderRefusals...), FormText, FormNone)

// Re-run statuses (reruns.status): how a planned or seen re-run paired.
const (
	RerunPaired     = "paired"      // with the default-arm reply it re-runs
	RerunNoOriginal = "no_original" // a re-run without an original reply
	RerunNotRerun   = "not_rerun"   // planned, never re-run
)

// RerunStatuses are the re-run statuses in order.
var RerunStatuses = []string{RerunPaired, RerunNoOriginal, RerunNotRerun}

// The study's arms (log_assignments.arm and the tables rescore and select
// write): the manifest accepts no other in its mapping, and a log's metadata
// or tags naming another is reported by `empties check`.
const (
	ArmDefault = "default" // the runs as the eval configures them
	ArmTight   = "tight"   // the same runs with a tight max_tokens
	ArmWide    = "wide"    // every default-arm truncated_empty reply again with more room (D1(b))
	ArmControl = "control" // default-arm non-answers again at the same settings (transient share)
)

// Arms are the arms in order.
var Arms = []string{ArmDefault, ArmTight, ArmWide, ArmControl}

// The study's parts (log_assignments.part, reply_outcomes.part).
const (
	PartA = "A" // collect replies
	PartB = "B" // judges grading replies the original run never showed them
	PartC = "C" // judges grading non-answer forms (judge tests)
)

// Parts are the parts in order.
var Parts = []string{PartA, PartB, PartC}

// Eval kinds (an eval profile's kind, study_evals.kind).
const (
	EvalRefusal    = "refusal"    // the eval measures refusals (its scorer says when a reply is one)
	EvalCapability = "capability" // the eval measures a capability
)

// EvalKinds are the eval kinds in order.
var EvalKinds = []string{EvalRefusal, EvalCapability}

// Verdicts (decisions.verdict) of a decision rule (met, not met, not enough
// data) and of a hypothesis (supported, against, inconclusive, not enough
// data): internal/decide gives them.
const (
	VerdictMet          = "met"
	VerdictNotMet       = "not met"
	VerdictNoData       = "not enough data" // the rule's inputs are missing: never a verdict
	VerdictSupported    = "supported"
	VerdictAgainst      = "against"
	VerdictInconclusive = "inconclusive"
)

// Verdicts are the verdicts: the rules', then the hypotheses'.
var Verdicts = []string{VerdictMet, VerdictNotMet, VerdictNoData, VerdictSupported, VerdictAgainst, VerdictInconclusive}

// P0 check statuses (p0_check.status).
const (
	P0OK        = "ok"
	P0Mismatch  = "mismatch"
	P0Unchecked = "unchecked"
)

// P0Statuses are the p0_check statuses.
var P0Statuses = []string{P0OK, P0Mismatch, P0Unchecked}

// LogFormats (logs.format) and HeaderSources (logs.header_source) are
// internal/evallog's; LogStatuses (logs.status) and CacheModes
// (model_calls.cache) are inspect_ai's, as internal/evallog reads them from
// its model (EvalLog.status, ModelEvent.cache).
var (
	LogFormats    = []string{evallog.FormatEval, evallog.FormatJSON}
	HeaderSources = []string{evallog.HeaderFromHeader, evallog.HeaderFromJournal, evallog.HeaderFromJSON}
	LogStatuses   = evallog.Statuses()
	CacheModes    = evallog.CacheModes()
)

// Sets are the closed sets by the name a column's vocab tag in schema/
// gives.
func Sets() map[string][]string {
	return map[string][]string{
		"classes":            classify.Classes(),
		"judge_classes":      classify.JudgeClasses(),
		"policies":           Policies,
		"call_kinds":         CallKinds,
		"call_statuses":      CallStatuses,
		"reply_sources":      ReplySources,
		"kind_reasons":       KindReasons,
		"max_tokens_sources": MaxTokensSources,
		"sample_id_types":    SampleIDTypes,
		"value_kinds":        ValueKinds,
		"refusal_forms":      RefusalForms,
		"rerun_statuses":     RerunStatuses,
		"p0_statuses":        P0Statuses,
		"log_formats":        LogFormats,
		"header_sources":     HeaderSources,
		"log_statuses":       LogStatuses,
		"cache_modes":        CacheModes,
		"arms":               Arms,
		"parts":              Parts,
		"eval_kinds":         EvalKinds,
		"judge_wheres":       JudgeWheres,
		"verdicts":           Verdicts,
		"set_statuses":       logset.Statuses,
		"superseded_reasons": logset.Reasons,
	}
}

// Column is a column of schema/ whose every value is one of a closed set.
type Column struct {
	Table  string   `json:"table"`
	Column string   `json:"column"`
	Set    string   `json:"set"` // the set's name (Sets)
	Values []string `json:"values"`
}

// Columns are the columns that hold a value of the vocabulary, in schema/'s
// order (the columns whose field has a vocab tag): `empties schema` names
// each one's set in its doc, and `empties check` verifies that every value
// in the dataset is one of it (Check; NULL is allowed where the column is
// nullable). A tag naming no set panics: TestColumnsAreDeclared.
func Columns() []Column {
	sets := Sets()
	var out []Column
	for _, t := range schema.Tables() {
		for _, c := range t.Columns() {
			if c.Vocab == "" {
				continue
			}
			v, ok := sets[c.Vocab]
			if !ok {
				panic(fmt.Sprintf("vocab: %s.%s names no set %q", t.Name, c.Name, c.Vocab))
			}
			out = append(out, Column{Table: t.Name, Column: c.Name, Set: c.Vocab, Values: v})
		}
	}
	return out
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
	ProviderRefusals  []string    `json:"provider_refusals"` // classes in which the provider signalled a refusal (P3 gives them the refusal outcome without a judge)
	NotReplies        []string    `json:"not_replies"`       // classes that are no reply at all (neither answer nor non-answer)
	JudgeClasses      []string    `json:"judge_classes"`     // judge-reply classes, PaperBench order
	Policies          []string    `json:"policies"`          // policy_scores.policy, in order
	CallKinds         []string    `json:"call_kinds"`        // model_calls.kind
	ReplyRules        []ReplyRule `json:"reply_rules"`       // which generation is the reply: first (pre-registered), final (graded)
	Discovery         Discovery   `json:"discovery"`         // which files of a folder are logs
}

// Discovery is the data of the rules by which ingest lists a folder's logs
// (internal/ingest/discover.go, from internal/logset): the Python package's
// `python -m empties classify` lists folders by the same names.
type Discovery struct {
	EvalSuffix      string   `json:"eval_suffix"`      // a file so named is a log
	JSONSuffix      string   `json:"json_suffix"`      // a file so named is a log if it opens like one
	JSONFirstKeys   []string `json:"json_first_keys"`  // ... an object whose first key is one of these
	JSONHeadBytes   int      `json:"json_head_bytes"`  // ... within its first bytes
	NotLogs         []string `json:"not_logs"`         // .json files inspect_ai writes beside logs, never read
	HiddenPrefix    string   `json:"hidden_prefix"`    // a folder so named is not read
	CompanionSuffix string   `json:"companion_suffix"` // nor one whose name ends so
	DatasetMarker   string   `json:"dataset_marker"`   // nor a folder holding this file (an empties dataset)
}

// ReplyRule is one reply rule and what it picks.
type ReplyRule struct {
	Name    string `json:"name"`
	Meaning string `json:"meaning"`
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
		ProviderRefusals:  classify.ProviderRefusals,
		JudgeClasses:      classify.JudgeClasses(),
		Policies:          Policies,
		CallKinds:         CallKinds,
		Discovery: Discovery{
			EvalSuffix: logset.EvalSuffix, JSONSuffix: logset.JSONSuffix,
			JSONFirstKeys: logset.JSONFirstKeys, JSONHeadBytes: logset.JSONHeadBytes,
			NotLogs:      logset.NotLogs,
			HiddenPrefix: logset.HiddenPrefix, CompanionSuffix: logset.CompanionSuffix,
			DatasetMarker: guard.DatasetMarker,
		},
	}
	for _, r := range ReplyRules {
		v.ReplyRules = append(v.ReplyRules, ReplyRule{Name: r, Meaning: ReplyRuleMeanings[r]})
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
