package evallog

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf8"

	json "github.com/goccy/go-json"
)

// The walk is the decoder of every sample (Decode): one pass over its
// bytes, checking as it goes what inspect_ai's decoder would refuse, and
// taking what the tables read where it lies: raw values are sub-slices of
// the sample, the events kept are those of the kinds the tables read
// (model, span_begin, step; and one of a kind none of inspect_ai's, for
// validate to name), a model event's output is decoded as it is passed,
// strings are made only of the fields read.
//
// What it checks is what Python's json module and inspect_ai's pydantic
// models check of what the tables read: strictly valid JSON everywhere
// (strings free of raw control bytes and with valid escapes, numbers and
// literals well formed, NaN, Infinity and -Infinity as Python writes
// them), and of the fields it decodes the types, with pydantic's lax
// conversions where the field's type has them (Int, Float, Bool). A key is
// a field's only if it is its name (Python's models match keys exactly); a
// key spelled with an escape, or one an object repeats where the value is
// kept, sends the document to lastKeyWins' rewrite first (Decode), after
// which the walk takes keys as decoded. What it refuses it names: the
// offset where the document stops being JSON, or the path and offset of
// the value that is not what inspect_ai's model takes there (walk.error).
//
// The decoder it replaced (goccy over the whole document after the
// rewrite, NaN rewritten to strings) is the reference it is held to in the
// tests (reference_test.go: TestWalkAsReference on every sample of the
// fixtures and both corpora, FuzzWalk on any document), but where goccy is
// not Python (divergent: keys matched without regard to case, a NaN taken
// for a string).

// maxFastDepth is the nesting past which the walk refuses a document, as
// the decoder it replaced did (and lastKeyWins stops looking).
const maxFastDepth = maxKeyDepth

// walkSample decodes raw into d (reset); d refers into raw. A document that
// repeats a key in an object whose keys matter, or spells such a key with an
// escape, is errRewrite: decode walks lastKeyWins' rewrite of it instead,
// canonical (see walk.canonical).
func (d *DecodedSample) walkSample(raw []byte, canonical bool) error {
	w := &walk{b: raw, mayIndex: true, canonical: canonical}
	defer w.release()
	i := ws(raw, 0)
	end, ok := w.members(i, d.sampleMember)
	if ok && ws(raw, end) != len(raw) {
		w.failAt, ok = ws(raw, end)+1, false
	}
	if !ok {
		return w.error()
	}
	return nil
}

// errRewrite is walkSample's error for a document the walk takes only after
// lastKeyWins' rewrite.
var errRewrite = errors.New("a key repeated or spelled with an escape")

// walk is the walk over one sample (or a raw value of one).
type walk struct {
	b []byte
	// The structural index of b (scan.go), built at the first container
	// skipChecked meets if mayIndex: indexed is 0 until then, 1 if built,
	// -1 if not (b short, no AVX2, an error in b).
	mayIndex bool
	indexed  int8
	idx      *structIndex
	// checkOnly has stringValue check a string (as the decoder would
	// take it) without making it: for a value decoded only to be checked.
	checkOnly bool
	// canonical is set on a document lastKeyWins rewrote: no object repeats
	// a key, as Python decodes keys, so a key spelled with an escape is
	// decoded and taken for what it says. Otherwise such a key, or a
	// repeated one, where it matters (rewrite) stops the walk for the
	// rewrite: which member of two equal keys counts, and whether a
	// field is named, is Python's to say.
	canonical, rewrite bool
	// Where the walk stopped, for its error: failAt is 1 + the offset of
	// the value that is not what the decoder takes, or where a skip found
	// the document is not JSON (0 while it goes on); path the keys and
	// indices from that value up, innermost first.
	failAt  int
	path    []string
	tooDeep bool // a skip met a value nested deeper than maxFastDepth
}

// error is the walk's error once it has stopped: errRewrite, a syntax error
// at the offset where the document stops being JSON, or the value that is
// not what inspect_ai's model takes, named by its path.
func (w *walk) error() error {
	if w.rewrite {
		return errRewrite
	}
	if err := syntaxError(w.b); err != nil {
		return err
	}
	at := max(w.failAt-1, 0)
	path := "the sample"
	if len(w.path) > 0 {
		var b strings.Builder
		for i := len(w.path) - 1; i >= 0; i-- {
			if p := w.path[i]; p[0] != '[' && i < len(w.path)-1 {
				b.WriteByte('.')
			}
			b.WriteString(w.path[i])
		}
		path = b.String()
	}
	what := "nothing"
	if at < len(w.b) {
		what = kindOf(w.b[at]).String()
		switch {
		case what == "":
			what = "no JSON value"
		case strings.IndexByte("aeiou", what[0]) >= 0:
			what = "an " + what
		default:
			what = "a " + what
		}
	}
	return fmt.Errorf("%s: %s at offset %d (near %q), which is not what inspect_ai's model takes there", path, what, at, near(w.b, at))
}

// near is the text around offset at of b, for an error.
func near(b []byte, at int) []byte {
	return b[max(0, at-30):min(len(b), at+30)]
}

// syntaxError is nil if b is one JSON value with only whitespace around it
// (NaN and Infinity literals taken), else where it stops being one: invalid
// JSON, or nested deeper than maxFastDepth.
func syntaxError(b []byte) error {
	w := &walk{b: b, canonical: true}
	i := ws(b, 0)
	end, ok := w.skipPortable(i, false)
	at := max(w.failAt-1, i)
	if ok {
		if end = ws(b, end); end == len(b) {
			return nil
		}
		at = end
	}
	if w.tooDeep {
		return fmt.Errorf("JSON nested deeper than %d (the depth inspect_ai's decoder takes) at offset %d", maxFastDepth, at)
	}
	return fmt.Errorf("invalid JSON at offset %d near %q", at, near(b, at))
}

// failed records, as a walk that stopped goes back up, the key or index at
// which it stopped and, at the innermost, the value's offset: the error's
// path.
func (w *walk) failed(name string, vs int) {
	if w.rewrite {
		return
	}
	if len(w.path) == 0 && w.failAt == 0 {
		w.failAt = vs + 1
	}
	w.path = append(w.path, name)
}

// sampleMember decodes the member of the sample whose key (without its
// quotes) is key and whose value starts at b[vs]; it returns the value's
// end.
func (d *DecodedSample) sampleMember(w *walk, key []byte, vs int) (int, bool) {
	switch string(key) {
	case "id":
		return w.rawValue(vs, &d.ID)
	case "epoch":
		return w.intField(vs, &d.Epoch)
	case "uuid":
		return w.stringValue(vs, &d.UUID)
	case "metadata":
		return w.rawValue(vs, &d.Metadata)
	case "attachments":
		return w.stringMap(vs, &d.Attachments)
	case "transcript":
		// a 2024 log's events and attachments
		return nullable(w, vs, &d.Transcript, func(w *walk, vs int, t *Transcript) (int, bool) {
			return w.members(vs, func(w *walk, k []byte, vs int) (int, bool) {
				switch string(k) {
				case "events":
					t.index = t.index[:0]
					return eventList(w, vs, &t.Events, &t.index)
				case "content":
					return w.rawValue(vs, &t.Content)
				}
				return w.skipField(vs)
			})
		})
	case "output":
		if w.isNullAt(vs) {
			d.Output = SampleOutput{Null: true} // refused by validate, as inspect_ai refuses it
			return vs + 4, true
		}
		d.Output = SampleOutput{ModelOutput: new(ModelOutput)}
		return w.modelOutput(vs, d.Output.ModelOutput, true)
	case "error":
		return nullable(w, vs, &d.Error, func(w *walk, vs int, e *EvalError) (int, bool) {
			return w.members(vs, func(w *walk, k []byte, vs int) (int, bool) {
				if string(k) == "message" {
					return w.stringValue(vs, &e.Message)
				}
				return w.skipField(vs)
			})
		})
	case "limit":
		return nullable(w, vs, &d.Limit, func(w *walk, vs int, l *SampleLimit) (int, bool) {
			return w.members(vs, func(w *walk, k []byte, vs int) (int, bool) {
				if string(k) == "type" {
					return w.stringValue(vs, &l.Type)
				}
				return w.skipField(vs)
			})
		})
	case "scores":
		return d.scores(w, vs)
	case "score":
		return nullable(w, vs, &d.Score, (*walk).scoreValue)
	case "events":
		return d.events(w, vs)
	case "events_data":
		return nullable(w, vs, &d.EventsData, func(w *walk, vs int, p *Pools) (int, bool) {
			return w.members(vs, func(w *walk, k []byte, vs int) (int, bool) {
				if string(k) == "messages" {
					return w.rawElements(vs, &p.Messages)
				}
				return w.skipField(vs)
			})
		})
	case "message_pool":
		return w.rawElements(vs, &d.MessagePool)
	case "started_at":
		return w.datetimeValue(vs, &d.StartedAt)
	case "completed_at":
		return w.datetimeValue(vs, &d.CompletedAt)
	case "total_time":
		return w.floatValue(vs, &d.TotalTime)
	case "working_time":
		return w.floatValue(vs, &d.WorkingTime)
	case "turn_count":
		return w.intField(vs, &d.TurnCount)
	case "token_limit":
		return w.intField(vs, &d.TokenLimit)
	case "token_limit_usage":
		return w.intField(vs, &d.TokenLimitUsage)
	case "message_limit":
		return w.intField(vs, &d.MessageLimit)
	case "time_limit":
		return w.intField(vs, &d.TimeLimit)
	}
	if k := d.kindOnlyField(key); k != nil { // only its kind is checked (validate)
		end, ok := w.skipLoose(vs)
		*k = jsonKind{kindOf(w.b[vs]), true}
		return end, ok
	}
	return w.skipField(vs)
}

// kindOnlyField is the field of Sample whose kind alone is kept that key names
// (kindFields), or nil.
func (d *DecodedSample) kindOnlyField(key []byte) *jsonKind {
	switch string(key) {
	case "input":
		return &d.Input
	case "target":
		return &d.Target
	case "choices":
		return &d.Choices
	case "description":
		return &d.Description
	case "sandbox":
		return &d.Sandbox
	case "files":
		return &d.Files
	case "setup":
		return &d.Setup
	case "messages":
		return &d.Messages
	case "store":
		return &d.Store
	case "timelines":
		return &d.Timelines
	case "model_usage":
		return &d.ModelUsage
	case "role_usage":
		return &d.RoleUsage
	case "model_fallbacks":
		return &d.ModelFallbacks
	case "invalidation":
		return &d.Invalidation
	case "error_retries":
		return &d.ErrorRetries
	case "token_limit_type":
		return &d.TokenLimitType
	}
	return nil
}

// decodeOutput decodes a ModelOutput (validated, not null) by the walk,
// as the decoder decodes it, its completion only if completion, or reports
// false for one the walk does not take.
func decodeOutput(raw []byte, o *ModelOutput, completion bool) bool {
	w := &walk{b: raw}
	i := ws(raw, 0)
	end, ok := w.modelOutput(i, o, completion)
	return ok && ws(raw, end) == len(raw)
}

// modelOutput decodes the ModelOutput object at b[vs]; its completion,
// which the tables read of sample.output only, is decoded if completion
// and otherwise only checked (a call's completion is a copy of its reply's
// text, often thousands of bytes).
func (w *walk) modelOutput(vs int, o *ModelOutput, completion bool) (int, bool) {
	return w.members(vs, func(w *walk, k []byte, vs int) (int, bool) {
		switch string(k) {
		case "model":
			return w.nonNullString(vs, &o.Model) // a str with a default: null refused
		case "completion":
			if !completion {
				return w.stringSpan(vs)
			}
			return w.stringValue(vs, &o.Completion)
		case "choices":
			if w.isNullAt(vs) {
				return 0, false // a list with a default: inspect_ai refuses null
			}
			o.Choices = []Choice{}
			return w.elements(vs, func(w *walk, es int) (int, bool) {
				o.Choices = append(o.Choices, Choice{})
				return w.choice(es, &o.Choices[len(o.Choices)-1])
			})
		case "usage":
			return nullable(w, vs, &o.Usage, (*walk).usage)
		case "error":
			if w.isNullAt(vs) {
				o.Error = nil
				return vs + 4, true
			}
			var e string
			end, ok := w.stringValue(vs, &e)
			o.Error = &e
			return end, ok
		case "time":
			return w.floatValue(vs, &o.Time)
		}
		return w.skipField(vs)
	})
}

// nullable decodes the value at b[vs] into a new T that *dst points to,
// by decode; null sets *dst to nil (an optional object of the model).
func nullable[T any](w *walk, vs int, dst **T, decode func(w *walk, vs int, t *T) (int, bool)) (int, bool) {
	if w.isNullAt(vs) {
		*dst = nil
		return vs + 4, true
	}
	t := new(T)
	*dst = t
	return decode(w, vs, t)
}

// choice decodes a Choice object (not null) at b[es]; its message is
// required (ChatCompletionChoice.message), and not null.
func (w *walk) choice(es int, c *Choice) (int, bool) {
	hasMessage := false
	end, ok := w.members(es, func(w *walk, k []byte, vs int) (int, bool) {
		switch string(k) {
		case "message":
			hasMessage = !w.isNullAt(vs)
			return w.message(vs, &c.Message)
		case "stop_reason":
			// a Literal with a default: absent is "unknown", null refused
			return w.nonNullString(vs, &c.StopReason)
		case "stop_details":
			return nullable(w, vs, &c.StopDetails, func(w *walk, vs int, sd *StopDetails) (int, bool) {
				return w.members(vs, func(w *walk, k []byte, vs int) (int, bool) {
					switch string(k) {
					case "type":
						return w.stringValue(vs, &sd.Type)
					case "category":
						return w.stringValue(vs, &sd.Category)
					case "explanation":
						return w.stringValue(vs, &sd.Explanation)
					}
					return w.skipField(vs)
				})
			})
		}
		return w.skipField(vs)
	})
	return end, ok && (hasMessage || w.checkOnly)
}

// message decodes a Message object (null leaves it) at b[vs].
func (w *walk) message(vs int, m *Message) (int, bool) {
	if w.isNullAt(vs) {
		return vs + 4, true
	}
	return w.members(vs, func(w *walk, k []byte, vs int) (int, bool) {
		switch string(k) {
		case "role":
			return w.stringValue(vs, &m.Role)
		case "content":
			return w.contents(vs, &m.Content)
		case "tool_calls":
			return w.toolCalls(vs, &m.ToolCalls)
		}
		return w.skipField(vs)
	})
}

// toolCalls decodes a message's tool calls (null or a list) at b[vs].
func (w *walk) toolCalls(vs int, calls *[]ToolCall) (int, bool) {
	if w.isNullAt(vs) {
		*calls = nil
		return vs + 4, true
	}
	*calls = []ToolCall{}
	return w.elements(vs, func(w *walk, es int) (int, bool) {
		*calls = append(*calls, ToolCall{})
		tc := &(*calls)[len(*calls)-1]
		// ToolCall's id, function and arguments are required, the first
		// two strings, arguments a dict
		var id, function, args bool
		end, ok := w.members(es, func(w *walk, k []byte, vs int) (int, bool) {
			switch string(k) {
			case "function":
				function = !w.isNullAt(vs)
				return w.stringValue(vs, &tc.Function)
			case "id":
				id = !w.isNullAt(vs)
			case "arguments":
				args = w.b[vs] == '{'
			}
			return w.skipField(vs)
		})
		return end, ok && id && function && args // a null item too: a ToolCall is a dict
	})
}

// contents decodes message content: a string (one text item) or a list
// of content items. A ChatMessage's content is str | list[Content]:
// inspect_ai refuses null.
func (w *walk) contents(vs int, c *Contents) (int, bool) {
	b := w.b
	switch {
	case b[vs] == '"':
		var s string
		end, ok := w.stringValue(vs, &s)
		*c = Contents{{Type: "text", Text: s}}
		return end, ok
	case b[vs] != '[':
		return 0, false
	}
	items := Contents{}
	end, ok := w.elements(vs, func(w *walk, es int) (int, bool) {
		items = append(items, Content{})
		it := &items[len(items)-1]
		// ContentText.text and ContentReasoning.reasoning are required
		// strs (a content of another type does not look at them)
		var text, reasoning bool
		end, ok := w.members(es, func(w *walk, k []byte, vs int) (int, bool) {
			switch string(k) {
			case "type":
				return w.stringValue(vs, &it.Type)
			case "text":
				text = !w.isNullAt(vs)
				return w.stringValue(vs, &it.Text)
			case "reasoning":
				reasoning = !w.isNullAt(vs)
				return w.stringValue(vs, &it.Reasoning)
			case "summary":
				return w.stringValue(vs, &it.Summary)
			case "redacted":
				return w.boolValue(vs, &it.Redacted)
			case "refusal":
				if w.isNullAt(vs) {
					it.Refusal = nil
					return vs + 4, true
				}
				// bool | None, read as pydantic reads a bool ("yes", 1, ...)
				end, ok := w.skipChecked(vs)
				var r Bool
				if !ok || r.UnmarshalJSON(w.b[vs:end]) != nil {
					return 0, false
				}
				it.Refusal = (*bool)(&r)
				return end, true
			}
			return w.skipField(vs)
		})
		switch {
		case !ok || w.b[es] == 'n':
		case it.Type == "text" && !text, it.Type == "reasoning" && !reasoning:
			return 0, false
		}
		return end, ok
	})
	*c = items
	return end, ok
}

// usage decodes a Usage object (not null) at b[vs].
func (w *walk) usage(vs int, u *Usage) (int, bool) {
	return w.members(vs, func(w *walk, k []byte, vs int) (int, bool) {
		switch string(k) {
		// int with a default of 0: absent is 0, null refused (the
		// cache and reasoning counts are int | None)
		case "input_tokens":
			return w.nonNullInt(vs, &u.InputTokens)
		case "output_tokens":
			return w.nonNullInt(vs, &u.OutputTokens)
		case "total_tokens":
			return w.nonNullInt(vs, &u.TotalTokens)
		case "input_tokens_cache_write":
			return w.intField(vs, &u.CacheWriteTokens)
		case "input_tokens_cache_read":
			return w.intField(vs, &u.CacheReadTokens)
		case "reasoning_tokens":
			return w.intField(vs, &u.ReasoningTokens)
		}
		return w.skipField(vs)
	})
}

// intField and floatValue decode an Int or a Float by its UnmarshalJSON,
// given the value's bytes, as the decoder gives them.
func (w *walk) intField(vs int, n *Int) (int, bool) {
	end, ok := w.skipChecked(vs)
	return end, ok && n.UnmarshalJSON(w.b[vs:end]) == nil
}

// nonNullInt is intField of an int pydantic takes no null for.
func (w *walk) nonNullInt(vs int, n *Int) (int, bool) {
	if w.isNullAt(vs) {
		return 0, false
	}
	return w.intField(vs, n)
}

func (w *walk) floatValue(vs int, f *Float) (int, bool) {
	end, ok := w.skipChecked(vs)
	return end, ok && f.UnmarshalJSON(w.b[vs:end]) == nil
}

func (d *DecodedSample) scores(w *walk, vs int) (int, bool) {
	if w.isNullAt(vs) {
		return vs + 4, true
	}
	d.Scores = map[string]Score{}
	return w.mapMembers(vs, func(w *walk, k []byte, vs int) (int, bool) {
		var s Score
		end, ok := w.scoreValue(vs, &s)
		if ok {
			d.Scores[string(k)] = s
		}
		return end, ok
	})
}

// scoreValue decodes a Score object (not null) at b[vs].
func (w *walk) scoreValue(vs int, s *Score) (int, bool) {
	return w.members(vs, func(w *walk, k []byte, vs int) (int, bool) {
		switch string(k) {
		case "value":
			return w.rawValue(vs, &s.Value)
		case "reason":
			return w.rawOf(vs, &s.Reason, kString|kNull)
		case "answer":
			return w.rawOf(vs, &s.Answer, kString|kNull)
		case "explanation":
			return w.rawOf(vs, &s.Explanation, kString|kNull)
		case "metadata":
			return w.rawOf(vs, &s.Metadata, kObject|kNull)
		}
		return w.skipField(vs)
	})
}

// events decodes the events array, keeping the kinds the tables read.
func (d *DecodedSample) events(w *walk, vs int) (int, bool) {
	d.eventIndex = d.eventIndex[:0]
	return eventList(w, vs, &d.Events, &d.eventIndex)
}

// eventList decodes the events array at b[vs] into *dst, keeping the kinds
// the tables read (and an event of a kind none of inspect_ai's, for
// validate to name), and each kept event's place in the array in *index.
func eventList(w *walk, vs int, dst *[]Event, index *[]int) (int, bool) {
	b := w.b
	if b[vs] != '[' {
		return 0, false // a list (EvalSample.events: list[Event], no None)
	}
	n := -1
	return w.elements(vs, func(w *walk, es int) (int, bool) {
		n++
		if b[es] != '{' {
			return 0, false
		}
		var ev eventSpans
		end, ok := w.members(es, ev.member)
		if !ok {
			return 0, false
		}
		kind, keep, ok := ev.kind(w)
		if !ok {
			return 0, false
		}
		if keep {
			*dst = append(*dst, Event{})
			*index = append(*index, n)
			if !ev.decode(w, kind, &(*dst)[len(*dst)-1]) {
				return 0, false
			}
		}
		return end, true
	})
}

// eventSpans are where an event's fields lie: strings and raw values as
// spans (a string's decoded only if the event is kept), the rest decoded.
type eventSpans struct {
	str       [numEventStrings]span
	input     span
	inputRefs span
	config    span
	output    span
	decoded   *ModelOutput // output, decoded where the walk met it (member)
	err       span
	pending   bool
	tools     int  // the tools list's length, if hasTools
	hasTools  bool // a tools key whose value is a list, not null
	working   Float
	unixTime  string // the timestamp, where it is a number, as a datetime string
	toolsNull bool   // a tools key whose value is null
}

type span struct{ start, end int }

// timestampValue reads an event's timestamp as inspect_ai's UtcDatetime
// takes one (inspect_ai._util.dateutil): a string, which fromisoformat
// parses (checked with the event, checkEvent; "" it refuses), or a number,
// which pydantic reads as Unix time (unixTimestamp); not null, nor any
// other kind.
func (ev *eventSpans) timestampValue(w *walk, vs int) (int, bool) {
	b := w.b
	if b[vs] == '"' {
		end, ok := w.stringSpan(vs)
		ev.str[evTimestamp] = span{vs, end}
		return end, ok && end > vs+2
	}
	if kindOf(b[vs]) != kNumber {
		return 0, false
	}
	end, ok := w.scalarEnd(vs)
	if !ok {
		return 0, false
	}
	us, ok := unixTimestamp(b[vs:end])
	if !ok {
		return 0, false
	}
	ev.str[evTimestamp] = span{}
	ev.unixTime = unixTimeString(us)
	return end, true
}

// The string fields of Event (the ev* indices into eventSpans.str,
// numEventStrings, eventString from a json key to its index and
// Event.stringFields) are generated from the struct: after editing Event,
// run go generate (TestEventFieldsGenerated fails until then).
//go:generate go run ./internal/genfields

func (ev *eventSpans) member(w *walk, k []byte, vs int) (int, bool) {
	b := w.b
	if f := eventString(k); f >= 0 {
		if f == evTimestamp {
			return ev.timestampValue(w, vs)
		}
		end, ok := w.stringSpan(vs)
		ev.str[f] = span{vs, end}
		return end, ok
	}
	switch string(k) {
	case "pending":
		// a Bool, read as pydantic reads one ("yes", 1, ...)
		end, ok := w.skipChecked(vs)
		var p Bool
		if !ok || p.UnmarshalJSON(w.b[vs:end]) != nil {
			return 0, false
		}
		ev.pending = bool(p)
		return end, true
	case "input":
		return w.rawSpan(vs, &ev.input)
	case "input_refs":
		end, ok := w.skipChecked(vs)
		ev.inputRefs = span{vs, end}
		return end, ok && inputRefs(b[vs:end], nil) != nil
	case "tools":
		return ev.toolsValue(w, vs)
	case "config":
		return w.rawSpan(vs, &ev.config)
	case "output":
		if ev.isModel(b) && !w.isNullAt(vs) {
			// Decoded as it is met (inspect_ai writes a model event's kind
			// before its output), not skipped here and walked again by
			// ModelOutput. An output the walk does not take is kept raw,
			// for ModelOutput's decoder, as before.
			o := new(ModelOutput)
			if end, ok := w.modelOutput(vs, o, false); ok {
				ev.output, ev.decoded = span{vs, end}, o
				return end, true
			}
		}
		return w.rawSpan(vs, &ev.output)
	case "error":
		return w.rawSpan(vs, &ev.err)
	case "working_time":
		return w.floatValue(vs, &ev.working)
	}
	return w.skipField(vs)
}

// toolsValue counts the tools list's items (Event.Tools is only counted):
// objects, as the decoder wants them.
func (ev *eventSpans) toolsValue(w *walk, vs int) (int, bool) {
	b := w.b
	if w.isNullAt(vs) {
		ev.hasTools, ev.toolsNull = false, true
		return vs + 4, true
	}
	n := 0
	end, ok := w.elements(vs, func(w *walk, es int) (int, bool) {
		n++
		if b[es] != '{' && !w.isNullAt(es) {
			return 0, false
		}
		return w.skipLoose(es)
	})
	ev.tools, ev.hasTools = n, true
	return end, ok
}

// isModel reports whether the event's kind, if met already, is "model"
// as the walk takes it (no escape).
func (ev *eventSpans) isModel(b []byte) bool {
	s := ev.str[evEvent]
	return s.end-s.start == len(`"model"`) && string(b[s.start:s.end]) == `"model"`
}

// kind is the event's kind, decoded ("" where it has none), and whether it
// is kept: a kind the tables read, or none of inspect_ai's (which validate
// names, as inspect_ai refuses it).
func (ev *eventSpans) kind(w *walk) (kind string, keep, ok bool) {
	s := ev.str[evEvent]
	if s.end == 0 {
		return "", true, true
	}
	switch v := w.b[s.start:s.end]; string(v) {
	case `"model"`:
		return "model", true, true
	case `"span_begin"`:
		return "span_begin", true, true
	case `"step"`:
		return "step", true, true
	default:
		if kind, ok = decodeStringSpan(v); !ok {
			return "", false, false
		}
	}
	return kind, keptEvents[kind] || !inspectEventKinds[kind], true
}

// decode fills e, a zero Event, from the spans.
func (ev *eventSpans) decode(w *walk, kind string, e *Event) bool {
	b := w.b
	// strs that are not None: ModelEvent.model (required), SpanBeginEvent's
	// id and name, StepEvent.name; a ModelEvent's tools (a list) and
	// config (a GenerateConfig, whose max_tokens and temperature the tables
	// read) are not null either. Of these only the model's absence is
	// refused: the project's own shapes of events leave the others out.
	null := func(f int) bool { s := ev.str[f]; return s.end > 0 && w.isNullAt(s.start) }
	switch kind {
	case "model":
		if ev.str[evModel].end == 0 || null(evModel) || ev.toolsNull ||
			ev.config.end > 0 && !validGenerateConfig(ev.config.of(b)) {
			return false
		}
	case "span_begin":
		if null(evID) || null(evName) {
			return false
		}
	case "step":
		if null(evName) {
			return false
		}
	}
	e.Event = kind
	strs := e.stringFields()
	for f := range numEventStrings {
		if s := ev.str[f]; f != evEvent && s.end > 0 {
			v, ok := decodeStringSpan(b[s.start:s.end])
			if !ok {
				return false
			}
			*strs[f] = v
		}
	}
	if ev.unixTime != "" && ev.str[evTimestamp].end == 0 {
		e.Timestamp = ev.unixTime
	}
	e.Pending = Bool(ev.pending)
	e.Input, e.Config, e.Output, e.Error = ev.input.of(b), ev.config.of(b), ev.output.of(b), ev.err.of(b)
	e.decoded = ev.decoded
	if s := ev.inputRefs; s.end > 0 {
		e.InputRefs = inputRefs(b[s.start:s.end], [][]int{})
	}
	if ev.hasTools {
		e.Tools = make([]struct{}, ev.tools)
	}
	e.WorkingTime = ev.working
	return true
}

func (s span) of(b []byte) json.RawMessage {
	if s.end == 0 {
		return nil
	}
	return b[s.start:s.end]
}

// inputRefs decodes input_refs (validated JSON): null, or an array of
// arrays (or nulls) of integers, as the decoder decodes [][]int, appended
// to out; nil if it is of another shape. With out nil it only checks the
// shape, returning a non-nil slice when it holds.
func inputRefs(v []byte, out [][]int) [][]int {
	check := out == nil
	if check {
		out = [][]int{}
	}
	if string(v) == "null" {
		return out
	}
	i := ws(v, 0)
	if i >= len(v) || v[i] != '[' {
		return nil
	}
	w := &walk{b: v}
	good := true
	_, ok := w.elements(i, func(w *walk, es int) (int, bool) {
		if w.isNullAt(es) {
			if !check {
				out = append(out, nil)
			}
			return es + 4, true
		}
		var pair []int
		if !check {
			pair = []int{}
		}
		end, ok := w.elements(es, func(w *walk, is int) (int, bool) {
			var n int
			end, ok := w.intValue(is, &n)
			if ok && !check {
				pair = append(pair, n)
			}
			return end, ok
		})
		if !check {
			out = append(out, pair)
		}
		good = good && ok
		return end, ok
	})
	if !ok || !good {
		return nil
	}
	return out
}

// members walks the object at b[i], a struct's, calling fn with each
// member's key (without its quotes, or decoded if it holds an escape) and
// where its value starts; fn consumes the value and returns its end. It
// reports false for anything that is not a well-formed object or null (no
// members), and (but in a canonical walk) for a key repeated or spelled
// with an escape, setting w.rewrite.
func (w *walk) members(i int, fn func(w *walk, key []byte, vs int) (int, bool)) (int, bool) {
	return w.walkObject(i, fn)
}

// mapMembers is members for an object decoded into a map.
func (w *walk) mapMembers(i int, fn func(w *walk, key []byte, vs int) (int, bool)) (int, bool) {
	return w.walkObject(i, fn)
}

func (w *walk) walkObject(i int, fn func(w *walk, key []byte, vs int) (int, bool)) (int, bool) {
	b := w.b
	if w.isNullAt(i) {
		return i + 4, true // no members: a struct left zero, as goccy leaves it
	}
	if i >= len(b) || b[i] != '{' {
		return 0, false
	}
	var keysArr [32]span
	keys, ks := keysArr[:0], keySet{}
	i = ws(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, true
	}
	for {
		ke, escaped, ok := w.checkString(i)
		if !ok {
			return 0, false
		}
		key := b[i+1 : ke-1]
		switch {
		case escaped && !w.canonical:
			w.rewrite = true // which field it names, or whether it repeats one, is the rewrite's
			return 0, false
		case escaped || !ascii(key) && !utf8.Valid(key):
			// as the decoder reads it: escapes resolved, invalid UTF-8
			// replaced
			s, err := DecodeString(b[i:ke])
			if err != nil {
				return 0, false
			}
			key = []byte(s)
		case !w.canonical:
			if ks.repeats(keys, b, i+1, ke-1) {
				w.rewrite = true // the last member counts: the rewrite's
				return 0, false
			}
			keys = append(keys, span{i + 1, ke - 1})
		}
		j := ws(b, ke)
		if j >= len(b) || b[j] != ':' {
			return 0, false
		}
		vs := ws(b, j+1)
		if vs >= len(b) {
			return 0, false
		}
		ve, ok := fn(w, key, vs)
		if !ok {
			w.failed(string(key), vs)
			return 0, false
		}
		i = ws(b, ve)
		if i >= len(b) {
			return 0, false
		}
		switch b[i] {
		case ',':
			i = ws(b, i+1)
		case '}':
			return i + 1, true
		default:
			return 0, false
		}
	}
}

// elements walks the array at b[i], calling fn with where each element
// starts; fn consumes it and returns its end.
func (w *walk) elements(i int, fn func(w *walk, es int) (int, bool)) (int, bool) {
	b := w.b
	if i >= len(b) || b[i] != '[' {
		return 0, false
	}
	i = ws(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, true
	}
	for n := 0; ; {
		if i >= len(b) {
			return 0, false
		}
		ve, ok := fn(w, i)
		if !ok {
			w.failed("["+strconv.Itoa(n)+"]", i)
			return 0, false
		}
		n++
		i = ws(b, ve)
		if i >= len(b) {
			return 0, false
		}
		switch b[i] {
		case ',':
			i = ws(b, i+1)
		case ']':
			return i + 1, true
		default:
			return 0, false
		}
	}
}

// ascii reports whether b is all ASCII, eight bytes at a time (a key is
// nearly always short and ASCII).
func ascii(b []byte) bool {
	for len(b) >= 8 {
		if binary.LittleEndian.Uint64(b)&0x8080808080808080 != 0 {
			return false
		}
		b = b[8:]
	}
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// The keys of one object, to tell a repeated one: a 64-bit filter of them
// (keyBitIn), and past 32 keys a set of their hashes (an object of many
// keys, such as the attachments), where a collision counts as a repeat.
type keySet struct {
	filter uint64
	hashes map[uint64]struct{}
}

// repeats adds the key b[start:end] to s, whose keys so far are keys (the
// caller appends it to them), and reports whether the object holds it
// already.
func (s *keySet) repeats(keys []span, b []byte, start, end int) bool {
	if s.hashes == nil && len(keys) < 32 {
		bit := keyBitIn(b, start, end)
		if s.filter&bit != 0 && s.repeatsIn(keys, b, start, end) {
			return true
		}
		s.filter |= bit
		return false
	}
	key := b[start:end]
	if s.hashes == nil {
		s.hashes = make(map[uint64]struct{}, 2*len(keys))
		for _, k := range keys {
			s.hashes[maphash.Bytes(keySeed, b[k.start:k.end])] = struct{}{}
		}
	}
	h := maphash.Bytes(keySeed, key)
	if _, ok := s.hashes[h]; ok {
		return true
	}
	s.hashes[h] = struct{}{}
	return false
}

// repeatsIn reports whether keys holds the key b[start:end].
func (s *keySet) repeatsIn(keys []span, b []byte, start, end int) bool {
	key := b[start:end]
	for _, k := range keys {
		if bytes.Equal(b[k.start:k.end], key) {
			return true
		}
	}
	return false
}

// keyBitIn is a bit of 64 picked by the key b[start:end]: equal keys pick
// the same bit. A short key is read eight bytes at a time where b has them.
func keyBitIn(b []byte, start, end int) uint64 {
	if n := end - start; n < 8 && start+8 <= len(b) {
		return keyBitOf(n, binary.LittleEndian.Uint64(b[start:])&(1<<(8*n)-1))
	}
	return keyBitSlow(b, start, end)
}

func keyBitSlow(b []byte, start, end int) uint64 {
	n := end - start
	if n >= 8 {
		return keyBitOf(n, binary.LittleEndian.Uint64(b[start:])^binary.LittleEndian.Uint64(b[end-8:])*0xC2B2AE3D27D4EB4F)
	}
	var v uint64
	for k := end - 1; k >= start; k-- {
		v = v<<8 | uint64(b[k])
	}
	return keyBitOf(n, v)
}

func keyBitOf(n int, v uint64) uint64 {
	return 1 << (((uint64(n)*0x9E3779B97F4A7C15 ^ v) * 0x9E3779B97F4A7C15) >> 58)
}

// skipField skips the value of a member whose key names no field decoded:
// nothing of it is kept, so its objects' keys are not looked at (skipLoose).
func (w *walk) skipField(vs int) (int, bool) {
	return w.skipLoose(vs)
}

func (w *walk) isNullAt(i int) bool {
	b := w.b
	return i+4 <= len(b) && string(b[i:i+4]) == "null" && (i+4 == len(b) || !isScalarByte(b[i+4]))
}

// rawValue sets *dst to the value at b[vs], checked, as a sub-slice.
func (w *walk) rawValue(vs int, dst *json.RawMessage) (int, bool) {
	b := w.b
	end, ok := w.skipChecked(vs)
	if ok {
		*dst = b[vs:end]
	}
	return end, ok
}

// rawOf is rawValue of a value of one of the kinds kinds (a score's
// answer, str | None).
func (w *walk) rawOf(vs int, dst *json.RawMessage, kinds jsonKinds) (int, bool) {
	if kindOf(w.b[vs])&kinds == 0 {
		return 0, false
	}
	return w.rawValue(vs, dst)
}

// stringMap is rawValue of a dict[str, str] (the sample's attachments:
// not null), each value checked to be a string.
func (w *walk) stringMap(vs int, dst *json.RawMessage) (int, bool) {
	if w.b[vs] != '{' {
		return 0, false
	}
	end, ok := w.members(vs, func(w *walk, k []byte, vs int) (int, bool) {
		if w.b[vs] != '"' {
			return 0, false
		}
		end, _, ok := w.checkString(vs)
		return end, ok
	})
	if ok {
		*dst = w.b[vs:end]
	}
	return end, ok
}

// nonNullString is stringValue of a str pydantic takes no null for.
func (w *walk) nonNullString(vs int, dst *string) (int, bool) {
	if w.isNullAt(vs) {
		return 0, false
	}
	return w.stringValue(vs, dst)
}

func (w *walk) rawSpan(vs int, dst *span) (int, bool) {
	end, ok := w.skipChecked(vs)
	*dst = span{vs, end}
	return end, ok
}

// rawElements sets *dst to the elements of the array (or null) at b[vs].
func (w *walk) rawElements(vs int, dst *[]json.RawMessage) (int, bool) {
	b := w.b
	if w.isNullAt(vs) {
		*dst = nil
		return vs + 4, true
	}
	out := []json.RawMessage{}
	end, ok := w.elements(vs, func(w *walk, es int) (int, bool) {
		ve, ok := w.skipChecked(es)
		if ok {
			out = append(out, b[es:ve])
		}
		return ve, ok
	})
	*dst = out
	return end, ok
}

// stringSpan checks that the value at b[vs] is a string or null, and
// returns its end.
func (w *walk) stringSpan(vs int) (int, bool) {
	if w.isNullAt(vs) {
		return vs + 4, true
	}
	end, _, ok := w.checkString(vs)
	return end, ok
}

// stringValue decodes the string (or null, which leaves *dst) at b[vs];
// with checkOnly it only checks it.
func (w *walk) stringValue(vs int, dst *string) (int, bool) {
	b := w.b
	if w.checkOnly {
		return w.stringSpan(vs)
	}
	if w.isNullAt(vs) {
		return vs + 4, true
	}
	end, _, ok := w.checkString(vs)
	if !ok {
		return 0, false
	}
	s, ok := decodeStringSpan(b[vs:end])
	*dst = s
	return end, ok
}

// datetimeValue is stringValue of a datetime string (the shape check
// parses it, checkDatetime), where "" is refused: inspect_ai's validator
// gives it to fromisoformat, which refuses it, while "" in the decoded
// sample stands for none (null, or no key).
func (w *walk) datetimeValue(vs int, dst *string) (int, bool) {
	if vs+1 < len(w.b) && w.b[vs] == '"' && w.b[vs+1] == '"' {
		return 0, false
	}
	return w.stringValue(vs, dst)
}

// decodeStringSpan decodes a checked string value, or null ("").
func decodeStringSpan(v []byte) (string, bool) {
	if v[0] == 'n' {
		return "", true
	}
	body := v[1 : len(v)-1]
	if bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
		return string(body), true
	}
	s, err := DecodeString(v)
	return s, err == nil
}

func (w *walk) boolValue(vs int, dst *bool) (int, bool) {
	b := w.b
	switch {
	case w.isNullAt(vs):
		return vs + 4, true
	case vs+4 <= len(b) && string(b[vs:vs+4]) == "true":
		*dst = true
		return vs + 4, vs+4 == len(b) || !isScalarByte(b[vs+4])
	case vs+5 <= len(b) && string(b[vs:vs+5]) == "false":
		*dst = false
		return vs + 5, vs+5 == len(b) || !isScalarByte(b[vs+5])
	}
	return 0, false
}

// intValue decodes an integer literal (or null, which leaves *dst) that
// fits an int; a fraction or exponent is left to the decoder.
func (w *walk) intValue(vs int, dst *int) (int, bool) {
	b := w.b
	if w.isNullAt(vs) {
		return vs + 4, true
	}
	j := vs
	for j < len(b) && isScalarByte(b[j]) {
		j++
	}
	s := b[vs:j]
	if !isNumber(s) || bytes.ContainsAny(s, ".eE") {
		return 0, false
	}
	n, err := strconv.ParseInt(string(s), 10, strconv.IntSize)
	if err != nil {
		return 0, false
	}
	*dst = int(n)
	return j, true
}

// skipPortable returns the end of the JSON value at b[i], having checked
// all of it as the walk takes a sample (see there): well formed, strings
// without raw control bytes and with valid escapes, numbers and the
// literals true, false, null, NaN, Infinity and -Infinity, and if strict
// (and not canonical) no object that repeats a key and no key that is not
// plain (w.rewrite then). It
// walks the value once, without recursion, hopping through strings as
// mayRepeatKey does. skipChecked and skipLoose are this check by the
// structural index where there is one.
func (w *walk) skipPortable(i int, strict bool) (int, bool) {
	b := w.b
	if i >= len(b) {
		return w.stop(i)
	}
	switch b[i] {
	case '"':
		end, _, ok := w.checkString(i)
		if !ok {
			return w.stop(i)
		}
		return end, true
	case '{', '[':
	default:
		end, ok := w.scalarEnd(i)
		if !ok {
			return w.stop(i)
		}
		return end, true
	}
	var stackArr [12]frame
	var keysArr [40]span
	stack, keys := stackArr[:0], keysArr[:0]
	const (
		sValue        = iota // a value must follow
		sValueOrClose        // after '[': a value or ']'
		sKeyOrClose          // after '{': a key or '}'
		sKey                 // after ',' in an object
		sCommaOrClose        // after a value inside a container
	)
	state := sValue
	for {
		i = ws(b, i)
		if i >= len(b) {
			return w.stop(i)
		}
		c := b[i]
		switch state {
		case sValue, sValueOrClose:
			switch c {
			case '{', '[':
				if len(stack) >= maxFastDepth {
					w.tooDeep = true
					return w.stop(i)
				}
				stack = append(stack, frame{object: c == '{', first: len(keys)})
				if c == '{' {
					state = sKeyOrClose
				} else {
					state = sValueOrClose
				}
				i++
				continue
			case ']':
				if state != sValueOrClose {
					return w.stop(i)
				}
				stack = stack[:len(stack)-1]
				i++
			case '"':
				end, _, ok := w.checkString(i)
				if !ok {
					return w.stop(i)
				}
				i = end
			default:
				end, ok := w.scalarEnd(i)
				if !ok {
					return w.stop(i)
				}
				i = end
			}
		case sKeyOrClose, sKey:
			if c == '}' && state == sKeyOrClose {
				stack = stack[:len(stack)-1]
				i++
				break
			}
			if c != '"' {
				return w.stop(i)
			}
			ke, escaped, ok := w.checkString(i)
			if !ok {
				return w.stop(i)
			}
			if strict && !w.canonical {
				f := &stack[len(stack)-1]
				if escaped || f.keys.repeats(keys[f.first:], b, i+1, ke-1) {
					w.rewrite = true // the rewrite's (see walk.canonical)
					return 0, false
				}
				keys = append(keys, span{i + 1, ke - 1})
			}
			i = ws(b, ke)
			if i >= len(b) || b[i] != ':' {
				return w.stop(i)
			}
			i++
			state = sValue
			continue
		case sCommaOrClose:
			f := &stack[len(stack)-1]
			switch {
			case c == ',':
				i++
				if f.object {
					state = sKey
				} else {
					state = sValue
				}
				continue
			case c == '}' && f.object:
				keys = keys[:f.first]
			case c == ']' && !f.object:
			default:
				return w.stop(i)
			}
			stack = stack[:len(stack)-1]
			i++
		}
		// a value ended
		if len(stack) == 0 {
			return i, true
		}
		state = sCommaOrClose
	}
}

// stop is a skip's refusal of the document at b[i]: where it stops being
// JSON, for the error.
func (w *walk) stop(i int) (int, bool) {
	if w.failAt == 0 {
		w.failAt = i + 1
	}
	return 0, false
}

// frame is an open object or array of a skip.
type frame struct {
	object bool
	first  int // index in keys of the object's first key
	keys   keySet
}

// scalarEnd returns the end of the number or literal at b[i]: a JSON
// number, true, false or null, or one of the literals Python's json module
// writes and reads for a float that is not finite (NaN, Infinity,
// -Infinity), which inspect_ai's logs hold.
func (w *walk) scalarEnd(i int) (int, bool) {
	b := w.b
	j := i
	for j < len(b) && isScalarByte(b[j]) {
		j++
	}
	switch s := b[i:j]; {
	case isNumber(s):
		return j, true
	case string(s) == "true", string(s) == "false", string(s) == "null":
		return j, true
	case string(s) == "NaN", string(s) == "Infinity", string(s) == "-Infinity":
		return j, true
	}
	return 0, false
}

// checkString returns the end (past the closing quote) of the string at
// b[i], whether it holds an escape, and false when it is not closed, holds
// a raw control byte or an invalid escape. It looks for a quote, a
// backslash or a control byte 32 bytes at a time (indexSpecial), the last
// bytes of the sample 8 at a time.
func (w *walk) checkString(i int) (end int, escaped, ok bool) {
	b := w.b
	if i >= len(b) || b[i] != '"' {
		return 0, false, false
	}
	j := i + 1
	for {
		// 32 bytes at a time (indexSpecial) while 32 are left, the end of
		// the sample 8 at a time.
		k, found := indexSpecial(b[j:])
		k += j
		if !found {
			k = indexSpecialWords(b, k)
		}
		if k >= len(b) {
			return 0, false, false
		}
		switch c := b[k]; {
		case c == '"':
			return k + 1, escaped, true
		case c == '\\':
			n := escapeLen(b[k:])
			if n <= 0 {
				return 0, false, false
			}
			escaped = true
			j = k + n
		default:
			return 0, false, false
		}
	}
}

// indexSpecialWords is the index of the first quote, backslash or control
// byte of b from i on, or len(b): eight bytes at a time, then one.
func indexSpecialWords(b []byte, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		q, s := x^(0x22*ones), x^(0x5c*ones)
		if m := ((q-ones)&^q | (s-ones)&^s | (x-0x20*ones)&^x) & highs; m != 0 {
			return i + bits.TrailingZeros64(m)/8 // the lowest flagged byte is exact
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c == '"' || c == '\\' || c < 0x20 {
			return i
		}
	}
	return i
}

// ws returns the index of the first byte from i on that is not JSON
// whitespace. Compact JSON has none between tokens; an indented log has a
// line break and a run of spaces, passed over eight at a time.
func ws(b []byte, i int) int {
	if i < len(b) && b[i] > ' ' {
		return i
	}
	for i < len(b) {
		switch b[i] {
		case ' ':
			for i+8 <= len(b) {
				if x := binary.LittleEndian.Uint64(b[i:]) ^ 0x2020202020202020; x != 0 {
					i += bits.TrailingZeros64(x) / 8
					goto next
				}
				i += 8
			}
			// the last bytes, fewer than eight: one at a time (the byte
			// at i is not known to be a space)
			for i < len(b) && b[i] == ' ' {
				i++
			}
		case '\n', '\t', '\r':
			i++
		default:
			return i
		}
	next:
	}
	return i
}
