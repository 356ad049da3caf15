// Package classify assigns every reply of the model under test one class of
// the pre-registration (../shared/seeds/001_0adac3f63e5d765b.txt, "Reply
// classes"), first match wins, and every judge call one class of PaperBench's
// _classify_reply. It reads only columns of the replies and model_calls
// tables, so classes can be recomputed without re-reading the logs.
package classify

import (
	"regexp"
	"strings"

	"empties/schema"
)

// Version of the rules; it is part of every class_rule value, so a change to
// a rule shows in the data. Bump it whenever a rule or an error form changes.
const Version = "v1"

// Classes in the seed's first-match order.
const (
	Error          = "error"
	NoChoices      = "no_choices"
	Filtered       = "filtered"
	RefusalFlag    = "refusal_flag"
	ErrorText      = "error_text"
	TruncatedEmpty = "truncated_empty"
	ToolOnly       = "tool_only"
	ReasoningOnly  = "reasoning_only"
	Silent         = "silent"
	TruncatedText  = "truncated_text"
	Answer         = "answer"
)

// Rule is one line of the seed's class table.
type Rule struct {
	ID    string // class_rule without the version
	Class string
	Seed  string // the seed's wording, to check the code against line by line
	Match func(r *schema.Reply) bool
}

// Rules is the seed's table, in order. "No text" means the text content is
// empty or whitespace only, the same test inspect_evals applies
// (completion.strip() == "").
var Rules = []Rule{
	{"error", Error, "the sample raised an error; no output",
		func(r *schema.Reply) bool { return r.SampleError != nil }},
	{"no_choices", NoChoices, "output.empty (no choices at all)",
		func(r *schema.Reply) bool { return r.NChoices == nil || *r.NChoices == 0 }},
	{"filtered", Filtered, `stop_reason == "content_filter"`,
		func(r *schema.Reply) bool { return stop(r) == "content_filter" }},
	{"refusal_flag", RefusalFlag, "any text content has refusal=True",
		func(r *schema.Reply) bool { return r.Refusal }},
	{"error_text.output_error", ErrorText, "ModelOutput.error is set",
		func(r *schema.Reply) bool { return r.OutputError != nil && *r.OutputError != "" }},
	// error_text.form.<name> rules are generated from ErrorForms, here.
	{"truncated_empty", TruncatedEmpty, "no text, no tool calls, stop_reason is max_tokens or model_length",
		func(r *schema.Reply) bool {
			return r.TextBlank && r.ToolCallCount == 0 && (stop(r) == "max_tokens" || stop(r) == "model_length")
		}},
	{"tool_only", ToolOnly, "no text, at least one tool call",
		func(r *schema.Reply) bool { return r.TextBlank && r.ToolCallCount > 0 }},
	{"reasoning_only", ReasoningOnly, "no text, some reasoning content, any other stop reason",
		func(r *schema.Reply) bool { return r.TextBlank && r.ReasoningPresent }},
	{"silent", Silent, "no text, no tool calls, no reasoning",
		func(r *schema.Reply) bool { return r.TextBlank }},
	{"truncated_text", TruncatedText, "text present, stop_reason is max_tokens",
		func(r *schema.Reply) bool { return stop(r) == "max_tokens" }},
	{"answer", Answer, "anything else",
		func(r *schema.Reply) bool { return true }},
}

// ErrorForm is a provider error text that a model cannot plausibly write
// itself; a reply whose text matches one is error_text.
type ErrorForm struct {
	Name     string
	Provider string
	Source   string // where the adapter produces it (inspect_ai 0.3.285)
	// Patterns: the text matches the form when any matches. Each is either
	// anchored at the start or a plain literal, so a long reply is not
	// scanned with backtracking.
	Patterns []*regexp.Regexp
}

// Matches reports whether text is this form.
func (f ErrorForm) Matches(text string) bool {
	for _, p := range f.Patterns {
		if p.MatchString(text) {
			return true
		}
	}
	return false
}

func res(patterns ...string) []*regexp.Regexp {
	out := make([]*regexp.Regexp, len(patterns))
	for i, p := range patterns {
		out[i] = regexp.MustCompile(p)
	}
	return out
}

// ErrorForms is the data behind the error_text rule. Anthropic's canned
// apology ("Sorry, but I am unable to help with that request.") is not here
// on purpose: a model can write that sentence itself, and the adapter sets
// ModelOutput.error whenever it produces it, so the output_error rule catches
// every real case.
var ErrorForms = []ErrorForm{
	{"openai_policy_error", "openai",
		"model/_openai.py openai_refusal_model_output: content = the 400 error body's message (codes invalid_prompt, content_policy_violation, content_filter, bio_policy, cyber_policy); testdata/classify/README.md",
		res(`(?is)^\s*(invalid prompt: (your prompt was flagged as potentially violating our usage polic|we've limited access to this content for safety reasons)|your request was rejected as a result of our safety system|the response was filtered due to the prompt triggering azure openai's content management policy)`)},
	{"openai_context_length", "openai",
		"model/_openai.py openai_refusal_model_output: code context_length_exceeded gives model_length with the API message as content and no error field",
		res(`^\s*This model's maximum context length is \d+ tokens\.`)},
	{"gemini_blocked", "google",
		`model/_providers/google.py prompt_feedback_to_content: "BLOCKED: {block_reason}" (str() of google-genai's BlockedReason: "BLOCKED: BlockedReason.PROHIBITED_CONTENT"), then the block message and safety ratings`,
		res(`^\s*BLOCKED: (BlockedReason\.)?[A-Z_]+\s*(\n|$)`)},
	{"gemini_no_content", "google",
		`model/_providers/google.py completion_choices_from_candidates: no candidates and no prompt feedback gives NO_CONTENT "(no content)" with stop_reason stop`,
		res(`^\s*\(no content\)\s*$`)},
	{"grok_safety_check", "grok",
		`model/_providers/grok.py _handle_grpc_permission_denied: the gRPC details become the content ("Content violates usage guidelines. ... Failed check: SAFETY_CHECK_TYPE_BIO")`,
		res(`^\s*Content violates usage guidelines\.`, `Failed check: SAFETY_CHECK_TYPE_`)},
}

// ordered is Rules with one error_text.form rule per ErrorForm inserted after
// the output_error rule.
var ordered = func() []Rule {
	var out []Rule
	for _, r := range Rules {
		out = append(out, r)
		if r.ID == "error_text.output_error" {
			for _, f := range ErrorForms {
				f := f
				out = append(out, Rule{
					ID: "error_text.form." + f.Name, Class: ErrorText,
					Seed:  "the text matches a provider error form (" + f.Provider + ")",
					Match: func(r *schema.Reply) bool { return f.Matches(r.Text) },
				})
			}
		}
	}
	return out
}()

// OrderedRules returns every rule in evaluation order, error forms expanded.
func OrderedRules() []Rule { return append([]Rule(nil), ordered...) }

func stop(r *schema.Reply) string {
	if r.StopReason == nil {
		return ""
	}
	return *r.StopReason
}

// Classify returns the class and the rule id (with version) of a reply.
func Classify(r *schema.Reply) (class, rule string) {
	for _, rule := range ordered {
		if rule.Match(r) {
			return rule.Class, rule.ID + "@" + Version
		}
	}
	panic("classify: the answer rule matches everything")
}

// NonAnswer reports whether a class is a non-answer: filtered to silent,
// except tool_only when the eval offered tools, where the tool call is the
// answer. error and no_choices are not replies at all, and truncated_text and
// answer carry text.
//
// toolsOffered is nil when the log does not show whether tools were offered
// (a reply taken from sample.output has no event with a tools list). A
// tool_only reply is then read as offered: a provider returns tool calls only
// for tools in the request, so the call itself shows that tools were there.
// Only a shown false (an event whose tools list is empty, e.g. mockllm
// replaying a tool call) makes tool_only a non-answer.
func NonAnswer(class string, toolsOffered *bool) bool {
	switch class {
	case Filtered, RefusalFlag, ErrorText, TruncatedEmpty, ReasoningOnly, Silent:
		return true
	case ToolOnly:
		return toolsOffered != nil && !*toolsOffered
	}
	return false
}

// Apply sets class, class_rule and non_answer on a reply row.
func Apply(r *schema.Reply) {
	r.Class, r.ClassRule = Classify(r)
	r.NonAnswer = NonAnswer(r.Class, r.ToolsOffered)
}

// Judge classes, PaperBench _classify_reply order.
const (
	JudgeEmpty     = "empty"
	JudgeRefused   = "refused"
	JudgeOverflow  = "overflow"
	JudgeTruncated = "truncated"
	JudgeUsable    = "usable"
)

// JudgeInput is what the judge classification reads from a model call.
type JudgeInput struct {
	NChoices   *int64
	StopReason string
	Refusal    bool
	Text       string
}

// Judge classifies a judge's reply in PaperBench's order: no choices →
// empty; content_filter or a refusal block → refused; model_length →
// overflow; whitespace-only text → empty; max_tokens → truncated; otherwise
// usable. An empty reply cut at max_tokens is therefore "empty".
func Judge(in JudgeInput) string {
	switch {
	case in.NChoices == nil || *in.NChoices == 0:
		return JudgeEmpty
	case in.StopReason == "content_filter" || in.Refusal:
		return JudgeRefused
	case in.StopReason == "model_length":
		return JudgeOverflow
	case strings.TrimSpace(in.Text) == "":
		return JudgeEmpty
	case in.StopReason == "max_tokens":
		return JudgeTruncated
	}
	return JudgeUsable
}
