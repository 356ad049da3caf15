package evallog

import (
	"bytes"
	"fmt"
	"sort"

	json "github.com/goccy/go-json"
)

// SampleView is what the tables keep of one sample, in one typed value:
// the decoder builds it (finish, after the sample's shape is checked) in one
// pass over the decoded sample, with every attachment ref resolved, every
// model event's output decoded and its input counted, and ingest reads it
// without calling back into the decoded sample. Its slices are its own (a
// reused DecodedSample builds a new view), so rows may keep them; its raw
// values (CallView.Input and RawOutput, ScoreView.Value) are sub-slices of
// the sample until Release.
type SampleView struct {
	ID, IDKind string // see DecodedSample.IDString
	Epoch      int64
	UUID       string
	// Error is sample.error's message, nil without an error; Limit is
	// sample.limit's type, "" without a limit.
	Error *string
	Limit string
	// Timing, as logged (the times are not parsed).
	StartedAt, CompletedAt string
	TotalTime, WorkingTime Float
	// Metadata is sample.metadata as raw JSON text with NaN literals
	// restored, nil when absent or null.
	Metadata *string
	// Output is sample.output, nil when the sample has none.
	Output *OutputView
	// Events are the events the tables read (span_begin, step and model),
	// in log order.
	Events []EventView
	// Scores are the sample's scores by scorer name, in name order.
	Scores []ScoreView
}

// EventView is one span_begin, step or model event.
type EventView struct {
	Event                    string // "span_begin", "step" or "model"
	SpanID                   string // the span the event belongs to
	ID, ParentID, Type, Name string // span_begin (and step: Type, Name)
	Action                   string // step: "begin" or "end"
	Call                     *CallView
}

// CallView is what the tables keep of a model event.
type CallView struct {
	Model, Role, Cache, Timestamp string
	Pending                       bool
	// Tools is the number of tools offered; HasTools is false when the event
	// has no tools list (nothing shows whether tools were offered).
	Tools       int
	HasTools    bool
	WorkingTime Float
	// Error is the call's error message, "" when it succeeded.
	Error  string
	Config GenerateConfig
	// InputRefs and Input are the event's input as logged (ranges of the
	// message pool, or the inline list with its spaces trimmed): two calls
	// sent the same input when both are equal.
	InputRefs [][]int
	Input     json.RawMessage
	// InputCount is the number of input messages.
	InputCount int
	// Prompt is the text of the last user message of the input.
	Prompt string
	Output *OutputView
	// RawOutput is the event's output as logged, for a reader that shows it
	// whole (empties serve's sample page); no table reads it.
	RawOutput json.RawMessage
	// Err is why the output could not be decoded or the input counted
	// (which fails the sample); PromptErr why the prompt could not be read
	// (which fails it only where a table keeps the prompt).
	Err, PromptErr error
}

// OutputView is what the tables keep of a ModelOutput: its first choice,
// with attachment refs resolved.
type OutputView struct {
	Model    string
	NChoices int
	Error    *string
	Usage    *Usage
	// The first choice's (zero when there is none).
	StopReason  string // as logged
	StopDetails *StopDetails
	Text        string // message.text
	// Completion is output.completion, or the first choice's text when the
	// log leaves it empty: sample.output's only (a call's is "", as no
	// table keeps it, and resolving it would decode its attachment).
	Completion string
	// Refusal: a text item is flagged as a refusal. Reasoning: the message
	// holds a reasoning item; Redacted: one is redacted. ReasoningTexts are
	// the readable reasoning items (a redacted item's summary), empty ones
	// left out.
	Refusal, Reasoning, Redacted bool
	ReasoningTexts               []string
	ToolFunctions                []string // the tool calls' functions, non-nil with a choice
}

// ScoreView is one scorer's score.
type ScoreView struct {
	Name string
	// Value is the raw value, trimmed, NaN literals restored, "null" when
	// absent.
	Value json.RawMessage
	// Reason, Answer and Explanation are the decoded strings (a value that
	// is not a string as raw text), nil when absent or null.
	Reason, Answer, Explanation *string
	// Metadata is raw JSON text with NaN literals restored, nil when absent
	// or null.
	Metadata *string
}

// View is the view finish built of the sample.
func (d *DecodedSample) View() *SampleView { return d.view }

// buildView builds d.view from the decoded, checked sample.
func (d *DecodedSample) buildView() {
	v := &SampleView{
		ID: d.id, IDKind: d.idKind, Epoch: d.Epoch.V, UUID: d.UUID,
		StartedAt: d.StartedAt, CompletedAt: d.CompletedAt,
		TotalTime: d.TotalTime, WorkingTime: d.WorkingTime,
		Metadata: d.rawText(d.Metadata),
	}
	if d.Error != nil {
		msg := d.Error.Message
		v.Error = &msg
	}
	if d.Limit != nil {
		v.Limit = d.Limit.Type
	}
	if d.Output.ModelOutput != nil {
		v.Output = d.outputView(d.Output.ModelOutput, true)
	}
	var prompts promptMemo
	kept, calls := 0, 0
	for i := range d.Events {
		switch d.Events[i].Event {
		case "model":
			calls++
			fallthrough
		case "span_begin", "step":
			kept++
		}
	}
	if kept > 0 {
		// one allocation for the events and one for their calls
		v.Events = make([]EventView, 0, kept)
	}
	callViews := make([]CallView, calls)
	for i := range d.Events {
		e := &d.Events[i]
		switch e.Event {
		case "span_begin", "step", "model":
		default:
			continue
		}
		ev := EventView{Event: e.Event, SpanID: e.SpanID, ID: e.ID, ParentID: e.ParentID, Type: e.Type, Name: e.Name, Action: e.Action}
		if e.Event == "model" {
			ev.Call = &callViews[0]
			callViews = callViews[1:]
			d.callView(ev.Call, e, &prompts)
		}
		v.Events = append(v.Events, ev)
	}
	if len(d.Scores) > 0 {
		v.Scores = make([]ScoreView, 0, len(d.Scores))
	}
	names := make([]string, 0, len(d.Scores))
	for name := range d.Scores {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		s := d.Scores[name]
		value := bytes.TrimSpace(s.Value)
		if len(value) == 0 {
			value = json.RawMessage("null")
		}
		v.Scores = append(v.Scores, ScoreView{
			Name: name, Value: value,
			Reason: jsonString(s.Reason), Answer: jsonString(s.Answer), Explanation: jsonString(s.Explanation),
			Metadata: d.rawText(s.Metadata),
		})
	}
	d.view = v
}

// callView fills c, the view of a model event.
func (d *DecodedSample) callView(c *CallView, e *Event, prompts *promptMemo) {
	*c = CallView{
		Model: e.Model, Role: e.Role, Cache: e.Cache, Timestamp: e.Timestamp,
		Pending: bool(e.Pending), Tools: len(e.Tools), HasTools: e.Tools != nil,
		WorkingTime: e.WorkingTime, Error: EventError(e), Config: ParseGenerateConfig(e.Config),
		InputRefs: e.InputRefs, Input: bytes.TrimSpace(e.Input), RawOutput: e.Output,
	}
	o, err := d.ModelOutput(e)
	if err != nil {
		c.Err = err
		return
	}
	if o != nil {
		c.Output = d.outputView(o, false)
	}
	if c.InputCount, c.Err = d.InputCount(e); c.Err != nil {
		return
	}
	c.Prompt, c.PromptErr = d.lastUserText(e, prompts)
}

// outputView is the view of a ModelOutput, with its Completion or not.
func (d *DecodedSample) outputView(o *ModelOutput, completion bool) *OutputView {
	v := &OutputView{Model: o.Model, NChoices: len(o.Choices), Usage: o.Usage}
	if o.Error != nil {
		msg := *o.Error
		v.Error = &msg
	}
	if len(o.Choices) > 0 {
		c := &o.Choices[0]
		v.StopReason, v.StopDetails = c.StopReason, c.StopDetails
		v.Text = d.Text(&c.Message)
		for _, it := range c.Message.Content {
			switch it.Type {
			case "text":
				if it.Refusal != nil && *it.Refusal {
					v.Refusal = true
				}
			case "reasoning":
				v.Reasoning = true
				readable := d.Resolve(it.Reasoning)
				if it.Redacted {
					v.Redacted = true
					readable = d.Resolve(it.Summary)
				}
				if readable != "" {
					v.ReasoningTexts = append(v.ReasoningTexts, readable)
				}
			}
		}
		v.ToolFunctions = make([]string, 0, len(c.Message.ToolCalls))
		for _, tc := range c.Message.ToolCalls {
			v.ToolFunctions = append(v.ToolFunctions, tc.Function)
		}
	}
	switch {
	case !completion:
	case o.Completion != "":
		v.Completion = d.Resolve(o.Completion)
	case len(o.Choices) > 0:
		v.Completion = v.Text
	}
	return v
}

// promptMemo holds, for a sample's message pool, each message decoded so
// far by lastUserText: the calls of a sample share the pool, so each of its
// messages is decoded at most once however many calls' inputs hold it.
type promptMemo struct {
	done []bool
	user []bool
	text []string
	err  []error
}

// poolMessage decodes pool message p: whether it is a user's, and its text
// if so.
func (m *promptMemo) poolMessage(d *DecodedSample, p int) (user bool, text string, err error) {
	if m.done == nil {
		n := len(d.messages)
		m.done, m.user, m.text, m.err = make([]bool, n), make([]bool, n), make([]string, n), make([]error, n)
	}
	if !m.done[p] {
		m.done[p] = true
		m.user[p], m.text[p], m.err[p] = d.userText(d.messages[p])
	}
	return m.user[p], m.text[p], m.err[p]
}

// userText decodes one raw input message: whether it is a user's, and its
// text if so. Its role is read, and only a user's content decoded.
func (d *DecodedSample) userText(raw json.RawMessage) (user bool, text string, err error) {
	var role string
	var content span
	raw, err = d.walkRaw(raw, func(w *walk, i int) (int, bool) {
		role, content = "", span{}
		return w.messageRole(i, &role, &content)
	})
	if err != nil {
		return false, "", fmt.Errorf("model event input message: %w", err)
	}
	if role != "user" {
		return false, "", nil
	}
	if content.end == 0 {
		return true, "", nil
	}
	var m Message
	w := &walk{b: raw, canonical: true} // checked: the content's keys were taken
	if _, ok := w.contents(content.start, &m.Content); !ok {
		return false, "", fmt.Errorf("model event input message: %w", w.error())
	}
	return true, d.Text(&m), nil
}

// messageRole reads the role of the raw message at b[i] and where its
// content lies (a zero span if it has none), checking the rest as the
// decoder would decode it (the content's items, the tool calls), but making
// none of its strings. A null message has neither.
func (w *walk) messageRole(i int, role *string, content *span) (int, bool) {
	if w.isNullAt(i) {
		return i + 4, true
	}
	return w.members(i, func(w *walk, k []byte, vs int) (int, bool) {
		switch string(k) {
		case "role":
			return w.stringValue(vs, role)
		case "content":
			var c Contents
			w.checkOnly = true
			end, ok := w.contents(vs, &c)
			w.checkOnly = false
			*content = span{vs, end}
			return end, ok
		case "tool_calls":
			var calls []ToolCall
			w.checkOnly = true
			end, ok := w.toolCalls(vs, &calls)
			w.checkOnly = false
			return end, ok
		}
		return w.skipField(vs)
	})
}

// lastUserText is LastUserText, with the pool's messages decoded once for
// all of a sample's calls.
func (d *DecodedSample) lastUserText(e *Event, memo *promptMemo) (string, error) {
	if len(e.InputRefs) == 0 {
		return d.LastUserText(e)
	}
	for _, r := range e.InputRefs {
		if len(r) != 2 {
			return "", fmt.Errorf("input_refs: malformed range %v", r)
		}
	}
	for k := len(e.InputRefs) - 1; k >= 0; k-- {
		r := e.InputRefs[k]
		lo, hi := max(r[0], 0), min(r[1], len(d.messages))
		for p := hi - 1; p >= lo; p-- {
			user, text, err := memo.poolMessage(d, p)
			if err != nil {
				return "", err
			}
			if user {
				return text, nil
			}
		}
	}
	return "", nil
}

// rawText is a raw value as text (NaN literals as the log holds them), or
// nil when absent or null.
func (d *DecodedSample) rawText(raw json.RawMessage) *string {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	s := string(raw)
	return &s
}

// jsonString decodes an optional JSON string field; a value that is not a
// string is kept as raw text.
func jsonString(raw json.RawMessage) *string {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	s, err := DecodeString(raw)
	if err != nil {
		t := string(raw)
		return &t
	}
	return &s
}

// InputRaws returns a model call's input messages as raw JSON, each whole
// (input_refs ranges of the message pool expanded as InputMessages expands
// them), for a reader that shows a message with every field: empties
// serve's sample page. No table keeps the messages whole, so the view holds
// only the call's refs (or inline list), and the pool stays the decoded
// sample's. The raw bytes share the sample's; attachment refs in them are
// not resolved (Resolve does that per string).
func (d *DecodedSample) InputRaws(c *CallView) ([]json.RawMessage, error) {
	return d.inputRaws(c.InputRefs, c.Input)
}
