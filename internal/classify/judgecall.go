package classify

import "empties/schema"

// JudgeCallClass is Judge over a model call's stored fields: how the reply
// of a judge's call reads.
func JudgeCallClass(c *schema.ModelCall) string {
	in := JudgeInput{NChoices: c.NChoices, Refusal: c.Refusal, Text: c.Text}
	if c.StopReason != nil {
		in.StopReason = *c.StopReason
	}
	return Judge(in)
}
