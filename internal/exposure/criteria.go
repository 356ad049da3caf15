package exposure

// Criterion is one of the four ways an eval is exposed to the empty-reply
// problem (pre-registration, section 4 "Exposure search").
type Criterion struct {
	Num   int32
	Name  string // the criterion_name column
	Title string // one line for the Markdown legend and the summary
}

// Criteria lists the four criteria in order.
var Criteria = []Criterion{
	{1, "empty_check", "uses preset_score_on_no_response, or tests the completion for emptiness itself"},
	{2, "unguarded_judge", "calls a judge with no emptiness or refusal check on the path to it"},
	{3, "max_tokens", "sets max_tokens"},
	{4, "refusal_signal", "reads stop_reason or a refusal flag, sets fail_on_refusal, or uses react(retry_refusals=...)"},
}

const (
	critEmptyCheck     = 1
	critUnguardedJudge = 2
	critMaxTokens      = 3
	critRefusalSignal  = 4
)

func criterionName(num int32) string { return Criteria[num-1].Name }

// The rules the scan applies, as data. Names are matched on the name a
// callee ends in, after import aliases (see module.baseName).
var (
	// inspect_ai scorers that send the completion to a grader model.
	judgeScorers = set("model_graded_qa", "model_graded_fact")

	// Returns a Model; `<model>.generate(...)` inside a scorer is a judge call.
	modelFactories = set("get_model")

	// Annotation names that mark a parameter as holding a Model.
	modelTypes = set("Model")

	// Annotation names of the state whose .output is the model under test's
	// output (a name `state` counts too).
	stateTypes = set("TaskState", "AgentState")

	// Screening wrappers (they keep an empty reply from the judge they wrap)
	// recognised by name when their definition is not under PATH (a source
	// tree scanned without utils/, say). When it is, any function that tests
	// the completion for emptiness and receives the scorer as an argument
	// counts as one.
	screenWrappers = set("preset_score_on_no_response")

	// String methods that keep "this is the completion text" for the
	// emptiness test: `not completion.strip()`.
	textMethods = set("strip", "lstrip", "rstrip", "lower", "upper", "casefold", "split", "splitlines")

	// Attributes that read a refusal or truncation signal (criterion 4).
	refusalAttrs = map[string]string{
		"stop_reason":  "reads stop_reason",
		"stop_details": "reads stop_details",
		"refusal":      "reads a content block's refusal flag",
	}

	// Keyword arguments that change how refusals are recorded (criterion 4).
	refusalKeywords = map[string]string{
		"fail_on_refusal": "sets fail_on_refusal (a content_filter stop becomes a sample error, excluded from metrics)",
		"retry_refusals":  "sets retry_refusals (react re-generates on content_filter)",
	}

	// Decorators and annotations that make a function a scorer.
	scorerDecorators = set("scorer")
	scorerTypes      = set("Scorer")
	taskDecorators   = set("task")
)

// maxTokensNote is printed with criterion 3: a cap the eval does not set is
// not always 2,048.
const maxTokensNote = "inspect_ai's DEFAULT_MAX_TOKENS (2,048) applies only to some providers; OpenAI, Anthropic and Google use their own defaults when max_tokens is unset."

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}
