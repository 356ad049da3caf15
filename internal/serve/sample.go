package serve

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"

	json "github.com/goccy/go-json"

	"empties/internal/classify"
	"empties/internal/duck"
	"empties/internal/evallog"
	"empties/internal/numfmt"
	"empties/internal/sqlfmt"
	"empties/internal/vocab"
)

// The sample page tells the story of one reply: the rows the tables hold
// (the reply with its class and rule, every model call with its kind and
// status, the scores) beside what the log holds, decoded on demand from the
// one sample member: the messages the model under test was sent, each of its
// calls in order with what it returned, the judges' prompts and verdicts.
// Nothing of the log is stored in the tables for this.

// sampleKey names a sample: its log, id and epoch.
type sampleKey struct {
	LogID, ID string
	Epoch     int64
}

// record is a table row by column name, in the view's column order.
type record struct {
	Cols []string
	Vals []any
}

func (r record) get(col string) any {
	for i, c := range r.Cols {
		if c == col {
			return r.Vals[i]
		}
	}
	return nil
}

func (r record) Str(col string) string {
	v := r.get(col)
	if v == nil {
		return ""
	}
	return sqlfmt.Format(v)
}

func (r record) Has(col string) bool { return r.get(col) != nil }

// List is a list column's items as text, joined with ", " ("" for an
// empty list or NULL); another column's value as Str gives it.
func (r record) List(col string) string {
	xs, ok := r.get(col).([]any)
	if !ok {
		return r.Str(col)
	}
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = sqlfmt.Format(x)
	}
	return strings.Join(parts, ", ")
}

func (r record) Int(col string) int64 {
	switch x := r.get(col).(type) {
	case int64:
		return x
	case int32:
		return int64(x)
	}
	n, _ := strconv.ParseInt(r.Str(col), 10, 64)
	return n
}

func (r record) Bool(col string) bool { b, _ := r.get(col).(bool); return b }

// Fields lists the row's columns and values as text, for the raw fields.
func (r record) Fields() [][2]string {
	out := make([][2]string, len(r.Cols))
	for i, c := range r.Cols {
		v := "NULL"
		if r.Vals[i] != nil {
			v = sqlfmt.Format(r.Vals[i])
		}
		out[i] = [2]string{c, v}
	}
	return out
}

func queryRecords(ctx context.Context, db *sql.DB, q string, args ...any) ([]record, error) {
	cols, rows, err := duck.Rows(ctx, db, q, args...)
	if err != nil {
		return nil, err
	}
	out := make([]record, len(rows))
	for i, r := range rows {
		out[i] = record{cols, r}
	}
	return out, nil
}

// samplePage is everything the sample page shows.
type samplePage struct {
	Key       sampleKey
	Log       *logRow
	Reply     record
	Calls     []callView
	Scores    []record
	RuleText  string
	NonAnswer bool
	// JudgeInSolver: the study places the log in an eval whose judge runs in
	// the solver (study_evals.judge_where solver), so its last generation is
	// that judge's and the study's final reply is the first (vocab.ReplyFinal).
	JudgeInSolver bool

	// From the log; LogError says why they are missing.
	LogError   string
	LogChanged string
	Prompt     []messageView // what the model under test was sent for its reply
	PromptFrom string        // where Prompt comes from
	Input      []messageView // sample.input, when no call shows the prompt
	Target     string
	Output     *outputView // the chosen output, as the log holds it
	RawBytes   int
}

// callView is one model call: its model_calls row and, from the log, what it
// was sent and returned.
type callView struct {
	Row      record
	Index    int64
	Kind     string
	Status   string
	IsReply  bool
	Model    string
	Role     string
	Scorer   string
	Error    string
	Skipped  string // why the reply skipped it ("" if it did not)
	Output   *outputView
	Input    []messageView
	InputN   int
	Pending  bool
	Found    bool // the log holds the event
	Judge    bool
	JudgeCls string
	// A generation of the model under test: its own class
	// (model_calls.class), and whether it is the final reply.
	Class, ClassRule string
	TurnNonAnswer    bool
	IsFinal          bool
}

// messageView is one chat message, every string resolved.
type messageView struct {
	Role       string
	Parts      []partView
	ToolCalls  []toolCallView
	ToolCallID string
	Function   string
	Error      string
}

// partView is one content item.
type partView struct {
	Type     string // text, reasoning, image, ...
	Text     string
	Refusal  bool
	Redacted bool
	Summary  string
}

type toolCallView struct {
	ID, Function, Arguments, ParseError string
}

// outputView is a ModelOutput with its first choice's message in full.
type outputView struct {
	Model       string
	NChoices    int
	Message     *messageView
	StopReason  string
	StopDetails string
	Error       string
	Usage       string
	Completion  string
}

const (
	replyQuery      = `SELECT * FROM replies WHERE log_id = ? AND sample_id = ? AND epoch = ?`
	callsQuery      = `SELECT * FROM model_calls WHERE log_id = ? AND sample_id = ? AND epoch = ? ORDER BY call_index`
	scoresQuery     = `SELECT * FROM scores WHERE log_id = ? AND sample_id = ? AND epoch = ? ORDER BY scorer`
	judgeWhereQuery = `SELECT e.judge_where FROM log_assignments a JOIN study_evals e USING (eval) WHERE a.log_id = ? LIMIT 1`
)

// loadSample reads the sample's rows, then its member from the log.
func (s *Server) loadSample(ctx context.Context, g *generation, k sampleKey) (*samplePage, error) {
	p := &samplePage{Key: k, Log: g.logs[k.LogID]}
	replies, err := queryRecords(ctx, g.db, replyQuery, k.LogID, k.ID, k.Epoch)
	if err != nil {
		return nil, err
	}
	if len(replies) == 0 || p.Log == nil {
		return nil, errNotFound
	}
	p.Reply = replies[0]
	p.NonAnswer = p.Reply.Bool("non_answer")
	rules := map[string]string{}
	for _, r := range classify.OrderedRules() {
		rules[r.ID+"@"+classify.Version] = r.Seed
	}
	p.RuleText = rules[p.Reply.Str("class_rule")]
	if g.tables["model_calls"] {
		calls, err := queryRecords(ctx, g.db, callsQuery, k.LogID, k.ID, k.Epoch)
		if err != nil {
			return nil, err
		}
		final := p.Reply.Has("final_call_index")
		for _, c := range calls {
			p.Calls = append(p.Calls, callView{Row: c, Index: c.Int("call_index"), Kind: c.Str("kind"), Status: c.Str("call_status"),
				IsReply: c.Bool("is_reply"), Model: c.Str("model"), Role: c.Str("role"), Scorer: c.Str("scorer"), Error: c.Str("call_error"),
				Judge: c.Str("kind") == "judge", JudgeCls: c.Str("judge_class"),
				Class: c.Str("class"), ClassRule: c.Str("class_rule"), TurnNonAnswer: c.Bool("non_answer"),
				IsFinal: final && c.Int("call_index") == p.Reply.Int("final_call_index")})
		}
	}
	markSkipped(p.Calls)
	if g.tables["log_assignments"] && g.tables["study_evals"] {
		w, err := queryRecords(ctx, g.db, judgeWhereQuery, k.LogID)
		if err != nil {
			return nil, err
		}
		p.JudgeInSolver = len(w) > 0 && w[0].Str("judge_where") == vocab.JudgeInSolver
	}
	if g.tables["scores"] {
		if p.Scores, err = queryRecords(ctx, g.db, scoresQuery, k.LogID, k.ID, k.Epoch); err != nil {
			return nil, err
		}
	}
	raw, changed, err := s.logs.sampleBytes(ctx, p.Log, p.Reply.Str("member"))
	p.LogChanged = changed
	if err != nil {
		p.LogError = err.Error()
		return p, nil
	}
	p.RawBytes = len(raw)
	if err := p.decode(raw); err != nil {
		p.LogError = fmt.Sprintf("%s: %s: %v", p.Log.Path, p.Reply.Str("member"), err)
	}
	return p, nil
}

// markSkipped says, for each call of the model under test before the reply,
// why the reply is not it (the rule of README "How the reply is chosen").
func markSkipped(calls []callView) {
	reply := -1
	for i, c := range calls {
		if c.IsReply {
			reply = i
		}
	}
	for i := range calls {
		c := &calls[i]
		if c.Kind != "model_under_test" || c.IsReply || (reply >= 0 && i > reply) {
			continue
		}
		switch c.Status {
		case "placeholder":
			c.Skipped = "a placeholder: recorded before the call, never completed; not a generation"
		case vocab.CallRetried:
			c.Skipped = "a failed attempt that inspect's retry loop tried again"
		}
	}
}

// decode fills what the page shows from the sample's raw JSON. The calls
// are read through the sample's view (evallog.SampleView, the one pass
// ingest reads): which model events there are, in order, and each one's
// pending flag, error, input count and output as logged. What the page shows
// whole and no table keeps (every message with all its parts, tool calls'
// arguments, usage as logged, sample.input and target) is read here from
// the raw values, with the decoded sample's message pool (InputRaws) and
// attachments (Resolve).
func (p *samplePage) decode(raw []byte) error {
	d, err := evallog.DecodeSample(raw, "")
	if err != nil {
		return err
	}
	var calls []*evallog.CallView
	for _, e := range d.View().Events {
		if e.Call != nil {
			calls = append(calls, e.Call)
		}
	}
	for i := range p.Calls {
		c := &p.Calls[i]
		if c.Index < 0 || int(c.Index) >= len(calls) {
			continue
		}
		e := calls[c.Index]
		if e.Err != nil { // ingest refuses such a sample: the log changed
			return fmt.Errorf("model event %d: %w", c.Index, e.Err)
		}
		c.Found, c.Pending, c.InputN = true, e.Pending, e.InputCount
		if c.Error == "" {
			c.Error = e.Error
		}
		if c.Output, err = outputOf(d, e.RawOutput); err != nil {
			return fmt.Errorf("model event %d: %w", c.Index, err)
		}
		if c.IsReply || c.Judge {
			if c.Input, err = inputMessages(d, e); err != nil {
				return fmt.Errorf("model event %d: %w", c.Index, err)
			}
		}
		if c.IsReply {
			p.Prompt, p.PromptFrom, p.Output = c.Input, fmt.Sprintf("the input of call #%d, the reply's", c.Index), c.Output
		}
	}
	var top struct {
		Input  json.RawMessage `json:"input"`
		Target json.RawMessage `json:"target"`
		Output json.RawMessage `json:"output"`
	}
	if err := decodeRaw(raw, &top); err != nil {
		return err
	}
	if p.Input, err = inputOf(d, top.Input); err != nil {
		return err
	}
	p.Target = targetText(d, top.Target)
	if p.Output == nil && p.Reply.Str("reply_source") == vocab.SourceSampleOutput {
		if p.Output, err = outputOf(d, top.Output); err != nil {
			return fmt.Errorf("sample.output: %w", err)
		}
		p.PromptFrom = "sample.input: the reply is sample.output, and no call of the model under test shows what it was sent"
	}
	if p.Prompt == nil {
		for _, c := range p.Calls {
			if c.Kind == "model_under_test" && c.Found && c.InputN > 0 {
				p.Prompt, _ = inputMessages(d, calls[c.Index])
				p.PromptFrom = fmt.Sprintf("the input of call #%d, the first of the model under test (none was the reply)", c.Index)
				break
			}
		}
	}
	return nil
}

// Raw decoding of messages and outputs with every field the page shows;
// bare NaN/Infinity literals are read as strings first (SanitizeNonFinite).

type rawMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCalls  []rawToolCall   `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
	Function   string          `json:"function"`
	Error      json.RawMessage `json:"error"`
}

type rawToolCall struct {
	ID         string          `json:"id"`
	Function   string          `json:"function"`
	Arguments  json.RawMessage `json:"arguments"`
	ParseError *string         `json:"parse_error"`
}

type rawContent struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Refusal   *bool           `json:"refusal"`
	Reasoning string          `json:"reasoning"`
	Summary   *string         `json:"summary"`
	Redacted  bool            `json:"redacted"`
	Image     string          `json:"image"`
	Audio     string          `json:"audio"`
	Video     string          `json:"video"`
	Document  json.RawMessage `json:"document"`
	Content   json.RawMessage `json:"content"` // tool_use and data items
	Name      string          `json:"name"`
}

func decodeRaw(raw []byte, v any) error {
	clean, _ := evallog.SanitizeNonFinite(raw)
	return json.Unmarshal(clean, v)
}

// inputMessages reads a call's input messages whole.
func inputMessages(d *evallog.DecodedSample, c *evallog.CallView) ([]messageView, error) {
	raws, err := d.InputRaws(c)
	if err != nil {
		return nil, err
	}
	return messagesOf(d, raws)
}

func messagesOf(d *evallog.DecodedSample, raws []json.RawMessage) ([]messageView, error) {
	out := make([]messageView, 0, len(raws))
	for _, raw := range raws {
		m, err := messageOf(d, raw)
		if err != nil {
			return nil, err
		}
		out = append(out, *m)
	}
	return out, nil
}

func messageOf(d *evallog.DecodedSample, raw json.RawMessage) (*messageView, error) {
	var m rawMessage
	if err := decodeRaw(raw, &m); err != nil {
		return nil, fmt.Errorf("message: %w", err)
	}
	v := &messageView{Role: m.Role, ToolCallID: m.ToolCallID, Function: m.Function, Error: errorText(m.Error)}
	parts, err := partsOf(d, m.Content)
	if err != nil {
		return nil, err
	}
	v.Parts = parts
	for _, tc := range m.ToolCalls {
		t := toolCallView{ID: tc.ID, Function: tc.Function, Arguments: prettyJSON(d, tc.Arguments)}
		if tc.ParseError != nil {
			t.ParseError = *tc.ParseError
		}
		v.ToolCalls = append(v.ToolCalls, t)
	}
	return v, nil
}

// stringValue reads a raw value that may be a JSON string: its text with
// attachment refs resolved and ok, or ok false for any other value. absent
// says the value is missing or null.
func stringValue(d *evallog.DecodedSample, raw json.RawMessage) (text string, ok, absent bool, err error) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return "", false, true, nil
	case raw[0] == '"':
		s, err := evallog.DecodeString(raw)
		if err != nil {
			return "", false, false, err
		}
		return d.Resolve(s), true, false, nil
	}
	return "", false, false, nil
}

// partsOf reads message content: a string (one text item) or a list.
func partsOf(d *evallog.DecodedSample, raw json.RawMessage) ([]partView, error) {
	switch s, ok, absent, err := stringValue(d, raw); {
	case err != nil || absent:
		return nil, err
	case ok:
		return []partView{{Type: "text", Text: s}}, nil
	}
	var items []rawContent
	if err := decodeRaw(raw, &items); err != nil {
		return nil, fmt.Errorf("message content: %w", err)
	}
	var out []partView
	for _, c := range items {
		p := partView{Type: c.Type}
		switch c.Type {
		case "text":
			p.Text, p.Refusal = d.Resolve(c.Text), c.Refusal != nil && *c.Refusal
		case "reasoning":
			p.Text, p.Redacted = d.Resolve(c.Reasoning), c.Redacted
			if c.Summary != nil {
				p.Summary = d.Resolve(*c.Summary)
			}
			if p.Redacted {
				p.Text = "" // an opaque signature, not text
			}
		case "image":
			p.Text = "[image" + mediaNote(d.Resolve(c.Image)) + "]"
		case "audio":
			p.Text = "[audio" + mediaNote(d.Resolve(c.Audio)) + "]"
		case "video":
			p.Text = "[video" + mediaNote(d.Resolve(c.Video)) + "]"
		default:
			p.Text = prettyJSON(d, c.Content)
			if c.Name != "" {
				p.Text = c.Name + ": " + p.Text
			}
		}
		out = append(out, p)
	}
	return out, nil
}

func mediaNote(s string) string {
	if strings.HasPrefix(s, "data:") {
		if i := strings.IndexByte(s, ';'); i > 0 {
			return ": " + s[len("data:"):i] + fmt.Sprintf(", %d bytes inline", len(s))
		}
		return ""
	}
	if s == "" {
		return ""
	}
	return ": " + s
}

// inputOf reads sample.input: a string, or a list of messages.
func inputOf(d *evallog.DecodedSample, raw json.RawMessage) ([]messageView, error) {
	switch s, ok, absent, err := stringValue(d, raw); {
	case err != nil || absent:
		return nil, err
	case ok:
		return []messageView{{Role: "user", Parts: []partView{{Type: "text", Text: s}}}}, nil
	}
	var raws []json.RawMessage
	if err := decodeRaw(raw, &raws); err != nil {
		return nil, fmt.Errorf("sample input: %w", err)
	}
	return messagesOf(d, raws)
}

func targetText(d *evallog.DecodedSample, raw json.RawMessage) string {
	if s, ok, absent, _ := stringValue(d, raw); ok || absent {
		return s
	}
	var list []string
	if decodeRaw(raw, &list) == nil {
		for i := range list {
			list[i] = d.Resolve(list[i])
		}
		return strings.Join(list, "\n")
	}
	return string(raw)
}

type rawOutput struct {
	Model   string `json:"model"`
	Choices []struct {
		Message     json.RawMessage `json:"message"`
		StopReason  string          `json:"stop_reason"`
		StopDetails json.RawMessage `json:"stop_details"`
	} `json:"choices"`
	Completion string          `json:"completion"`
	Error      json.RawMessage `json:"error"`
	Usage      json.RawMessage `json:"usage"`
}

func outputOf(d *evallog.DecodedSample, raw json.RawMessage) (*outputView, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var o rawOutput
	if err := decodeRaw(raw, &o); err != nil {
		return nil, fmt.Errorf("model output: %w", err)
	}
	v := &outputView{Model: o.Model, NChoices: len(o.Choices), Error: errorText(o.Error), Usage: usageText(o.Usage), Completion: d.Resolve(o.Completion)}
	if len(o.Choices) > 0 {
		c := o.Choices[0]
		m, err := messageOf(d, c.Message)
		if err != nil {
			return nil, err
		}
		v.Message, v.StopReason, v.StopDetails = m, c.StopReason, stopDetailsText(c.StopDetails)
	}
	return v, nil
}

// errorText reads an error field: a string, or an object with a message.
func errorText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	if raw[0] == '"' {
		s, _ := evallog.DecodeString(raw)
		return s
	}
	var e struct {
		Message string `json:"message"`
	}
	if decodeRaw(raw, &e) == nil && e.Message != "" {
		return e.Message
	}
	return string(raw)
}

// prettyJSON indents a raw value, resolving attachment refs in its strings.
func prettyJSON(d *evallog.DecodedSample, raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var v any
	if err := decodeRaw(raw, &v); err != nil {
		return string(raw)
	}
	v = resolveAll(d, v)
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return string(raw)
	}
	return string(b)
}

func resolveAll(d *evallog.DecodedSample, v any) any {
	switch x := v.(type) {
	case string:
		return d.Resolve(x)
	case []any:
		for i := range x {
			x[i] = resolveAll(d, x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = resolveAll(d, x[k])
		}
	}
	return v
}

// usageText reads a call's usage as words, its members in the log's order:
// {"input_tokens":606,"output_tokens":104,"input_tokens_cache_read":0}
// reads "input 606 · output 104 · input cache read 0" (a count's "_tokens"
// left out).
func usageText(raw json.RawMessage) string {
	return objectWords(raw, " · ", func(k string) string {
		return strings.ReplaceAll(strings.Replace(k, "_tokens", "", 1), "_", " ")
	})
}

// stopDetailsText reads a choice's stop_details as words, as the report's
// examples do: {"type":"refusal","category":"cyber","explanation":null}
// reads "type refusal, category cyber".
func stopDetailsText(raw json.RawMessage) string {
	return objectWords(raw, ", ", func(k string) string { return k })
}

// objectWords is a JSON object's members as "label value", in its order,
// joined with sep: a string as its text, a whole number thousands
// separated, a null left out, any other value as its compact JSON. What is
// no object is its compact JSON.
func objectWords(raw json.RawMessage, sep string, label func(string) string) string {
	dec := json.NewDecoder(bytes.NewReader(bytes.TrimSpace(raw)))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return compactJSON(raw)
	}
	var parts []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return compactJSON(raw)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return compactJSON(raw)
		}
		key, _ := k.(string)
		var text string
		if err := json.Unmarshal(v, &text); err == nil && len(v) > 0 && v[0] == '"' {
			parts = append(parts, label(key)+" "+text)
		} else if n, err := strconv.ParseInt(string(v), 10, 64); err == nil {
			parts = append(parts, label(key)+" "+numfmt.Count(n))
		} else if string(v) != "null" {
			parts = append(parts, label(key)+" "+compactJSON(v))
		}
	}
	return strings.Join(parts, sep)
}

func compactJSON(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}
