package evallog

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	json "github.com/goccy/go-json"
)

// What inspect_ai's read_eval_log refuses, empties refuses: a log whose
// shape its pydantic models do not accept is unreadable, with the field at
// fault named, and one they accept is read, with the values pydantic reads
// from it (its lax conversions: "1" and 1.0 are the int 1, "yes" is true).
// The rules come from the models themselves: inspect_model.go, generated
// from their JSON schemas, holds the closed sets of values and the JSON
// kinds of every top-level field of a sample, a log and its eval spec.
//
// What is checked: those top-level kinds and required fields; every event's
// kind; the fields the tables read, of the model, span and step events, of
// each output (choices, role, content types, stop reason, usage), of the
// scores (a Value), the sample's timing, error and limit, and the header's
// status, model and created. What is not: the insides of what no table
// reads (the conversation history, tool and other events' fields, the
// store, attachments, results' contents): a log that is malformed only
// there is read by empties and refused by inspect_ai (README "Malformed
// logs"; testdata/malformed/DIFFERENCES.tsv).

// jsonKinds is a set of JSON kinds.
type jsonKinds uint8

const (
	kString jsonKinds = 1 << iota
	kInt
	kNumber
	kBool
	kArray
	kObject
	kNull
)

// kindOf is the kind of a JSON value from its first byte (0 for none).
func kindOf(first byte) jsonKinds {
	switch {
	case first == '"':
		return kString
	case first == '[':
		return kArray
	case first == '{':
		return kObject
	case first == 'n':
		return kNull
	case first == 't' || first == 'f':
		return kBool
	case first == '-' || first >= '0' && first <= '9' || first == 'N' || first == 'I':
		return kNumber
	}
	return 0
}

// accepts reports whether a value of kind k may stand where allowed is
// declared, with pydantic's lax conversions: a number for an int (its value
// is checked where the field is read), a string, number or bool for an int,
// a float or a bool.
func (allowed jsonKinds) accepts(k jsonKinds) bool {
	if k&allowed != 0 {
		return true
	}
	if allowed&(kInt|kNumber|kBool) != 0 && k&(kString|kNumber|kBool) != 0 {
		return true
	}
	return false
}

// withArticle is a kind's name with "a" or "an" before it ("null" has
// none): "an object", "a list | null".
func withArticle(name string) string {
	switch {
	case strings.HasPrefix(name, "null"):
		return name
	case strings.HasPrefix(name, "int") || strings.HasPrefix(name, "object"):
		return "an " + name
	}
	return "a " + name
}

func (k jsonKinds) String() string {
	var names []string
	for i, n := range []string{"string", "int", "number", "bool", "list", "object", "null"} {
		if k&(1<<i) != 0 {
			names = append(names, n)
		}
	}
	return strings.Join(names, " | ")
}

// jsonKind records the kind of a field no table reads (its value is not
// kept), and that it was there.
type jsonKind struct {
	Kind jsonKinds
	Set  bool
}

// UnmarshalJSON implements json.Unmarshaler.
func (k *jsonKind) UnmarshalJSON(b []byte) error {
	*k = jsonKind{kindOf(firstByte(b)), true}
	return nil
}

// kindPlaceholder is a value of the kind of a raw value (its first byte),
// given to the decoder for a field only its kind is checked of, instead of
// a copy of the value.
func kindPlaceholder(first byte) string {
	switch kindOf(first) {
	case kString:
		return `""`
	case kArray:
		return "[]"
	case kObject:
		return "{}"
	case kNull:
		return "null"
	case kBool:
		return "true"
	}
	return "0"
}

// stringSet makes a set of strings.
func stringSet(vals ...string) map[string]bool {
	m := make(map[string]bool, len(vals))
	for _, v := range vals {
		m[v] = true
	}
	return m
}

// sortedSet lists the values of a set in order.
func sortedSet(set map[string]bool) []string {
	vals := make([]string, 0, len(set))
	for v := range set {
		vals = append(vals, v)
	}
	sort.Strings(vals)
	return vals
}

// oneOf names the values of a set, for a message.
func oneOf(set map[string]bool) string {
	vals := make([]string, 0, len(set))
	for v := range set {
		vals = append(vals, strconv.Quote(v))
	}
	sort.Strings(vals)
	return strings.Join(vals, ", ")
}

// checkKinds checks the recorded kinds of fields against a generated table.
func checkKinds(where string, table map[string]jsonKinds, fields map[string]jsonKind) error {
	list := make([]namedKind, 0, len(fields))
	for n, f := range fields {
		list = append(list, namedKind{n, f})
	}
	slices.SortFunc(list, func(a, b namedKind) int { return strings.Compare(a.name, b.name) })
	return checkKindList(where, table, list)
}

// namedKind is a member's name and the kind of its value.
type namedKind struct {
	name string
	jsonKind
}

// checkKindList is checkKinds of fields listed in name order (the first in
// that order that is wrong is named).
func checkKindList(where string, table map[string]jsonKinds, fields []namedKind) error {
	for _, f := range fields {
		allowed, known := table[f.name]
		if !f.Set || !known || allowed.accepts(f.Kind) {
			continue
		}
		return fmt.Errorf("%s%s: %s, where inspect_ai's model takes %s", where, f.name, withArticle(f.Kind.String()), withArticle(allowed.String()))
	}
	return nil
}

// Bool is a bool read as pydantic reads one: true, false, null (absent),
// the ints 0 and 1 (and 0.0, 1.0), and the strings it takes for them
// ("yes", "no", "on", "off", "y", "n", "t", "f", "true", "false", "1",
// "0", in any case).
type Bool bool

// UnmarshalJSON implements json.Unmarshaler.
func (b *Bool) UnmarshalJSON(raw []byte) error {
	raw = bytes.TrimSpace(raw)
	switch s := string(raw); s {
	case "true", "1", "1.0":
		*b = true
		return nil
	case "false", "0", "0.0", "null", "-0", "-0.0":
		*b = false
		return nil
	}
	if firstByte(raw) == '"' {
		s, err := DecodeString(raw)
		if err != nil {
			return err
		}
		switch strings.ToLower(s) {
		case "yes", "on", "y", "t", "true", "1":
			*b = true
			return nil
		case "no", "off", "n", "f", "false", "0":
			*b = false
			return nil
		}
	}
	return fmt.Errorf("not a bool: %.40s", raw)
}

// pyInt reads an int as pydantic does: an integer, a float without a
// fraction, a bool, or a string holding one (blanks around, a sign,
// underscores between digits, a fraction of zeros). ok is false for
// anything else.
func pyInt(raw []byte) (v int64, null, ok bool) {
	raw = bytes.TrimSpace(raw)
	switch s := string(raw); {
	case s == "null":
		return 0, true, true
	case s == "true":
		return 1, false, true
	case s == "false":
		return 0, false, true
	}
	s := string(raw)
	if firstByte(raw) == '"' {
		str, err := DecodeString(raw)
		if err != nil {
			return 0, false, false
		}
		s = strings.TrimSpace(str)
		if !pyIntString.MatchString(s) {
			return 0, false, false
		}
		s = strings.ReplaceAll(s, "_", "")
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, false, true
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false, false
	}
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0) && !isInteger([]byte(s)):
		return 0, false, false
	case f != math.Trunc(f):
		return 0, false, false // a fraction: pydantic refuses it
	case f >= math.MaxInt64:
		return math.MaxInt64, false, true // beyond int64: saturated
	case f <= math.MinInt64:
		return math.MinInt64, false, true
	}
	return int64(f), false, true
}

// pyIntString is a string pydantic reads as an int.
var pyIntString = regexp.MustCompile(`^[+-]?[0-9](_?[0-9])*(\.0*)?$`)

// checkDatetime checks a datetime string as inspect_ai reads one
// (ParseDatetime; "" is absent): one it refuses is an error naming the field.
func checkDatetime(field, s string) error {
	if s == "" {
		return nil
	}
	if _, err := ParseDatetime(s); err != nil {
		return datetimeError(field, s, err)
	}
	return nil
}

func datetimeError(field, s string, err error) error {
	return fmt.Errorf("%s: %q is not a datetime inspect_ai reads (datetime.fromisoformat, in UTC: %v)", field, s, err)
}

// checkValue checks a score value as inspect_ai's Value: a str, int,
// float or bool, a list of those, or an object of those and nulls.
func checkValue(field string, raw json.RawMessage) error {
	raw = bytes.TrimSpace(raw)
	scalar := func(b []byte) bool {
		k := kindOf(firstByte(b))
		return k == kString || k == kNumber || k == kBool
	}
	switch kindOf(firstByte(raw)) {
	case kString, kNumber, kBool:
		return nil
	case 0, kNull:
		return fmt.Errorf("%s: no value (inspect_ai's Score requires one)", field)
	case kArray:
		ok := eachElement(raw, func(e []byte) bool { return scalar(e) })
		if !ok {
			return fmt.Errorf("%s: a list holding other than str, int, float or bool (inspect_ai's Value)", field)
		}
	case kObject:
		ok := eachMember(raw, func(_, v []byte) bool { return scalar(v) || kindOf(firstByte(v)) == kNull })
		if !ok {
			return fmt.Errorf("%s: an object holding other than str, int, float, bool or null (inspect_ai's Value)", field)
		}
	}
	return nil
}

// validate checks a decoded sample's shape against inspect_ai's EvalSample
// model (see the top of this file); finish calls it.
func (d *DecodedSample) validate() error {
	if !d.Epoch.Valid {
		return errors.New("epoch: missing or null (inspect_ai's EvalSample requires an int)")
	}
	var metadata jsonKind
	if len(d.Metadata) > 0 {
		metadata = jsonKind{kindOf(firstByte(d.Metadata)), true}
	}
	fields := [...]namedKind{ // in name order
		{"choices", d.Choices}, {"description", d.Description}, {"error_retries", d.ErrorRetries},
		{"files", d.Files}, {"input", d.Input}, {"invalidation", d.Invalidation}, {"messages", d.Messages},
		{"metadata", metadata}, {"model_fallbacks", d.ModelFallbacks}, {"model_usage", d.ModelUsage},
		{"role_usage", d.RoleUsage}, {"sandbox", d.Sandbox}, {"setup", d.Setup}, {"store", d.Store},
		{"target", d.Target}, {"timelines", d.Timelines}, {"token_limit_type", d.TokenLimitType},
	}
	if err := checkKindList("", inspectSampleKinds, fields[:]); err != nil {
		return err
	}
	if d.Output.Null {
		return errors.New("output: null (inspect_ai's EvalSample holds a ModelOutput there)")
	}
	if err := checkOutput("output", d.Output.ModelOutput); err != nil {
		return err
	}
	for name, s := range d.Scores {
		if err := checkValue("scores."+name+".value", s.Value); err != nil {
			return err
		}
	}
	if d.Limit != nil && !inspectLimitTypes[d.Limit.Type] {
		return fmt.Errorf("limit.type: %q is none of %s", d.Limit.Type, oneOf(inspectLimitTypes))
	}
	if err := checkDatetime("started_at", d.StartedAt); err != nil {
		return err
	}
	if err := checkDatetime("completed_at", d.CompletedAt); err != nil {
		return err
	}
	for i := range d.Events {
		at := i
		if len(d.eventIndex) == len(d.Events) {
			at = d.eventIndex[i] // the walk's: the place in the log's list
		}
		if err := checkEvent(at, &d.Events[i]); err != nil {
			return err
		}
	}
	return nil
}

// checkEvent checks an event's kind, and the fields the tables read of the
// kinds they read.
func checkEvent(i int, e *Event) error {
	if !inspectEventKinds[e.Event] {
		return fmt.Errorf("events[%d]: an event of kind %q, none of inspect_ai's (%s)", i, e.Event, oneOf(inspectEventKinds))
	}
	if !keptEvents[e.Event] {
		return nil
	}
	if e.Timestamp != "" {
		if _, err := ParseDatetime(e.Timestamp); err != nil {
			return datetimeError(fmt.Sprintf("events[%d].timestamp", i), e.Timestamp, err)
		}
	}
	if err := checkDatetime(fmt.Sprintf("events[%d].completed", i), e.Completed); err != nil {
		return err
	}
	switch e.Event {
	case "step":
		if !inspectStepActions[e.Action] {
			return fmt.Errorf("events[%d].action: %q is none of %s", i, e.Action, oneOf(inspectStepActions))
		}
	case "model":
		switch {
		case len(e.Output) == 0 || isNull(e.Output):
			return fmt.Errorf("events[%d].output: missing or null (inspect_ai's ModelEvent requires a ModelOutput)", i)
		case len(e.Error) > 0 && kindOf(firstByte(e.Error))&(kString|kNull) == 0:
			return fmt.Errorf("events[%d].error: a %s, where inspect_ai's ModelEvent takes a string or null", i, kindOf(firstByte(e.Error)))
		case len(e.Input) > 0 && kindOf(firstByte(e.Input)) != kArray:
			return fmt.Errorf("events[%d].input: a %s, where inspect_ai's ModelEvent takes a list of messages", i, kindOf(firstByte(e.Input)))
		case e.Cache != "" && !inspectCache[e.Cache]:
			return fmt.Errorf("events[%d].cache: %q is none of %s", i, e.Cache, oneOf(inspectCache))
		}
	}
	return nil
}

// checkOutput checks what the tables read of a ModelOutput: each choice's
// message is an assistant's, its content items of known types, its stop
// reason one of the model's.
func checkOutput(where string, o *ModelOutput) error {
	if o == nil {
		return nil
	}
	for i := range o.Choices {
		c := &o.Choices[i]
		if c.Message.Role != "" && c.Message.Role != "assistant" {
			return fmt.Errorf("%s.choices[%d].message.role: %q, where inspect_ai's ChatCompletionChoice holds an assistant message", where, i, c.Message.Role)
		}
		if c.StopReason != "" && !inspectStopReasons[c.StopReason] {
			return fmt.Errorf("%s.choices[%d].stop_reason: %q is none of %s", where, i, c.StopReason, oneOf(inspectStopReasons))
		}
		for j := range c.Message.Content {
			if t := c.Message.Content[j].Type; !inspectContentTypes[t] {
				return fmt.Errorf("%s.choices[%d].message.content[%d].type: %q is none of %s", where, i, j, t, oneOf(inspectContentTypes))
			}
		}
	}
	return nil
}

// checkHeader checks a log's header (header.json, _journal/start.json or
// the top level of a .json log, raw) against inspect_ai's EvalLog and
// EvalSpec models, and gives h the status EvalLog defaults to when the
// header has none.
func checkHeader(raw []byte, h *Header, journal bool) error {
	top, ok := memberKinds(raw)
	if !ok {
		return errors.New("not a JSON object")
	}
	if err := checkKinds("", inspectLogKinds, top); err != nil {
		return err
	}
	if !top["status"].Set {
		h.Status = StatusStarted // EvalLog.status: EvalStatus = Field(default="started")
	}
	if !top["eval"].Set {
		return errors.New("eval: missing (inspect_ai's EvalLog requires it)")
	}
	var evalRaw, created, results []byte
	eachMember(raw, func(k, v []byte) bool {
		switch {
		case keyIs(k, "eval"):
			evalRaw = v
		case keyIs(k, "results"):
			results = v
		}
		return true
	})
	// the study reads the stored metrics of results (study.storedMetric)
	if kinds, ok := memberKinds(results); ok {
		if err := checkKinds("results.", inspectResultsKinds, kinds); err != nil {
			return err
		}
	}
	eachMember(evalRaw, func(k, v []byte) bool {
		if keyIs(k, "created") {
			created = bytes.TrimSpace(v)
		}
		return true
	})
	if string(created) == `""` {
		// "" reads as none below; fromisoformat refuses it
		return datetimeError("eval.created", "", errors.New("Invalid isoformat string: ''"))
	}
	spec, ok := memberKinds(evalRaw)
	if !ok {
		return errors.New("eval: not a JSON object")
	}
	if err := checkKinds("eval.", inspectSpecKinds, spec); err != nil {
		return err
	}
	for _, f := range []string{"created", "task", "dataset", "model", "config"} {
		if !spec[f].Set {
			return fmt.Errorf("eval.%s: missing (inspect_ai's EvalSpec requires it)", f)
		}
	}
	if !journal && top["status"].Set && !inspectStatuses[h.Status] {
		return fmt.Errorf("status: %q is none of %s", h.Status, oneOf(inspectStatuses))
	}
	// the generate configs the tables read max_tokens of (ParseGenerateConfig)
	if _, ok := parseGenerateConfig(h.Eval.ModelGenerateConfig); !ok {
		return errors.New("eval.model_generate_config: not a GenerateConfig inspect_ai reads (max_tokens an int, temperature a float)")
	}
	if h.Plan != nil {
		if _, ok := parseGenerateConfig(h.Plan.Config); !ok {
			return errors.New("plan.config: not a GenerateConfig inspect_ai reads (max_tokens an int, temperature a float)")
		}
	}
	return checkDatetime("eval.created", h.Eval.Created)
}

// memberKinds records the kind of each member of a raw object (the last of
// a repeated key, as the decoder takes it).
func memberKinds(raw []byte) (map[string]jsonKind, bool) {
	if firstByte(raw) != '{' {
		return nil, false
	}
	out := map[string]jsonKind{}
	ok := eachMember(raw, func(k, v []byte) bool {
		name, err := DecodeString(k)
		if err != nil {
			return false
		}
		out[name] = jsonKind{kindOf(firstByte(v)), true}
		return true
	})
	return out, ok
}
