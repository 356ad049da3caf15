package ingest

import (
	"bytes"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

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

// span is an open span or legacy step.
type span struct {
	parent string
	typ    string
	name   string
	begin  int // legacy step: index of its begin event
}

// modelEvent is a model event with what the first pass found out about it.
type modelEvent struct {
	e      *evallog.CallView
	kind   string
	reason string
	scorer *string
	scope  string // the generation it belongs to: its span, or legacy step
	status string
}

// extract builds the rows of one sample from the decoder's view of it. The
// reply of the model under test is the output of its first completed
// generation (design rule 1), not sample.output, which solvers may
// overwrite; see replyIndex for what is not a generation, and
// replyFromOutput for the fallback to sample.output.
func extract(ctx *logContext, member string, d *evallog.SampleView) (*sampleRows, error) {
	out := &sampleRows{}
	r := &out.Reply
	sampleColumns(r, ctx, member, d)
	calls, t, err := callRows(ctx, d, r)
	if err != nil {
		return nil, err
	}
	out.Calls = calls
	if t.reply < 0 && usableOutput(d.Output, t.otherTexts) {
		replyFromOutput(r, d.Output)
	}
	if r.MaxTokensSource == "unset" && ctx.EvalMaxTokens != nil {
		r.MaxTokens, r.MaxTokensSource = ctx.EvalMaxTokens, "eval"
	}
	classify.Apply(r)
	finalReply(r, out.Calls, t.final)
	out.Scores = scoreRows(ctx.LogID, d)
	return out, nil
}

// sampleColumns sets the reply's columns that come from the sample itself,
// and no reply yet (reply_source none).
func sampleColumns(r *schema.Reply, ctx *logContext, member string, d *evallog.SampleView) {
	*r = schema.Reply{
		LogID: ctx.LogID, EvalID: nonEmpty(ctx.EvalID), Task: ctx.Task, Model: ctx.Model,
		SampleID: d.ID, SampleIDType: d.IDKind, Epoch: d.Epoch, SampleUUID: nonEmpty(d.UUID),
		Member: member, ReplySource: vocab.SourceNone, MaxTokensSource: "unset",
		ToolCallFunctions: []string{},
	}
	r.SampleError = d.Error
	r.SampleLimit = nonEmpty(d.Limit)
	r.StartedAt, r.CompletedAt = parseTime(d.StartedAt), parseTime(d.CompletedAt)
	r.TotalTime, r.WorkingTime = d.TotalTime.Ptr(), d.WorkingTime.Ptr()
	r.SampleMetadata = d.Metadata
	if r.SampleMetadata != nil && *r.SampleMetadata == "{}" {
		r.SampleMetadata = nil
	}
	if d.Output != nil {
		r.FinalCompletion = strPtr(d.Output.Completion)
	}
}

// turns is what the reply takes from a sample's model calls besides the
// columns callRows sets.
type turns struct {
	reply      int      // the reply's index among the model events (replyIndex), or -1
	final      int      // index in the calls of the last generation, or -1
	otherTexts []string // judge and other calls' texts: sample.output must not be one
}

// callRows builds a sample's model_calls rows, one per model event in event
// order, and sets the reply's columns that come from them: the counts of
// calls, generations and failed attempts, and the reply call's output.
func callRows(ctx *logContext, d *evallog.SampleView, r *schema.Reply) ([]schema.ModelCall, turns, error) {
	events := modelEvents(ctx, d)
	t := turns{reply: replyIndex(events), final: -1}
	var calls []schema.ModelCall
	for i := range events {
		me := &events[i]
		if me.e.Err != nil {
			return nil, t, me.e.Err
		}
		call, view := callRow(ctx, d, i, me)
		if vocab.IsGeneration(me.kind, me.status) {
			// Every turn of the model under test, the reply's among them,
			// gets its own class; the last one is the final reply.
			classify.ApplyCall(&call)
			r.Generations++
			if *call.NonAnswer {
				r.NonAnswerGenerations++
			}
			t.final = len(calls)
		}
		switch me.kind {
		case vocab.KindJudge:
			r.JudgeCalls++
			if err := judgeCall(&call, me.e, view); err != nil {
				return nil, t, err
			}
		case vocab.KindMUT:
			r.MUTCalls++
			switch {
			case t.reply < 0 || i < t.reply:
				attemptBeforeReply(r, me, t.reply >= 0)
			case i == t.reply:
				if err := takeReply(r, &call, me.e, view); err != nil {
					return nil, t, err
				}
			}
		}
		if me.kind != vocab.KindMUT && strings.TrimSpace(view.text) != "" {
			t.otherTexts = append(t.otherTexts, view.text)
		}
		calls = append(calls, call)
	}
	return calls, t, nil
}

// callRow is the model_calls row of the i-th model event of a sample, and
// the view of its output.
func callRow(ctx *logContext, d *evallog.SampleView, i int, me *modelEvent) (schema.ModelCall, outputView) {
	e := me.e
	o := e.Output
	call := schema.ModelCall{
		LogID: ctx.LogID, SampleID: d.ID, Epoch: d.Epoch, CallIndex: int64(i),
		Model: e.Model, Role: nonEmpty(e.Role), Kind: me.kind, KindReason: me.reason, Scorer: me.scorer,
		CallStatus:    me.status,
		ToolsOfferedN: int64(e.Tools), Cache: nonEmpty(e.Cache), Timestamp: parseTime(e.Timestamp),
		WorkingTime: e.WorkingTime.Ptr(), CallError: nonEmpty(e.Error),
	}
	cfg := e.Config
	call.MaxTokens = cfg.MaxTokens.Ptr()
	call.Temperature = finite(cfg.Temperature)
	view := viewOutput(o)
	call.StopReason, call.OutputError, call.NChoices = view.stopReason, view.outputError, view.nChoices
	call.Text, call.Refusal, call.ReasoningChars, call.ToolCallCount = view.text, view.refusal, view.reasoningChars, int64(len(view.toolFunctions))
	call.ReasoningPresent = view.reasoning
	if e.HasTools {
		offered := e.Tools > 0
		call.ToolsOffered = &offered
	}
	setUsage(o, &call.InputTokens, &call.OutputTokens, &call.ReasoningTok, &call.CacheReadTok, &call.CacheWriteTok)
	call.InputMessages = int64(e.InputCount)
	return call, view
}

// judgeCall sets a judge's call's prompt and judge class.
func judgeCall(call *schema.ModelCall, e *evallog.CallView, view outputView) error {
	if e.PromptErr != nil {
		return e.PromptErr
	}
	if p := e.Prompt; p != "" {
		call.PromptText = &p
	}
	call.JudgeClass = strPtr(classify.Judge(classify.JudgeInput{
		NChoices: view.nChoices, StopReason: deref(view.stopReason), Refusal: view.refusal, Text: view.text,
	}))
	return nil
}

// attemptBeforeReply counts a call of the model under test before its reply
// (or in a sample with none): a placeholder skipped, or a failed attempt
// retried before the reply, the first one's error kept.
func attemptBeforeReply(r *schema.Reply, me *modelEvent, hasReply bool) {
	if me.status == vocab.CallPlaceholder {
		r.PlaceholdersSkipped++
	}
	if me.status == vocab.CallRetried && hasReply {
		r.FailedAttempts++
		if r.FirstAttemptError == nil {
			r.FirstAttemptError = strPtr(me.e.Error)
		}
	}
}

// takeReply makes call the sample's reply: the reply's columns come from
// its output, and the call keeps its prompt.
func takeReply(r *schema.Reply, call *schema.ModelCall, e *evallog.CallView, view outputView) error {
	call.IsReply = true
	// The prompt the reply answers, so an example shows it.
	if e.PromptErr != nil {
		return e.PromptErr
	}
	if p := e.Prompt; p != "" {
		call.PromptText = &p
	}
	r.ReplySource = vocab.SourceModelEvent
	r.ReplyModel = nonEmpty(e.Model)
	r.CallError = call.CallError
	r.ToolsOffered = call.ToolsOffered
	if cfg := e.Config; cfg.MaxTokens.Valid {
		r.MaxTokens, r.MaxTokensSource = cfg.MaxTokens.Ptr(), "call"
	}
	view.fill(r)
	setUsage(e.Output, &r.InputTokens, &r.OutputTokens, &r.ReasoningTokens, &r.CacheReadTokens, &r.CacheWriteTokens)
	return nil
}

// replyFromOutput makes sample.output the reply. The model under test made
// no call through Inspect's model API that completed (an agent driving an
// outside CLI, a log without events): sample.output is its reply, unless it
// is a judge's (usableOutput). reply_source says so, and tools_offered
// stays unknown.
func replyFromOutput(r *schema.Reply, o *evallog.OutputView) {
	r.ReplySource = vocab.SourceSampleOutput
	r.ReplyModel = nonEmpty(o.Model)
	view := viewOutput(o)
	view.fill(r)
	setUsage(o, &r.InputTokens, &r.OutputTokens, &r.ReasoningTokens, &r.CacheReadTokens, &r.CacheWriteTokens)
}

// scoreRows are a sample's scores rows, one per score, in the log's order;
// nil for none.
func scoreRows(logID string, d *evallog.SampleView) []schema.Score {
	var out []schema.Score
	for _, s := range d.Scores {
		out = append(out, scoreRow(logID, d.ID, d.Epoch, s))
	}
	return out
}

// modelEvents lists a sample's model events in event order with whose call
// each is and its call status.
func modelEvents(ctx *logContext, d *evallog.SampleView) []modelEvent {
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
		kind, reason, scorer := callKind(ctx, e.SpanID, e.Call, tree, steps)
		scope := "span:" + e.SpanID
		if e.SpanID == "" && len(steps) > 0 {
			scope = "step:" + strconv.Itoa(steps[len(steps)-1].begin)
		}
		out = append(out, modelEvent{e: e.Call, kind: kind, reason: reason, scorer: scorer, scope: scope})
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
	case e.Pending:
		return vocab.CallPlaceholder
	case e.Error == "":
		return vocab.CallCompleted
	}
	for j := i + 1; j < len(events); j++ {
		f := events[j]
		if f.e.Pending || f.scope != events[i].scope || f.e.Model != e.Model || f.e.Role != e.Role {
			continue
		}
		if sameInput(f.e, e) {
			return vocab.CallRetried
		}
	}
	return vocab.CallFailed
}

// sameInput reports whether two model events sent the same input: the same
// inline messages, or the same ranges of the message pool.
func sameInput(a, b *evallog.CallView) bool {
	if len(a.InputRefs) != len(b.InputRefs) {
		return false
	}
	for k := range a.InputRefs {
		if !slices.Equal(a.InputRefs[k], b.InputRefs[k]) {
			return false
		}
	}
	return bytes.Equal(a.Input, b.Input)
}

// replyIndex is the index of the reply among events: the first call of the
// model under test that is a generation (completed, or failed without a
// retry: its error then shows in call_error), or -1.
func replyIndex(events []modelEvent) int {
	for i, me := range events {
		if vocab.IsGeneration(me.kind, me.status) {
			return i
		}
	}
	return -1
}

// finalReply sets the final reply's columns of r (vocab.ReplyFinal): the
// last generation, calls[final], classified as the reply is, with the
// sample's error; with no generation (final -1) the reply fell back to
// sample.output or to none, and the final reply is that same reply.
func finalReply(r *schema.Reply, calls []schema.ModelCall, final int) {
	if final < 0 {
		r.FinalClass, r.FinalClassRule, r.FinalNonAnswer = r.Class, r.ClassRule, r.NonAnswer
		return
	}
	c := &calls[final]
	idx := c.CallIndex
	r.FinalCallIndex = &idx
	r.FinalClass, r.FinalClassRule, r.FinalNonAnswer = classify.AsReply(c, r.SampleError)
}

// usableOutput reports whether sample.output can stand for the reply: it
// holds a choice, and it is not a judge's or another model's (its text is
// not the text of one of their calls, as when a scorer or an annotating
// solver overwrote it).
func usableOutput(o *evallog.OutputView, otherTexts []string) bool {
	if o == nil || o.NChoices == 0 {
		return false
	}
	text, completion := o.Text, o.Completion
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
func callKind(ctx *logContext, spanID string, e *evallog.CallView, spans *spanTree, steps []span) (kind, reason string, scorer *string) {
	// The whole ancestry counts, whatever its depth (spanTree).
	if sc := spans.of(spanID); sc.judge {
		return vocab.KindJudge, "scorer_span", sc.scorer
	}
	for j := len(steps) - 1; j >= 0; j-- {
		if steps[j].typ == "scorer" {
			return vocab.KindJudge, "scorer_step", strPtr(steps[j].name)
		}
	}
	switch {
	case vocab.GraderRole(e.Role):
		return vocab.KindJudge, "grader_role", nil
	case e.Role != "":
		return vocab.KindOther, "other_role", nil
	case ctx.Model != "" && e.Model != "" && e.Model != ctx.Model:
		return vocab.KindOther, "other_model", nil
	}
	return vocab.KindMUT, "eval_model", nil
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

func viewOutput(o *evallog.OutputView) outputView {
	var v outputView
	if o == nil {
		return v
	}
	n := int64(o.NChoices)
	v.nChoices = &n
	v.outputError = o.Error
	if o.NChoices == 0 {
		return v
	}
	sr := o.StopReason
	if sr == "length" { // legacy spelling (§1.7)
		sr = "max_tokens"
	}
	if sr == "" {
		sr = "unknown" // the model's default
	}
	v.stopReason = &sr
	v.stopDetails = o.StopDetails
	v.text = o.Text
	v.refusal, v.reasoning, v.redacted = o.Refusal, o.Reasoning, o.Redacted
	for _, t := range o.ReasoningTexts {
		v.reasoningChars += int64(utf8.RuneCountInString(t))
	}
	v.reasoningText = strings.Join(o.ReasoningTexts, "\n")
	v.toolFunctions = o.ToolFunctions
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

func setUsage(o *evallog.OutputView, in, out, reasoning, cacheRead, cacheWrite **int64) {
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
