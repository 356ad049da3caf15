package ingest

import (
	"math"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	json "github.com/goccy/go-json"

	"empties/internal/evallog"
	"empties/schema"
	"empties/stages/classify"
)

// logContext is what sample extraction needs from a log's header.
type logContext struct {
	LogID           string
	EvalID          string
	Task            string
	Model           string
	EvalMaxTokens   *int64
	LegacyScoreName string
}

// sampleRows are the rows one sample contributes.
type sampleRows struct {
	Reply  schema.Reply
	Scores []schema.Score
	Calls  []schema.ModelCall
}

// size approximates the bytes the rows hold (their text), for the spill
// threshold.
func (r *sampleRows) size() int64 {
	n := int64(len(r.Reply.Text) + len(r.Reply.ReasoningText) + 512)
	if r.Reply.SampleMetadata != nil {
		n += int64(len(*r.Reply.SampleMetadata))
	}
	for i := range r.Scores {
		s := &r.Scores[i]
		n += int64(len(s.ValueJSON) + 128)
		for _, p := range []*string{s.Answer, s.Explanation, s.Metadata} {
			if p != nil {
				n += int64(len(*p))
			}
		}
	}
	for i := range r.Calls {
		c := &r.Calls[i]
		n += int64(len(c.Text) + 256)
		if c.PromptText != nil {
			n += int64(len(*c.PromptText))
		}
	}
	return n
}

// Call kinds and the reasons for them (model_calls.kind, kind_reason).
const (
	KindMUT   = "model_under_test"
	KindJudge = "judge"
	KindOther = "other"
)

// graderRole matches model-role names that denote a grader.
var graderRole = regexp.MustCompile(`(?i)grad|judg|scor|critic|evaluat|rater|monitor|classif`)

// span is an open span or legacy step.
type span struct {
	parent string
	typ    string
	name   string
}

// extract builds the rows of one sample. The reply of the model under test
// is the output of its first model call (design rule 1): not sample.output,
// which solvers may overwrite.
func extract(ctx *logContext, member string, d *evallog.DecodedSample) (*sampleRows, error) {
	id, idType := d.IDString()
	out := &sampleRows{}
	r := &out.Reply
	*r = schema.Reply{
		LogID: ctx.LogID, EvalID: ctx.EvalID, Task: ctx.Task, Model: ctx.Model,
		SampleID: id, SampleIDType: idType, Epoch: int64(d.Epoch), SampleUUID: d.UUID,
		Member: member, ReplySource: "none", MaxTokensSource: "unset",
		ToolCallFunctions: []string{},
	}
	if d.Error != nil {
		r.SampleError = strPtr(d.Error.Message)
	}
	if d.Limit != nil && d.Limit.Type != "" {
		r.SampleLimit = strPtr(d.Limit.Type)
	}
	r.SampleMetadata = rawJSON(d.Metadata, d.Sanitized)
	if r.SampleMetadata != nil && *r.SampleMetadata == "{}" {
		r.SampleMetadata = nil
	}
	if d.Output != nil {
		r.FinalCompletion = strPtr(finalCompletion(d, d.Output))
	}

	// Spans (0.3.94+) are found by id; legacy step events bracket the calls
	// between their begin and end (§4.3).
	spans := map[string]span{}
	for i := range d.Events {
		e := &d.Events[i]
		if e.Event == "span_begin" && e.ID != "" {
			spans[e.ID] = span{parent: e.ParentID, typ: e.Type, name: e.Name}
		}
	}
	var steps []span
	var replyDone bool
	callIndex := int64(0)
	for i := range d.Events {
		e := &d.Events[i]
		switch e.Event {
		case "step":
			if e.Action == "begin" {
				steps = append(steps, span{typ: e.Type, name: e.Name})
			} else if e.Action == "end" {
				for j := len(steps) - 1; j >= 0; j-- {
					if steps[j].name == e.Name && steps[j].typ == e.Type {
						steps = steps[:j]
						break
					}
				}
			}
			continue
		case "model":
		default:
			continue
		}
		o, err := d.ModelOutput(e)
		if err != nil {
			return nil, err
		}
		kind, reason, scorer := callKind(ctx, e, spans, steps)
		call := schema.ModelCall{
			LogID: ctx.LogID, SampleID: id, Epoch: int64(d.Epoch), CallIndex: callIndex,
			Model: e.Model, Role: nonEmpty(e.Role), Kind: kind, KindReason: reason, Scorer: scorer,
			ToolsOffered: int64(len(e.Tools)), Cache: nonEmpty(e.Cache), Timestamp: nonEmpty(e.Timestamp),
			WorkingTime: e.WorkingTime.Ptr(), CallError: nonEmpty(evallog.EventError(e)),
		}
		callIndex++
		cfg := evallog.ParseGenerateConfig(e.Config)
		call.MaxTokens = cfg.MaxTokens.Ptr()
		call.Temperature = finite(cfg.Temperature)
		view := viewOutput(d, o)
		call.StopReason, call.OutputError, call.NChoices = view.stopReason, view.outputError, view.nChoices
		call.Text, call.Refusal, call.ReasoningChars, call.ToolCallCount = view.text, view.refusal, view.reasoningChars, int64(len(view.toolFunctions))
		setUsage(o, &call.InputTokens, &call.OutputTokens, &call.ReasoningTok, &call.CacheReadTok, &call.CacheWriteTok)

		nIn, err := d.InputCount(e)
		if err != nil {
			return nil, err
		}
		call.InputMessages = int64(nIn)
		switch kind {
		case KindJudge:
			r.JudgeCalls++
			p, err := d.LastUserText(e)
			if err != nil {
				return nil, err
			}
			if p != "" {
				call.PromptText = &p
			}
			call.JudgeClass = strPtr(classify.Judge(classify.JudgeInput{
				NChoices: view.nChoices, StopReason: deref(view.stopReason), Refusal: view.refusal, Text: view.text,
			}))
		case KindMUT:
			r.MUTCalls++
			if !replyDone {
				replyDone = true
				call.IsReply = true
				r.ReplySource = "model_event"
				r.ReplyModel = nonEmpty(e.Model)
				r.CallError = call.CallError
				r.ToolsOffered = len(e.Tools) > 0
				if cfg.MaxTokens.Valid {
					r.MaxTokens, r.MaxTokensSource = cfg.MaxTokens.Ptr(), "call"
				}
				view.fill(r)
				setUsage(o, &r.InputTokens, &r.OutputTokens, &r.ReasoningTokens, &r.CacheReadTokens, &r.CacheWriteTokens)
			}
		}
		out.Calls = append(out.Calls, call)
	}
	if !replyDone && d.Output != nil && len(d.Events) == 0 {
		// Logs without events (event logging off, or hand-made logs): the
		// final output is all there is. reply_source says so.
		r.ReplySource = "sample_output"
		view := viewOutput(d, d.Output)
		view.fill(r)
		setUsage(d.Output, &r.InputTokens, &r.OutputTokens, &r.ReasoningTokens, &r.CacheReadTokens, &r.CacheWriteTokens)
	}
	if r.MaxTokensSource == "unset" && ctx.EvalMaxTokens != nil {
		r.MaxTokens, r.MaxTokensSource = ctx.EvalMaxTokens, "eval"
	}
	classify.Apply(r)

	names := make([]string, 0, len(d.Scores))
	for name := range d.Scores {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		out.Scores = append(out.Scores, scoreRow(ctx.LogID, id, int64(d.Epoch), name, d.Scores[name], d.Sanitized))
	}
	return out, nil
}

// callKind decides whose call a model event is. Span ancestry is the reliable
// signal; role alone is not, since a grader that falls back to the default
// model has no role (design rule 1).
func callKind(ctx *logContext, e *evallog.Event, spans map[string]span, steps []span) (kind, reason string, scorer *string) {
	seen := 0
	for id := e.SpanID; id != "" && seen < 1000; seen++ {
		s, ok := spans[id]
		if !ok {
			break
		}
		if s.typ == "scorer" || s.typ == "scorers" {
			if scorer == nil && s.typ == "scorer" {
				scorer = strPtr(s.name)
			}
			kind, reason = KindJudge, "scorer_span"
		}
		id = s.parent
	}
	if kind != "" {
		return kind, reason, scorer
	}
	for j := len(steps) - 1; j >= 0; j-- {
		if steps[j].typ == "scorer" {
			return KindJudge, "scorer_step", strPtr(steps[j].name)
		}
	}
	switch {
	case e.Role != "" && graderRole.MatchString(e.Role):
		return KindJudge, "grader_role", nil
	case e.Role != "":
		return KindOther, "other_role", nil
	case ctx.Model != "" && e.Model != "" && e.Model != ctx.Model:
		return KindOther, "other_model", nil
	}
	return KindMUT, "eval_model", nil
}

// outputView is what the tables take from one ModelOutput.
type outputView struct {
	stopReason, outputError      *string
	stopDetails                  *evallog.StopDetails
	nChoices                     *int64
	text, reasoningText          string
	refusal, reasoning, redacted bool
	reasoningChars               int64
	toolFunctions                []string
}

func viewOutput(d *evallog.DecodedSample, o *evallog.ModelOutput) outputView {
	var v outputView
	if o == nil {
		return v
	}
	n := int64(len(o.Choices))
	v.nChoices = &n
	if o.Error != nil {
		v.outputError = strPtr(*o.Error)
	}
	if len(o.Choices) == 0 {
		return v
	}
	c := &o.Choices[0]
	sr := c.StopReason
	if sr == "length" { // legacy spelling (§1.7)
		sr = "max_tokens"
	}
	if sr == "" {
		sr = "unknown" // the model's default
	}
	v.stopReason = &sr
	v.stopDetails = c.StopDetails
	v.text = d.Text(&c.Message)
	var reasoning []string
	for _, it := range c.Message.Content {
		switch it.Type {
		case "text":
			if it.Refusal != nil && *it.Refusal {
				v.refusal = true
			}
		case "reasoning":
			v.reasoning = true
			readable := d.Resolve(it.Reasoning)
			if it.Redacted {
				v.redacted = true
				readable = d.Resolve(it.Summary)
			}
			if readable != "" {
				reasoning = append(reasoning, readable)
				v.reasoningChars += int64(utf8.RuneCountInString(readable))
			}
		}
	}
	v.reasoningText = strings.Join(reasoning, "\n")
	v.toolFunctions = make([]string, 0, len(c.Message.ToolCalls))
	for _, tc := range c.Message.ToolCalls {
		v.toolFunctions = append(v.toolFunctions, tc.Function)
	}
	return v
}

func (v outputView) fill(r *schema.Reply) {
	r.StopReason, r.OutputError, r.NChoices = v.stopReason, v.outputError, v.nChoices
	if sd := v.stopDetails; sd != nil {
		r.StopDetailsType, r.StopDetailsCat, r.StopDetailsExpl = nonEmpty(sd.Type), nonEmpty(sd.Category), nonEmpty(sd.Explanation)
	}
	r.Text = v.text
	r.TextChars = int64(utf8.RuneCountInString(v.text))
	r.TextBlank = strings.TrimSpace(v.text) == ""
	r.Refusal = v.refusal
	r.ReasoningPresent, r.ReasoningChars, r.ReasoningRedacted, r.ReasoningText = v.reasoning, v.reasoningChars, v.redacted, v.reasoningText
	r.ToolCallCount = int64(len(v.toolFunctions))
	r.ToolCallFunctions = v.toolFunctions
}

func finalCompletion(d *evallog.DecodedSample, o *evallog.ModelOutput) string {
	if o.Completion != "" {
		return d.Resolve(o.Completion)
	}
	if len(o.Choices) > 0 {
		return d.Text(&o.Choices[0].Message)
	}
	return ""
}

func setUsage(o *evallog.ModelOutput, in, out, reasoning, cacheRead, cacheWrite **int64) {
	if o == nil || o.Usage == nil {
		return
	}
	u := o.Usage
	*in, *out, *reasoning = u.InputTokens.Ptr(), u.OutputTokens.Ptr(), u.ReasoningTokens.Ptr()
	*cacheRead, *cacheWrite = u.CacheReadTokens.Ptr(), u.CacheWriteTokens.Ptr()
}

func finite(f evallog.Float) *float64 {
	if !f.Valid || math.IsNaN(f.V) || math.IsInf(f.V, 0) {
		return nil
	}
	return f.Ptr()
}

func strPtr(s string) *string { return &s }

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// rawJSON returns a raw value as text with NaN literals restored, or nil.
func rawJSON(raw json.RawMessage, sanitized bool) *string {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if sanitized {
		raw = evallog.RestoreNonFinite(raw)
	}
	s := string(raw)
	return &s
}
