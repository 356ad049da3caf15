package classify

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

// JudgeClasses are the judge-reply classes in PaperBench's order.
func JudgeClasses() []string {
	return []string{JudgeEmpty, JudgeRefused, JudgeOverflow, JudgeTruncated, JudgeUsable}
}
