package classify

import "slices"

// Classes returns the reply classes in the seed's first-match order.
func Classes() []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range Rules {
		if !seen[r.Class] {
			seen[r.Class] = true
			out = append(out, r.Class)
		}
	}
	return out
}

// NonAnswerClasses are the classes NonAnswer counts as non-answers whatever
// the eval offered; tool_only is one only when the eval is known to have
// offered no tools.
func NonAnswerClasses() []string {
	offered := true
	var out []string
	for _, c := range Classes() {
		if NonAnswer(c, &offered) {
			out = append(out, c)
		}
	}
	return out
}

// IsReply reports whether a class is a reply at all: error (the sample
// raised) and no_choices (the output has no choice) are not. A reply that is
// neither a non-answer nor one of these is an answer.
func IsReply(class string) bool { return class != Error && class != NoChoices }

// ProviderRefusals are the classes in which the provider signalled a refusal
// (a content filter, a refusal flag, an error text instead of an answer):
// P3 gives them the eval's refusal outcome and D2 counts each as its own
// refusal form.
var ProviderRefusals = []string{Filtered, RefusalFlag, ErrorText}

// IsProviderRefusal reports whether a class is one of ProviderRefusals.
func IsProviderRefusal(class string) bool { return slices.Contains(ProviderRefusals, class) }

// JudgeClasses are the judge-reply classes in PaperBench's order.
func JudgeClasses() []string {
	return []string{JudgeEmpty, JudgeRefused, JudgeOverflow, JudgeTruncated, JudgeUsable}
}

// Meanings say in a sentence what each class is, for readers of the report
// and of `empties schema --format json`; the rules (Rules, ErrorForms) are
// the definition, these the plain reading of them.
var Meanings = map[string]string{
	Error:          "the sample raised an error: there is no output to read (sample.error)",
	NoChoices:      "the output holds no choice at all (output.empty): nothing came back",
	Filtered:       "the provider's content filter stopped the reply (stop_reason content_filter)",
	RefusalFlag:    "the provider marked a text item of the reply as a refusal (refusal=true)",
	ErrorText:      "the reply is a provider's error, not the model's words: ModelOutput.error is set, or the text is a known provider error form",
	TruncatedEmpty: "no text and no tool call: the reply stopped at the token limit (max_tokens or model_length) before writing any",
	ToolOnly:       "no text, only tool calls: an answer where the eval offered tools, a non-answer where it offered none",
	ReasoningOnly:  "no text and no tool call, only reasoning, and it stopped for another reason than the token limit",
	Silent:         "no text, no tool call, no reasoning: an empty reply",
	TruncatedText:  "text, cut off at max_tokens",
	Answer:         "text: any reply the rules above do not match",
}
