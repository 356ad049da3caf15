package evallog

import (
	"bytes"
	"errors"

	json "github.com/goccy/go-json"
)

// The structs below decode only what the tables need; everything else is
// skipped by the decoder or kept as raw JSON. Field meanings follow
// ../shared/reference/inspect-log-format.md (sections 2-6).

// Header is an EvalLog without its samples: header.json, the top level of a
// .json log, or a header synthesised from _journal/start.json.
type Header struct {
	Version       int             `json:"version"`
	Status        string          `json:"status"`
	Eval          EvalSpec        `json:"eval"`
	Plan          *Plan           `json:"plan"`
	Results       json.RawMessage `json:"results"`
	Error         *EvalError      `json:"error"`
	Invalidated   bool            `json:"invalidated"`
	Tags          json.RawMessage `json:"tags"`
	Metadata      json.RawMessage `json:"metadata"`
	ConfigUpdates json.RawMessage `json:"config_updates"`
}

// EvalSpec is the eval section of a header.
type EvalSpec struct {
	EvalSetID           string            `json:"eval_set_id"`
	EvalID              string            `json:"eval_id"`
	RunID               string            `json:"run_id"`
	TaskID              string            `json:"task_id"`
	Created             string            `json:"created"`
	Task                string            `json:"task"`
	TaskVersion         json.RawMessage   `json:"task_version"`
	TaskArgs            json.RawMessage   `json:"task_args"`
	Model               string            `json:"model"`
	ModelGenerateConfig json.RawMessage   `json:"model_generate_config"`
	ModelArgs           json.RawMessage   `json:"model_args"`
	ModelRoles          json.RawMessage   `json:"model_roles"`
	Config              json.RawMessage   `json:"config"`
	Dataset             Dataset           `json:"dataset"`
	Packages            map[string]string `json:"packages"`
	Tags                json.RawMessage   `json:"tags"`
	Metadata            json.RawMessage   `json:"metadata"`
}

// Dataset describes the eval's dataset.
type Dataset struct {
	Name    string `json:"name"`
	Samples Int    `json:"samples"`
}

// Plan is the solver plan; Config is the task-level generate config.
type Plan struct {
	Config json.RawMessage `json:"config"`
}

// EvalError is an error that stopped an eval or a sample.
type EvalError struct {
	Message string `json:"message"`
}

// GenerateConfig holds the generate settings the tables report.
type GenerateConfig struct {
	MaxTokens   Int   `json:"max_tokens"`
	Temperature Float `json:"temperature"`
}

// ParseGenerateConfig decodes the settings of a raw GenerateConfig; absent or
// malformed input gives the zero value (every setting unset). A key repeated
// counts last, as in Python.
func ParseGenerateConfig(raw json.RawMessage) GenerateConfig {
	c, _ := parseGenerateConfig(raw)
	return c
}

// validGenerateConfig reports whether raw is a GenerateConfig inspect_ai
// reads as far as the settings the tables read go: an object whose
// max_tokens is an int (or null) and temperature a float (or null), with
// pydantic's lax conversions. null is not one.
func validGenerateConfig(raw json.RawMessage) bool {
	if isNull(raw) {
		return false
	}
	_, ok := parseGenerateConfig(raw)
	return ok
}

func parseGenerateConfig(raw json.RawMessage) (GenerateConfig, bool) {
	var c GenerateConfig
	if isNull(raw) {
		return c, true
	}
	w := &walk{b: raw, canonical: true}
	end, ok := w.members(ws(raw, 0), func(w *walk, k []byte, vs int) (int, bool) {
		switch string(k) {
		case "max_tokens":
			return w.intField(vs, &c.MaxTokens)
		case "temperature":
			return w.floatValue(vs, &c.Temperature)
		}
		return w.skipLoose(vs)
	})
	if !ok || ws(raw, end) != len(raw) {
		return GenerateConfig{}, false
	}
	return c, true
}

// Sample is one EvalSample (one sample × epoch).
type Sample struct {
	ID          json.RawMessage   `json:"id"`
	Epoch       Int               `json:"epoch"` // required: Valid once decoded
	UUID        string            `json:"uuid"`
	Output      SampleOutput      `json:"output"`
	Scores      map[string]Score  `json:"scores"`
	Score       *Score            `json:"score"` // log version 1
	Events      []Event           `json:"events"`
	Transcript  *Transcript       `json:"transcript"` // logs of 2024
	Attachments json.RawMessage   `json:"attachments"`
	EventsData  *Pools            `json:"events_data"`
	MessagePool []json.RawMessage `json:"message_pool"` // log version 3
	Error       *EvalError        `json:"error"`
	Limit       *SampleLimit      `json:"limit"`
	Metadata    json.RawMessage   `json:"metadata"`
	// Timing (inspect_ai 0.3.70+; started_at and completed_at later).
	StartedAt   string `json:"started_at"`
	CompletedAt string `json:"completed_at"`
	TotalTime   Float  `json:"total_time"`
	WorkingTime Float  `json:"working_time"`
	// Fields no table reads, whose kind is checked (shape.go) but whose
	// value is not kept (the slim and streamed decodes hand the decoder a
	// placeholder of the kind, kindFields).
	Input          jsonKind `json:"input"`
	Target         jsonKind `json:"target"`
	Choices        jsonKind `json:"choices"`
	Description    jsonKind `json:"description"`
	Sandbox        jsonKind `json:"sandbox"`
	Files          jsonKind `json:"files"`
	Setup          jsonKind `json:"setup"`
	Messages       jsonKind `json:"messages"`
	Store          jsonKind `json:"store"`
	Timelines      jsonKind `json:"timelines"`
	ModelUsage     jsonKind `json:"model_usage"`
	RoleUsage      jsonKind `json:"role_usage"`
	ModelFallbacks jsonKind `json:"model_fallbacks"`
	Invalidation   jsonKind `json:"invalidation"`
	ErrorRetries   jsonKind `json:"error_retries"`
	TokenLimitType jsonKind `json:"token_limit_type"`
	// Ints no table reads, read as pydantic reads them.
	TurnCount       Int `json:"turn_count"`
	TokenLimit      Int `json:"token_limit"`
	TokenLimitUsage Int `json:"token_limit_usage"`
	MessageLimit    Int `json:"message_limit"`
	TimeLimit       Int `json:"time_limit"`
}

// SampleOutput is EvalSample.output: the output, or Null when the log holds
// null there (which inspect_ai's model refuses; absent is an empty output).
type SampleOutput struct {
	*ModelOutput
	Null bool
}

// UnmarshalJSON implements json.Unmarshaler.
func (o *SampleOutput) UnmarshalJSON(b []byte) error {
	if isNull(b) {
		*o = SampleOutput{Null: true}
		return nil
	}
	var m ModelOutput
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	*o = SampleOutput{ModelOutput: &m}
	return nil
}

// Transcript is the 2024 container of events and attachments.
type Transcript struct {
	Events  []Event         `json:"events"`
	Content json.RawMessage `json:"content"`
	index   []int           // each event's place in the log's list (eventList)
}

// Pools hold the messages that model events refer to by range (input_refs).
// The raw provider calls (calls, call_refs; call_pool in version 3) are not
// read: no table holds them.
type Pools struct {
	Messages []json.RawMessage `json:"messages"`
}

// SampleLimit names the limit that stopped a sample.
type SampleLimit struct {
	Type string `json:"type"`
}

// Score is one scorer's result for a sample.
type Score struct {
	Value       json.RawMessage `json:"value"`
	Reason      json.RawMessage `json:"reason"`
	Answer      json.RawMessage `json:"answer"`
	Explanation json.RawMessage `json:"explanation"`
	Metadata    json.RawMessage `json:"metadata"`
}

// Event is the union of the event fields the tables read. Fields whose JSON
// type differs between event kinds stay raw (error, input, output, config).
// The stream decode keeps the members its json tags name (eventFields), and
// copies those a stream tag marks in that mode (stream.go).
type Event struct {
	Event     string `json:"event"`
	UUID      string `json:"uuid"` // inspect_ai 0.3.70+
	SpanID    string `json:"span_id"`
	Timestamp string `json:"timestamp"`
	// Pending is true on an event whose call never completed: inspect_ai
	// records a model event before the call (pending, an empty output) and
	// clears the flag when the call returns or fails.
	Pending Bool `json:"pending"`
	// span_begin / step
	ID       string `json:"id"`
	ParentID string `json:"parent_id"`
	Type     string `json:"type"`
	Name     string `json:"name"`
	Action   string `json:"action"`
	// model
	Model     string          `json:"model"`
	Role      string          `json:"role"`
	Input     json.RawMessage `json:"input" stream:"messages"`
	InputRefs [][]int         `json:"input_refs"`
	// Tools is counted only; nil when the event has no tools key (nothing
	// shows whether tools were offered), empty when none were.
	Tools       []struct{}      `json:"tools" stream:"tools"`
	Config      json.RawMessage `json:"config"`
	Output      json.RawMessage `json:"output" stream:"output"`
	Error       json.RawMessage `json:"error"`
	Completed   string          `json:"completed"` // when the call completed (0.3.7x+)
	Cache       string          `json:"cache"`
	WorkingTime Float           `json:"working_time"`
	// decoded is Output decoded by the walk as it passed it (a model event
	// whose kind came before its output, as inspect_ai writes it), so that
	// ModelOutput does not decode it again; nil otherwise.
	decoded *ModelOutput
}

// ModelOutput is the output of one generate call.
type ModelOutput struct {
	Model      string   `json:"model"`
	Choices    []Choice `json:"choices"`
	Completion string   `json:"completion"`
	Usage      *Usage   `json:"usage"`
	Error      *string  `json:"error"`
	Time       Float    `json:"time"`
}

// Choice is one completion choice.
type Choice struct {
	Message     Message      `json:"message"`
	StopReason  string       `json:"stop_reason"`
	StopDetails *StopDetails `json:"stop_details"`
}

// StopDetails carries the provider's detail on why generation stopped.
type StopDetails struct {
	Type        string `json:"type"`
	Category    string `json:"category"`
	Explanation string `json:"explanation"`
}

// Usage is token usage for one call.
type Usage struct {
	InputTokens      Int `json:"input_tokens"`
	OutputTokens     Int `json:"output_tokens"`
	TotalTokens      Int `json:"total_tokens"`
	CacheWriteTokens Int `json:"input_tokens_cache_write"`
	CacheReadTokens  Int `json:"input_tokens_cache_read"`
	ReasoningTokens  Int `json:"reasoning_tokens"`
}

// Message is a chat message; only the fields the reply analysis reads.
type Message struct {
	Role      string     `json:"role"`
	Content   Contents   `json:"content"`
	ToolCalls []ToolCall `json:"tool_calls"`
}

// ToolCall is a tool call requested by the model.
type ToolCall struct {
	Function string `json:"function"`
}

// Content is one content item of a message.
type Content struct {
	Type      string `json:"type"`
	Text      string `json:"text"`
	Refusal   *bool  `json:"refusal"`
	Reasoning string `json:"reasoning"`
	Summary   string `json:"summary"`
	Redacted  bool   `json:"redacted"`
}

// Contents is message content: a plain string (one text item) or a list.
type Contents []Content

// UnmarshalJSON accepts a string or a list of content items.
func (c *Contents) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0 || string(b) == "null":
		*c = nil
		return nil
	case b[0] == '"':
		s, err := DecodeString(b)
		if err != nil {
			return err
		}
		*c = Contents{{Type: "text", Text: s}}
		return nil
	case b[0] == '[':
		var items []Content
		if err := json.Unmarshal(b, &items); err != nil {
			return err
		}
		*c = items
		return nil
	}
	return errors.New("message content: expected a string or a list")
}
