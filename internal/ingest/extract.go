package ingest

import (
	"bytes"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	json "github.com/goccy/go-json"

	"empties/internal/classify"
	"empties/internal/evallog"
	"empties/internal/vocab"
	"empties/schema"
)

// logContext is what sample extraction needs from a log's header.
type logContext struct {
	LogID           string
	EvalID          string
	Task            string
	Model           string
	EvalMaxTokens   *int64
	LegacyScoreName string
	// Modified is the file's modification time when it was found, before
	// it was read (logs.modified): a write during the read leaves a newer
	// time, so the next ingest reads it again.
	Modified *int64
	// ETag is an object's ETag when it was listed (logs.etag); nil for a
	// local file.
	ETag *string
}

// sampleRows are the rows one sample contributes.
type sampleRows struct {
	Reply  schema.Reply
	Scores []schema.Score
	Calls  []schema.ModelCall
}

// size approximates the bytes the rows hold (their text), for the spill
// threshold. A text several rows share (the reply is the reply call's text
// and often the final completion) is counted once.
func (r *sampleRows) size() int64 {
	n := int64(512)
	var last []*byte
	text := func(s string) {
		if len(s) < 4096 {
			n += int64(len(s))
			return
		}
		p := unsafe.StringData(s)
		if slices.Contains(last, p) {
			return
		}
		last = append(last, p)
		n += int64(len(s))
	}
	opt := func(s *string) {
		if s != nil {
			text(*s)
		}
	}
	text(r.Reply.Text)
	text(r.Reply.ReasoningText)
	opt(r.Reply.SampleMetadata)
	opt(r.Reply.FinalCompletion)
	for i := range r.Scores {
		s := &r.Scores[i]
		n += 128
		text(s.ValueJSON)
		opt(s.Answer)
		opt(s.Explanation)
		opt(s.Metadata)
	}
	for i := range r.Calls {
		c := &r.Calls[i]
		n += 256
		text(c.Text)
		opt(c.PromptText)
	}
	return n
}

// Call kinds (model_calls.kind), defined in internal/vocab.
const (
	KindMUT   = vocab.KindMUT
	KindJudge = vocab.KindJudge
	KindOther = vocab.KindOther
)

// graderRole matches model-role names that denote a grader.
var graderRole = regexp.MustCompile(`(?i)grad|judg|scor|critic|evaluat|rater|monitor|classif`)

// span is an open span or legacy step.
type span struct {
	parent string
	typ    string
	name   string
	begin  int // legacy step: index of its begin event
}

// Call statuses (model_calls.call_status).
const (
	StatusCompleted   = "completed"
	StatusPlaceholder = "placeholder"
	StatusRetried     = "retried"
	StatusFailed      = "failed"
)

// Reply sources (replies.reply_source).
const (
	SourceModelEvent   = "model_event"
	SourceSampleOutput = "sample_output"
	SourceNone         = "none"
)

// modelEvent is a model event with what the first pass found out about it.
type modelEvent struct {
	e      *evallog.Event
	kind   string
	reason string
	scorer *string
	scope  string // the generation it belongs to: its span, or legacy step
	status string
}

// extract builds the rows of one sample. The reply of the model under test
// is the output of its first completed generation (design rule 1), not
// sample.output, which solvers may overwrite; see replyIndex for what is not
// a generation, and the end of this function for the fallback to
// sample.output.
func extract(ctx *logContext, member string, d *evallog.DecodedSample) (*sampleRows, error) {
	id, idType := d.IDString()
	out := &sampleRows{}
	r := &out.Reply
	*r = schema.Reply{
		LogID: ctx.LogID, EvalID: ctx.EvalID, Task: ctx.Task, Model: ctx.Model,
		SampleID: id, SampleIDType: idType, Epoch: d.Epoch.V, SampleUUID: d.UUID,
		Member: member, ReplySource: SourceNone, MaxTokensSource: "unset",
		ToolCallFunctions: []string{},
	}
	if d.Error != nil {
		r.SampleError = strPtr(d.Error.Message)
	}
	if d.Limit != nil && d.Limit.Type != "" {
		r.SampleLimit = strPtr(d.Limit.Type)
	}
	r.StartedAt, r.CompletedAt = parseTime(d.StartedAt), parseTime(d.CompletedAt)
	r.TotalTime, r.WorkingTime = d.TotalTime.Ptr(), d.WorkingTime.Ptr()
	r.SampleMetadata = rawJSON(d.Metadata, d.Sanitized)
	if r.SampleMetadata != nil && *r.SampleMetadata == "{}" {
		r.SampleMetadata = nil
	}
	if d.Output.ModelOutput != nil {
		r.FinalCompletion = strPtr(finalCompletion(d, d.Output.ModelOutput))
	}

	events := modelEvents(ctx, d)
	reply := replyIndex(events)
	var otherTexts []string // judge and other calls' texts: sample.output must not be one
	for i := range events {
		me := &events[i]
		e := me.e
		o, err := d.ModelOutput(e)
		if err != nil {
			return nil, err
		}
		call := schema.ModelCall{
			LogID: ctx.LogID, SampleID: id, Epoch: d.Epoch.V, CallIndex: int64(i),
			Model: e.Model, Role: nonEmpty(e.Role), Kind: me.kind, KindReason: me.reason, Scorer: me.scorer,
			CallStatus:    me.status,
			ToolsOfferedN: int64(len(e.Tools)), Cache: nonEmpty(e.Cache), Timestamp: parseTime(e.Timestamp),
			WorkingTime: e.WorkingTime.Ptr(), CallError: nonEmpty(evallog.EventError(e)),
		}
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
		switch me.kind {
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
			switch {
			case reply < 0 || i < reply:
				if me.status == StatusPlaceholder {
					r.PlaceholdersSkipped++
				}
				if me.status == StatusRetried && reply >= 0 {
					r.FailedAttempts++
					if r.FirstAttemptError == nil {
						r.FirstAttemptError = strPtr(evallog.EventError(e))
					}
				}
			case i == reply:
				call.IsReply = true
				// The prompt the reply answers, so an example shows it.
				p, err := d.LastUserText(e)
				if err != nil {
					return nil, err
				}
				if p != "" {
					call.PromptText = &p
				}
				r.ReplySource = SourceModelEvent
				r.ReplyModel = nonEmpty(e.Model)
				r.CallError = call.CallError
				if e.Tools != nil {
					offered := len(e.Tools) > 0
					r.ToolsOffered = &offered
				}
				if cfg.MaxTokens.Valid {
					r.MaxTokens, r.MaxTokensSource = cfg.MaxTokens.Ptr(), "call"
				}
				view.fill(r)
				setUsage(o, &r.InputTokens, &r.OutputTokens, &r.ReasoningTokens, &r.CacheReadTokens, &r.CacheWriteTokens)
			}
		}
		if me.kind != KindMUT && strings.TrimSpace(view.text) != "" {
			otherTexts = append(otherTexts, view.text)
		}
		out.Calls = append(out.Calls, call)
	}
	if reply < 0 && usableOutput(d, d.Output.ModelOutput, otherTexts) {
		// The model under test made no call through Inspect's model API that
		// completed (an agent driving an outside CLI, a log without events):
		// sample.output is its reply, unless it is a judge's. reply_source
		// says so, and tools_offered stays unknown.
		r.ReplySource = SourceSampleOutput
		r.ReplyModel = nonEmpty(d.Output.Model)
		view := viewOutput(d, d.Output.ModelOutput)
		view.fill(r)
		setUsage(d.Output.ModelOutput, &r.InputTokens, &r.OutputTokens, &r.ReasoningTokens, &r.CacheReadTokens, &r.CacheWriteTokens)
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
		out.Scores = append(out.Scores, scoreRow(ctx.LogID, id, d.Epoch.V, name, d.Scores[name], d.Sanitized))
	}
	return out, nil
}

// modelEvents lists a sample's model events in event order with whose call
// each is and its call status.
func modelEvents(ctx *logContext, d *evallog.DecodedSample) []modelEvent {
	// Spans (0.3.94+) are found by id; legacy step events bracket the calls
	// between their begin and end (§4.3).
	spans := map[string]span{}
	for i := range d.Events {
		e := &d.Events[i]
		if e.Event == "span_begin" && e.ID != "" {
			spans[e.ID] = span{parent: e.ParentID, typ: e.Type, name: e.Name}
		}
	}
	tree := newSpanTree(spans)
	var steps []span
	var out []modelEvent
	for i := range d.Events {
		e := &d.Events[i]
		switch e.Event {
		case "step":
			if e.Action == "begin" {
				steps = append(steps, span{typ: e.Type, name: e.Name, begin: i})
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
		kind, reason, scorer := callKind(ctx, e, tree, steps)
		scope := "span:" + e.SpanID
		if e.SpanID == "" && len(steps) > 0 {
			scope = "step:" + strconv.Itoa(steps[len(steps)-1].begin)
		}
		out = append(out, modelEvent{e: e, kind: kind, reason: reason, scorer: scorer, scope: scope})
	}
	for i := range out {
		out[i].status = callStatus(out, i)
	}
	return out
}

// callStatus classifies a model event. inspect_ai (model/_model.py,
// Model._generate) records a model event before each provider attempt, with
// pending set and an empty output, and completes it when the attempt returns
// (output) or raises (error, then pending cleared). Its retry loop (tenacity
// around the inner generate()) records a new event for every attempt, in the
// same span, for the same model and role, with the same input. So:
//   - an event still pending never completed: a placeholder, not a
//     generation (a log written while calls were in flight, or whose
//     pending copy outlived the completed one);
//   - an errored event followed by a call of that same generation (same
//     scope, model, role and input; placeholders aside) was retried;
//   - an errored event with no such follower failed for good;
//   - any other event completed.
func callStatus(events []modelEvent, i int) string {
	e := events[i].e
	switch {
	case bool(e.Pending):
		return StatusPlaceholder
	case evallog.EventError(e) == "":
		return StatusCompleted
	}
	for j := i + 1; j < len(events); j++ {
		f := events[j]
		if f.e.Pending || f.scope != events[i].scope || f.e.Model != e.Model || f.e.Role != e.Role {
			continue
		}
		if sameInput(f.e, e) {
			return StatusRetried
		}
	}
	return StatusFailed
}

// sameInput reports whether two model events sent the same input: the same
// inline messages, or the same ranges of the message pool.
func sameInput(a, b *evallog.Event) bool {
	if len(a.InputRefs) != len(b.InputRefs) {
		return false
	}
	for k := range a.InputRefs {
		if !slices.Equal(a.InputRefs[k], b.InputRefs[k]) {
			return false
		}
	}
	return bytes.Equal(bytes.TrimSpace(a.Input), bytes.TrimSpace(b.Input))
}

// replyIndex is the index of the reply among events: the first call of the
// model under test that is a generation (completed, or failed without a
// retry: its error then shows in call_error), or -1.
func replyIndex(events []modelEvent) int {
	for i, me := range events {
		if me.kind == KindMUT && (me.status == StatusCompleted || me.status == StatusFailed) {
			return i
		}
	}
	return -1
}

// usableOutput reports whether sample.output can stand for the reply: it
// holds a choice, and it is not a judge's or another model's (its text is
// not the text of one of their calls, as when a scorer or an annotating
// solver overwrote it).
func usableOutput(d *evallog.DecodedSample, o *evallog.ModelOutput, otherTexts []string) bool {
	if o == nil || len(o.Choices) == 0 {
		return false
	}
	text, completion := d.Text(&o.Choices[0].Message), finalCompletion(d, o)
	for _, t := range otherTexts {
		if t == text || t == completion {
			return false
		}
	}
	return true
}

// callKind decides whose call a model event is. Span ancestry is the reliable
// signal; role alone is not, since a grader that falls back to the default
// model has no role (design rule 1).
func callKind(ctx *logContext, e *evallog.Event, spans *spanTree, steps []span) (kind, reason string, scorer *string) {
	// The whole ancestry counts, whatever its depth (spanTree).
	if sc := spans.of(e.SpanID); sc.judge {
		return KindJudge, "scorer_span", sc.scorer
	}
	for j := len(steps) - 1; j >= 0; j-- {
		if steps[j].typ == "scorer" {
			return KindJudge, "scorer_step", strPtr(steps[j].name)
		}
	}
	switch {
	case vocab.GraderRole(e.Role):
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
