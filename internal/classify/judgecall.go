package classify

import (
	"strings"

	"empties/schema"
)

// JudgeCallClass is Judge over a model call's stored fields: how the reply
// of a judge's call reads.
func JudgeCallClass(c *schema.ModelCall) string {
	in := JudgeInput{NChoices: c.NChoices, Refusal: c.Refusal, Text: c.Text}
	if c.StopReason != nil {
		in.StopReason = *c.StopReason
	}
	return Judge(in)
}

// CallReply is a model call's output as the rules read a reply: the fields
// model_calls stores of it, with that call's own tools offered, and
// sampleError, the sample's error (replies.sample_error), which a sample's
// reply reads and a generation's own class (ApplyCall) does not.
func CallReply(c *schema.ModelCall, sampleError *string) *schema.Reply {
	return &schema.Reply{
		SampleError: sampleError, NChoices: c.NChoices, StopReason: c.StopReason, Refusal: c.Refusal,
		OutputError: c.OutputError, Text: c.Text, TextBlank: strings.TrimSpace(c.Text) == "",
		ToolCallCount: c.ToolCallCount, ReasoningPresent: c.ReasoningPresent, ToolsOffered: c.ToolsOffered,
	}
}

// AsReply is the class, rule and non-answer of a call's output read as the
// sample's reply (CallReply with the sample's error): the final reply's, from
// its last generation (replies.final_class).
func AsReply(c *schema.ModelCall, sampleError *string) (class, rule string, nonAnswer bool) {
	r := CallReply(c, sampleError)
	Apply(r)
	return r.Class, r.ClassRule, r.NonAnswer
}

// ApplyCall sets class, class_rule and non_answer on a model call that is a
// generation of the model under test (vocab.IsGeneration), from its own
// output: the same rules as a reply's, one classifier.
func ApplyCall(c *schema.ModelCall) {
	r := CallReply(c, nil)
	Apply(r)
	c.Class, c.ClassRule, c.NonAnswer = &r.Class, &r.ClassRule, &r.NonAnswer
}
