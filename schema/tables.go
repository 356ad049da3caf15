package schema

// Log is a row of the logs table.
type Log struct {
	LogID        string   `parquet:"log_id" doc:"stable key of the log file (hash of its absolute path); joins every table"`
	Path         string   `parquet:"path" doc:"absolute path of the log file"`
	SHA256       string   `parquet:"sha256" doc:"SHA-256 of the file's bytes"`
	SizeBytes    int64    `parquet:"size_bytes" doc:"file size in bytes"`
	Format       string   `parquet:"format" vocab:"log_formats" doc:"eval (zip archive) or json"`
	Version      int64    `parquet:"version" doc:"log schema version (1, 2 or 3)"`
	Status       string   `parquet:"status" vocab:"log_statuses" doc:"started (running or killed: header from the journal; also a header without status, as EvalLog defaults it), success, cancelled or error"`
	HeaderSource string   `parquet:"header_source" vocab:"header_sources" doc:"header.json, _journal/start.json, or json"`
	EvalID       *string  `parquet:"eval_id,optional" doc:"eval id as stored (absent before inspect_ai 0.3.95)"`
	RunID        *string  `parquet:"run_id,optional" doc:"run id"`
	EvalSetID    *string  `parquet:"eval_set_id,optional" doc:"eval set id (eval sets only)"`
	TaskID       *string  `parquet:"task_id,optional" doc:"task id within the run"`
	Task         string   `parquet:"task" doc:"task registry name, possibly namespaced (inspect_evals/xstest)"`
	TaskVersion  *string  `parquet:"task_version,optional" doc:"task version, as text (int or str in the log)"`
	TaskArgs     *string  `parquet:"task_args,optional" sql:"JSON" doc:"task arguments (JSON)"`
	Model        string   `parquet:"model" doc:"model under test, provider/model"`
	ModelRoles   *string  `parquet:"model_roles,optional" sql:"JSON" doc:"model roles, role → {model, config, ...} (JSON)"`
	ModelArgs    *string  `parquet:"model_args,optional" sql:"JSON" doc:"model arguments (JSON)"`
	GenConfig    *string  `parquet:"generate_config,optional" sql:"JSON" doc:"the eval's generate config for the model under test: eval.model_generate_config (JSON)"`
	TaskConfig   *string  `parquet:"task_generate_config,optional" sql:"JSON" doc:"the task-level generate config: plan.config (JSON)"`
	EvalConfig   *string  `parquet:"eval_config,optional" sql:"JSON" doc:"eval run config: limits, epochs, fail_on_error, ... (JSON)"`
	MaxTokens    *int64   `parquet:"max_tokens,optional" doc:"max_tokens of the eval's generate config (generate_config, else task_generate_config); null = provider default"`
	InspectAI    *string  `parquet:"inspect_ai_version,optional" doc:"inspect_ai version that wrote the log (eval.packages; dev installs can be stale)"`
	Created      *int64   `parquet:"created,optional,timestamp(microsecond)" doc:"when the eval was created (UTC)"`
	Tags         []string `parquet:"tags,list" doc:"eval tags"`
	Metadata     *string  `parquet:"metadata,optional" sql:"JSON" doc:"eval metadata (JSON)"`
	Results      *string  `parquet:"results,optional" sql:"JSON" doc:"results as stored: scores and metrics (JSON, NaN literals kept)"`
	DatasetName  *string  `parquet:"dataset_name,optional" doc:"dataset name"`
	DatasetSize  *int64   `parquet:"dataset_samples,optional" doc:"number of samples in the dataset"`
	SampleCount  int64    `parquet:"sample_count" doc:"samples (sample × epoch records) ingested from this file"`
	SummaryCount *int64   `parquet:"summary_count,optional" doc:"sample summaries in the log (summaries.json or the journal); null for .json logs"`
	Error        *string  `parquet:"error,optional" doc:"the eval's error message (status error)"`
	Invalidated  bool     `parquet:"invalidated" doc:"the log was marked invalidated"`
	Modified     *int64   `parquet:"modified,optional,timestamp(microsecond)" doc:"the file's modification time when read (UTC); orders attempts after the name's timestamp"`
	ETag         *string  `parquet:"etag,optional" doc:"an object's ETag when it was listed (s3:// paths; NULL for a local file): a later ingest reads the object again when its size or ETag differs"`
	// The log's place in its log set (internal/logset): superseded logs'
	// rows stay in every table and are counted by no measure.
	SetStatus        string  `parquet:"set_status" vocab:"set_statuses" doc:"counted, or superseded: another file holds its samples (a newer attempt of the task, its recovered copy, its merged log); ingest --all-attempts counts every file"`
	SupersededBy     *string `parquet:"superseded_by,optional" doc:"log_id of the file that supersedes it directly (null when counted)"`
	SupersededReason *string `parquet:"superseded_reason,optional" vocab:"superseded_reasons" doc:"retried (a newer attempt of the task), recovered (its -recovered copy), merged_shards (a shard its finished merged log covers) or duplicate (another copy of the same eval); null when counted"`
	IngestVersion    string  `parquet:"ingest_version" doc:"what read the file: the ingest tables' columns, the classification rules and the extraction rules (ingest.ExtractVersion), not the build; a later ingest into the dataset reads a file again when it differs"`
}

// Reply is a row of the replies table.
type Reply struct {
	LogID        string  `parquet:"log_id" label:"log key" format:"identifier" show:"never" doc:"log file key (logs.log_id)"`
	EvalID       *string `parquet:"eval_id,optional" label:"eval id" format:"identifier" doc:"eval id"`
	Task         string  `parquet:"task" label:"task" format:"identifier" doc:"task name"`
	Model        string  `parquet:"model" label:"model" format:"identifier" doc:"model under test (the eval's model)"`
	SampleID     string  `parquet:"sample_id" label:"sample" format:"identifier" doc:"sample id as text"`
	SampleIDType string  `parquet:"sample_id_type" label:"sample id type" format:"identifier" vocab:"sample_id_types" doc:"int or str: the JSON type of the id (\"0\" and 0 are different ids)"`
	Epoch        int64   `parquet:"epoch" label:"epoch" format:"count" doc:"epoch, from 1"`
	SampleUUID   *string `parquet:"sample_uuid,optional" label:"sample uuid" format:"identifier" doc:"globally unique sample-run id (inspect_ai 0.3.70+)"`
	Member       string  `parquet:"member" label:"member" format:"identifier" doc:"zip member (samples/<id>_epoch_<n>.json) or samples[i] for .json logs"`

	// How the reply is chosen (design rule 1; README "How the reply is
	// chosen"): the first model event of the model under test that is a
	// generation, in event order. A placeholder (pending, never completed) is
	// not one, and neither is an attempt that failed and was retried (an
	// errored event followed by another call of the same model, role and
	// input in the same span: inspect_ai's retry loop). Without such an event
	// the reply is sample.output, unless that output is a judge's.
	ReplySource         string  `parquet:"reply_source" label:"reply taken from" format:"identifier" vocab:"reply_sources" doc:"where the reply was taken from: model_event (the first model-under-test event that is a generation: placeholders and failed, retried attempts skipped), sample_output (the model under test made no call through Inspect's model API that completed, e.g. an agent driving an outside CLI or a log without events, so sample.output, which is no judge's output), or none (nothing of the model under test to read: no such event and no usable sample.output; the class is then the rules' reading of an absent output, e.g. no_choices or error)"`
	ReplyModel          *string `parquet:"reply_model,optional" label:"reply model" format:"identifier" doc:"model string of the reply's call (model_event), or sample.output.model (sample_output)"`
	CallError           *string `parquet:"call_error,optional" label:"call error" format:"text" doc:"error of the reply's model call: an attempt that failed and was not retried (its output is then a placeholder)"`
	FailedAttempts      int64   `parquet:"failed_attempts" label:"failed attempts" format:"count" doc:"model-under-test attempts listed before the reply that failed and were retried (model_calls.call_status retried): transient provider failures"`
	FirstAttemptError   *string `parquet:"first_attempt_error,optional" label:"first failed attempt" format:"text" doc:"the error of the first of those failed attempts; null when there was none"`
	PlaceholdersSkipped int64   `parquet:"placeholders_skipped" label:"placeholders skipped" format:"count" doc:"model-under-test placeholder events (pending, never completed) listed before the reply and skipped; all of the sample's when the reply is not a model event"`

	StopReason        *string  `parquet:"stop_reason,optional" label:"stop reason" format:"identifier" doc:"choices[0].stop_reason (legacy length → max_tokens); null with no choices"`
	StopDetailsType   *string  `parquet:"stop_details_type,optional" label:"stop_details type" format:"identifier" doc:"choices[0].stop_details.type"`
	StopDetailsCat    *string  `parquet:"stop_details_category,optional" label:"stop_details category" format:"identifier" doc:"choices[0].stop_details.category"`
	StopDetailsExpl   *string  `parquet:"stop_details_explanation,optional" label:"stop_details explanation" format:"text" doc:"choices[0].stop_details.explanation"`
	OutputError       *string  `parquet:"output_error,optional" label:"output error" format:"text" doc:"ModelOutput.error (set by some adapters on content-moderation errors)"`
	NChoices          *int64   `parquet:"n_choices,optional" label:"choices" format:"count" doc:"number of choices; null when there is no output at all"`
	Text              string   `parquet:"text" label:"text" format:"text" doc:"text content of the reply (text items only, joined by newlines; attachments resolved)"`
	TextChars         int64    `parquet:"text_chars" label:"text characters" format:"count" doc:"length of text in characters"`
	TextBlank         bool     `parquet:"text_blank" label:"blank text" format:"boolean" doc:"text is empty or whitespace only"`
	Refusal           bool     `parquet:"refusal" label:"refusal flag" format:"boolean" doc:"some text content item has refusal=true"`
	ReasoningPresent  bool     `parquet:"reasoning_present" label:"has reasoning" format:"boolean" doc:"the reply has reasoning content"`
	ReasoningChars    int64    `parquet:"reasoning_chars" label:"reasoning characters" format:"count" doc:"characters of readable reasoning (reasoning text; the summary of redacted blocks)"`
	ReasoningRedacted bool     `parquet:"reasoning_redacted" label:"reasoning redacted" format:"boolean" doc:"some reasoning block is redacted"`
	ReasoningText     string   `parquet:"reasoning_text" label:"reasoning" format:"text" doc:"the readable reasoning text, blocks joined by newlines"`
	ToolCallCount     int64    `parquet:"tool_call_count" label:"tool calls" format:"count" doc:"number of tool calls in the reply"`
	ToolCallFunctions []string `parquet:"tool_call_functions,list" label:"tool functions" format:"identifier" doc:"function names of the tool calls, in order"`
	ToolsOffered      *bool    `parquet:"tools_offered,optional" label:"tools offered" format:"boolean" doc:"the reply's call was offered tools (its event's tools list is non-empty); null when the log does not show it (reply from sample.output, no reply, or an event without a tools list)"`
	MaxTokens         *int64   `parquet:"max_tokens,optional" label:"max_tokens" format:"count" doc:"effective max_tokens of the reply's call"`
	MaxTokensSource   string   `parquet:"max_tokens_source" label:"max_tokens set by" format:"identifier" vocab:"max_tokens_sources" doc:"call (the call's config), eval (the eval's generate config), or unset (provider default)"`
	InputTokens       *int64   `parquet:"input_tokens,optional" label:"input tokens" format:"count" doc:"usage.input_tokens of the reply's call"`
	OutputTokens      *int64   `parquet:"output_tokens,optional" label:"output tokens" format:"count" doc:"usage.output_tokens"`
	ReasoningTokens   *int64   `parquet:"reasoning_tokens,optional" label:"reasoning tokens" format:"count" doc:"usage.reasoning_tokens"`
	CacheReadTokens   *int64   `parquet:"cache_read_tokens,optional" label:"cache read tokens" format:"count" doc:"usage.input_tokens_cache_read"`
	CacheWriteTokens  *int64   `parquet:"cache_write_tokens,optional" label:"cache write tokens" format:"count" doc:"usage.input_tokens_cache_write"`
	SampleError       *string  `parquet:"sample_error,optional" label:"sample error" format:"text" doc:"error message that halted the sample"`
	SampleLimit       *string  `parquet:"sample_limit,optional" label:"sample limit" format:"identifier" doc:"limit that stopped the sample (message, token, time, ...)"`
	StartedAt         *int64   `parquet:"started_at,optional,timestamp(microsecond)" label:"started" format:"time" doc:"EvalSample.started_at: when the sample started (UTC; inspect_ai 0.3.1xx+, null before)"`
	CompletedAt       *int64   `parquet:"completed_at,optional,timestamp(microsecond)" label:"completed" format:"time" doc:"EvalSample.completed_at: when the sample completed (UTC)"`
	TotalTime         *float64 `parquet:"total_time,optional" label:"total seconds" format:"number" doc:"EvalSample.total_time: seconds from start to end of the sample (inspect_ai 0.3.70+)"`
	WorkingTime       *float64 `parquet:"working_time,optional" label:"working seconds" format:"number" doc:"EvalSample.working_time: seconds the sample spent working, waits for rate limits and shared resources excluded"`
	MUTCalls          int64    `parquet:"mut_calls" label:"calls of the model under test" format:"count" doc:"model events of the model under test in the sample, every attempt and placeholder included"`
	JudgeCalls        int64    `parquet:"judge_calls" label:"judge calls" format:"count" doc:"judge model calls in the sample"`
	SampleMetadata    *string  `parquet:"sample_metadata,optional" label:"sample metadata" format:"text" sql:"JSON" doc:"the sample's metadata (JSON); plans and Part C replays record empties_* keys here"`
	FinalCompletion   *string  `parquet:"final_completion,optional" label:"final completion" format:"text" doc:"sample.output.completion at the end of the sample (solvers may overwrite it; AIR-Bench stores its judge's text there)"`

	Class     string `parquet:"class" label:"class" format:"identifier" vocab:"classes" doc:"reply class (pre-registration, first match wins)"`
	ClassRule string `parquet:"class_rule" label:"rule" format:"identifier" doc:"the rule that matched, with the classifier version (rule@vN)"`
	NonAnswer bool   `parquet:"non_answer" label:"non-answer" format:"boolean" doc:"the class is a non-answer (filtered … silent; tool_only only when tools_offered is false: a tool call with tools_offered null is read as proof tools were offered)"`

	// The final reply (vocab.ReplyFinal; README "How the reply is chosen"):
	// the model under test's last generation, from the same calls and with
	// the same fallback as the reply above (vocab.ReplyFirst), which the
	// study's measures read. On a sample with at most one generation the two
	// are the same call.
	FinalCallIndex       *int64 `parquet:"final_call_index,optional" label:"final call" format:"count" doc:"model_calls.call_index of the final reply's call: the last generation of the model under test (the last model_calls row with a class); null when the reply is not a model event (reply_source sample_output or none), where the final reply is the reply"`
	FinalClass           string `parquet:"final_class" label:"final class" format:"identifier" vocab:"classes" doc:"class of the final reply, by the rules that give class: that call's output with its own tools offered, and the sample's error (error when the sample raised); equal to class when the sample has at most one generation"`
	FinalClassRule       string `parquet:"final_class_rule" label:"final rule" format:"identifier" doc:"the rule that gave final_class (rule@vN)"`
	FinalNonAnswer       bool   `parquet:"final_non_answer" label:"final non-answer" format:"boolean" doc:"final_class is a non-answer (as non_answer, with the final call's tools offered)"`
	Generations          int64  `parquet:"generations" label:"generations" format:"count" doc:"generations of the model under test in the sample: its model_calls rows with a class (kind model_under_test, call_status completed or failed); more than one makes the sample multi-turn"`
	NonAnswerGenerations int64  `parquet:"non_answer_generations" label:"non-answer generations" format:"count" doc:"of those generations, the ones whose own class is a non-answer (model_calls.non_answer)"`
}

// Score is a row of the scores table.
type Score struct {
	LogID       string   `parquet:"log_id" doc:"log file key"`
	SampleID    string   `parquet:"sample_id" doc:"sample id as text"`
	Epoch       int64    `parquet:"epoch" doc:"epoch"`
	Scorer      string   `parquet:"scorer" doc:"score key (the scorer's registry name, made unique)"`
	ValueJSON   string   `parquet:"value_json,json" doc:"the raw value as JSON (NaN/Infinity literals kept as Python wrote them)"`
	ValueKind   string   `parquet:"value_kind" vocab:"value_kinds" doc:"str, int, float, bool, list, dict or null"`
	ValueFloat  *float64 `parquet:"value_float,optional" doc:"inspect_ai's value_to_float: C=1, P=0.5, I=N=0, yes/true=1, no/false=0, numbers and numeric strings as themselves (NaN kept), 0 for other strings, lists and dicts (as inspect_ai, after its warning); NaN for null"`
	ValueString *string  `parquet:"value_str,optional" doc:"the value as text when it is a scalar"`
	Unscored    bool     `parquet:"unscored" doc:"the value is NaN at the root (Score.unscored(): excluded from metrics)"`
	Reason      *string  `parquet:"reason,optional" doc:"Score.reason (inspect_ai 0.3.28x+): why the score is what it is, e.g. grade_parse_failure, no_response"`
	Answer      *string  `parquet:"answer,optional" doc:"Score.answer"`
	Explanation *string  `parquet:"explanation,optional" doc:"Score.explanation"`
	Metadata    *string  `parquet:"metadata,optional" sql:"JSON" doc:"Score.metadata (JSON)"`
}

// ModelCall is a row of the model_calls table.
type ModelCall struct {
	LogID          string   `parquet:"log_id" doc:"log file key"`
	SampleID       string   `parquet:"sample_id" doc:"sample id as text"`
	Epoch          int64    `parquet:"epoch" doc:"epoch"`
	CallIndex      int64    `parquet:"call_index" doc:"position among the sample's model events, from 0"`
	Model          string   `parquet:"model" doc:"model string of the call"`
	Role           *string  `parquet:"role,optional" doc:"model role (null for the model under test and for a role lookup that fell back to the default model)"`
	Kind           string   `parquet:"kind" vocab:"call_kinds" doc:"whose call: the model under test, a judge (a scorer's) or other"`
	KindReason     string   `parquet:"kind_reason" vocab:"kind_reasons" doc:"why: scorer_span (under a scorer/scorers span), scorer_step (inside a legacy scorer step), grader_role (role names a grader), other_role, other_model, or eval_model (the eval's model outside scoring, no role)"`
	Scorer         *string  `parquet:"scorer,optional" doc:"name of the scorer span or step the call sits in"`
	IsReply        bool     `parquet:"is_reply" doc:"this call's output is the sample's reply (the first model-under-test call whose call_status is completed or failed)"`
	CallStatus     string   `parquet:"call_status" vocab:"call_statuses" doc:"completed (the call returned), placeholder (pending: never completed; not a generation), retried (errored, then retried: a later call of the same model, role and input in the same span), or failed (errored, not retried)"`
	StopReason     *string  `parquet:"stop_reason,optional" doc:"choices[0].stop_reason"`
	OutputError    *string  `parquet:"output_error,optional" doc:"ModelOutput.error"`
	CallError      *string  `parquet:"call_error,optional" doc:"the call failed with this error (output is a placeholder)"`
	NChoices       *int64   `parquet:"n_choices,optional" doc:"number of choices"`
	Text           string   `parquet:"text" doc:"output text (text items only, attachments resolved)"`
	Refusal        bool     `parquet:"refusal" doc:"some text item has refusal=true"`
	ReasoningChars int64    `parquet:"reasoning_chars" doc:"characters of readable reasoning"`
	ToolCallCount  int64    `parquet:"tool_call_count" doc:"tool calls in the output"`
	ToolsOfferedN  int64    `parquet:"tools_offered_count" doc:"number of tools offered to the call (its event's tools list); replies.tools_offered says whether the reply's call had any"`
	InputMessages  int64    `parquet:"input_messages" doc:"messages sent (after expanding event pools)"`
	PromptText     *string  `parquet:"prompt_text,optional" doc:"text of the last user message sent: for judge calls (what the judge was asked) and for the call whose output is the reply (is_reply: the prompt the reply answers); null for other calls"`
	InputTokens    *int64   `parquet:"input_tokens,optional" doc:"usage.input_tokens"`
	OutputTokens   *int64   `parquet:"output_tokens,optional" doc:"usage.output_tokens"`
	ReasoningTok   *int64   `parquet:"reasoning_tokens,optional" doc:"usage.reasoning_tokens"`
	CacheReadTok   *int64   `parquet:"cache_read_tokens,optional" doc:"usage.input_tokens_cache_read"`
	CacheWriteTok  *int64   `parquet:"cache_write_tokens,optional" doc:"usage.input_tokens_cache_write"`
	MaxTokens      *int64   `parquet:"max_tokens,optional" doc:"max_tokens in the call's config"`
	Temperature    *float64 `parquet:"temperature,optional" doc:"temperature in the call's config (null = provider default)"`
	Cache          *string  `parquet:"cache,optional" vocab:"cache_modes" doc:"read (served from inspect's local cache, not billed) or write"`
	Timestamp      *int64   `parquet:"timestamp,optional,timestamp(microsecond)" doc:"when the event started (UTC; a naive time in the log is UTC, as inspect_ai reads it); null when the log has none or it does not parse"`
	WorkingTime    *float64 `parquet:"working_time,optional" doc:"seconds of working time"`
	JudgeClass     *string  `parquet:"judge_class,optional" vocab:"judge_classes" doc:"judge calls only: the class of the judge's reply (PaperBench _classify_reply order)"`
	// A generation's class: the rules of replies.class (internal/classify)
	// over this call's own output, the fields above.
	ReasoningPresent bool    `parquet:"reasoning_present" doc:"the output has reasoning content (a redacted block without summary has reasoning_chars 0)"`
	ToolsOffered     *bool   `parquet:"tools_offered,optional" doc:"the call was offered tools (its event's tools list is non-empty), as replies.tools_offered is for the reply's call; null when the event has no tools list"`
	Class            *string `parquet:"class,optional" vocab:"classes" doc:"generations of the model under test only (kind model_under_test, call_status completed or failed): the class of this call's output by the rules of replies.class, with this call's tools offered; the sample's error is not read (a turn of a sample that raised later keeps its own class); null for placeholders, retried attempts, judges' and other calls"`
	ClassRule        *string `parquet:"class_rule,optional" doc:"the rule that gave class (rule@vN); null where class is"`
	NonAnswer        *bool   `parquet:"non_answer,optional" doc:"class is a non-answer (as replies.non_answer, with this call's tools_offered); null where class is"`
}

// IngestError is a row of the ingest_errors table.
type IngestError struct {
	Path   string  `parquet:"path" label:"file" format:"identifier" doc:"the file"`
	Member *string `parquet:"member,optional" label:"member" format:"identifier" doc:"the zip member or samples[i] at fault, when one is"`
	Error  string  `parquet:"error" label:"error" format:"text" doc:"what went wrong"`
}

// LogAssignment is a row of the log_assignments table (written by rescore).
type LogAssignment struct {
	LogID string  `parquet:"log_id" label:"log key" format:"identifier" show:"never" doc:"log file key"`
	Path  string  `parquet:"path" label:"log file" format:"identifier" doc:"log file"`
	Task  string  `parquet:"task" label:"task" format:"identifier" doc:"task name in the log"`
	Model string  `parquet:"model" label:"model" format:"identifier" doc:"model under test"`
	Eval  *string `parquet:"eval,optional" label:"eval" format:"identifier" doc:"eval profile the log belongs to; null when no profile matched (replies and classes still exist)"`
	Route string  `parquet:"route" label:"route" format:"identifier" doc:"route (manifest routes; else the log's model)"`
	Arm   string  `parquet:"arm" label:"arm" format:"identifier" vocab:"arms" doc:"default, tight, wide or control: from the log's metadata or tags (the manifest's metadata keys), its path rules, else the mapping's default; a metadata or tag value outside the set is kept, and empties check reports it"`
	Part  string  `parquet:"part" label:"part" format:"identifier" vocab:"parts" doc:"A (collect replies), B (judges grading replies the original run never showed them) or C (judge tests), decided as arm is"`
	How   string  `parquet:"how" label:"decided by" format:"text" doc:"how each field was decided: metadata, path, task, model, default, log-model"`
}

// PolicyScore is a row of the policy_scores table.
type PolicyScore struct {
	LogID       string   `parquet:"log_id" doc:"log file key"`
	Eval        string   `parquet:"eval" doc:"eval profile"`
	Route       string   `parquet:"route" doc:"route"`
	Arm         string   `parquet:"arm" vocab:"arms" doc:"arm"`
	SampleID    string   `parquet:"sample_id" doc:"sample id as text"`
	Epoch       int64    `parquet:"epoch" doc:"epoch"`
	Policy      string   `parquet:"policy" vocab:"policies" doc:"P0 (the eval's own logged score), P1 (non-answers get the failure value), P2 (non-answers unscored), P3 (class-aware)"`
	Class       string   `parquet:"class" vocab:"classes" doc:"reply class"`
	Rerouted    bool     `parquet:"rerouted" doc:"the policy replaced the logged score for this reply"`
	ValueJSON   string   `parquet:"value_json,json" doc:"the value under the policy, JSON in the eval's own shape (NaN = unscored)"`
	ValueKind   string   `parquet:"value_kind" vocab:"value_kinds" doc:"str, int, float, bool, list, dict or null"`
	ValueFloat  *float64 `parquet:"value_float,optional" doc:"value_to_float of the value"`
	ValueString *string  `parquet:"value_str,optional" doc:"the value as text when scalar"`
	Unscored    bool     `parquet:"unscored" doc:"the sample is out of the metric's denominator under this policy"`
	Reason      string   `parquet:"reason" doc:"why the value is what it is: logged, error, no_score, max_tokens, provider_refusal, no_response, non_answer, needs_judge, part_b_judge (the verdict of the eval's judge on this reply replayed in a Part B log)"`
	JudgeUsed   bool     `parquet:"judge_used" doc:"the value is a judge's verdict reused from the log"`
	NeedsJudge  bool     `parquet:"needs_judge" doc:"the policy would send this reply to a judge the original run did not call and no Part B log has graded it yet: counted, not scored"`
}

// Headline is a row of the headlines table.
type Headline struct {
	Eval           string   `parquet:"eval" label:"eval" format:"identifier" doc:"eval profile"`
	Route          string   `parquet:"route" label:"route" format:"identifier" doc:"route"`
	Arm            string   `parquet:"arm" label:"arm" format:"identifier" vocab:"arms" doc:"arm"`
	Policy         string   `parquet:"policy" label:"policy" format:"identifier" vocab:"policies" doc:"routing policy"`
	Metric         string   `parquet:"metric" label:"metric" format:"identifier" doc:"the eval's headline metric"`
	Value          *float64 `parquet:"value,optional" label:"headline" format:"number" doc:"the metric, computed with the eval's own formula from the per-sample rows"`
	Low            *float64 `parquet:"ci_low,optional" label:"interval, low end" format:"interval_low" of:"value" doc:"lower end of the interval (seeded bootstrap over samples, percentile)"`
	High           *float64 `parquet:"ci_high,optional" label:"interval, high end" format:"interval_high" of:"value" doc:"upper end of the interval"`
	HalfWidth      *float64 `parquet:"half_width,optional" label:"half-width" format:"number" doc:"(ci_high - ci_low) / 2"`
	DeltaP0        *float64 `parquet:"delta_p0,optional" label:"change from P0" format:"number" doc:"value minus the P0 value of the same cell (0 for P0)"`
	DeltaLow       *float64 `parquet:"delta_low,optional" label:"interval, low end" format:"interval_low" of:"delta_p0" doc:"lower end of the paired bootstrap interval of delta_p0 (same resamples for every policy of a cell)"`
	DeltaHigh      *float64 `parquet:"delta_high,optional" label:"interval, high end" format:"interval_high" of:"delta_p0" doc:"upper end of that interval"`
	Level          float64  `parquet:"level" label:"interval level" format:"percent" doc:"interval level, e.g. 0.95"`
	Samples        int64    `parquet:"n_samples" label:"samples" format:"count" doc:"samples in the cell"`
	Scored         int64    `parquet:"n_scored" label:"scored" format:"count" doc:"samples that count in the metric"`
	Unscored       int64    `parquet:"n_unscored" label:"unscored" format:"count" doc:"samples out of the denominator (unscored under the policy)"`
	NeedsJudge     int64    `parquet:"n_needs_judge" label:"would need a judge" format:"count" doc:"samples the policy would send to a judge the run did not call"`
	Scale          float64  `parquet:"scale" label:"metric scale" format:"number" doc:"the metric's range: 1 for 0-1, 100 for 0-100, 5 for StrongREJECT's 0-5; one percentage point is scale/100"`
	HigherIsBetter bool     `parquet:"higher_is_better" label:"higher is better" format:"boolean" doc:"direction of the metric"`
	Resamples      int64    `parquet:"resamples" label:"resamples" format:"count" doc:"bootstrap resamples"`
	Seed           int64    `parquet:"seed" label:"seed" format:"count" doc:"bootstrap seed (manifest)"`
}

// JudgeVerdict is a row of the judge_verdicts table.
type JudgeVerdict struct {
	LogID        string   `parquet:"log_id" doc:"log file key"`
	Eval         string   `parquet:"eval" doc:"eval profile"`
	Route        string   `parquet:"route" doc:"route of the model under test"`
	Arm          string   `parquet:"arm" vocab:"arms" doc:"arm"`
	SampleID     string   `parquet:"sample_id" doc:"sample id as text"`
	Epoch        int64    `parquet:"epoch" doc:"epoch"`
	CallIndex    int64    `parquet:"call_index" doc:"the judge call (model_calls.call_index)"`
	Scorer       string   `parquet:"scorer" doc:"score key the verdict produced"`
	JudgeModel   string   `parquet:"judge_model" doc:"judge model"`
	JudgeRole    *string  `parquet:"judge_role,optional" doc:"judge model role"`
	Temperature  *float64 `parquet:"temperature,optional" doc:"judge temperature (null = provider default)"`
	MaxTokens    *int64   `parquet:"max_tokens,optional" doc:"judge max_tokens"`
	JudgeText    string   `parquet:"judge_text" doc:"the judge's output text"`
	JudgeClass   string   `parquet:"judge_class" vocab:"judge_classes" doc:"class of the judge's reply"`
	VerdictJSON  string   `parquet:"verdict_json,json" doc:"the score value the verdict produced (JSON)"`
	VerdictFloat *float64 `parquet:"verdict_float,optional" doc:"value_to_float of the verdict"`
	ReplyClass   string   `parquet:"reply_class" vocab:"classes" doc:"class of the reply the judge graded"`
	ReplyNonAns  bool     `parquet:"reply_non_answer" doc:"the graded reply is a non-answer"`
}

// P0Check is a row of the p0_check table: the P0 headline recomputed from the
// rows against the metric inspect_ai stored in the log.
type P0Check struct {
	LogID      string   `parquet:"log_id" label:"log key" format:"identifier" show:"never" doc:"log file key"`
	Path       string   `parquet:"path" label:"log file" format:"identifier" doc:"log file"`
	Eval       string   `parquet:"eval" label:"eval" format:"identifier" doc:"eval profile"`
	Metric     string   `parquet:"metric" label:"metric" format:"identifier" doc:"metric key in the log's results"`
	Stored     *float64 `parquet:"stored,optional" label:"stored in the log" format:"number" doc:"the metric inspect_ai stored in the log"`
	Recomputed *float64 `parquet:"recomputed,optional" label:"recomputed" format:"number" doc:"the P0 headline recomputed from the per-sample rows"`
	Status     string   `parquet:"status" label:"status" format:"identifier" vocab:"p0_statuses" doc:"ok (equal to float precision; both NaN counts as equal), mismatch, or unchecked (the log stores no results: a running or killed run)"`
	OK         bool     `parquet:"ok" label:"ok" format:"boolean" doc:"status is not mismatch"`
	Detail     string   `parquet:"detail" label:"detail" format:"text" doc:"why not, when not"`
}

// StudyRoute is a row of the study_routes table: the manifest's routes.
type StudyRoute struct {
	Route          string  `parquet:"route" label:"route" format:"identifier" doc:"route name"`
	Model          string  `parquet:"model" label:"model" format:"identifier" doc:"the model the route serves (routes of one model are compared in D2)"`
	Provider       string  `parquet:"provider" label:"provider" format:"identifier" doc:"provider"`
	Adapter        string  `parquet:"adapter" label:"adapter" format:"identifier" doc:"inspect_ai adapter"`
	Reasoning      bool    `parquet:"reasoning" label:"reasoning route" format:"boolean" doc:"a reasoning route (D1 cells)"`
	PriceInput     float64 `parquet:"price_input" label:"input, USD per M tokens" format:"number" doc:"USD per million input tokens"`
	PriceOutput    float64 `parquet:"price_output" label:"output, USD per M tokens" format:"number" doc:"USD per million output tokens"`
	PriceReasoning float64 `parquet:"price_reasoning" label:"reasoning, USD per M tokens" format:"number" doc:"USD per million reasoning tokens"`
	PriceCacheRead float64 `parquet:"price_cache_read" label:"cache read, USD per M tokens" format:"number" doc:"USD per million cache-read input tokens"`
}

// StudyEval is a row of the study_evals table: the manifest's eval profiles.
type StudyEval struct {
	Eval           string  `parquet:"eval" label:"eval" format:"identifier" doc:"eval profile name"`
	Title          string  `parquet:"title" label:"title" format:"text" doc:"display title"`
	Kind           string  `parquet:"kind" label:"kind" format:"identifier" vocab:"eval_kinds" doc:"refusal or capability"`
	Metric         string  `parquet:"metric" label:"metric" format:"identifier" doc:"headline metric"`
	Scale          float64 `parquet:"scale" label:"metric scale" format:"number" doc:"the metric's range (1, 100, 5): one percentage point is scale/100"`
	HigherIsBetter bool    `parquet:"higher_is_better" label:"higher is better" format:"boolean" doc:"direction"`
	JudgeWhere     string  `parquet:"judge_where" label:"judge runs in" format:"identifier" vocab:"judge_wheres" doc:"scorer, solver or none"`
	JudgeGuarded   bool    `parquet:"judge_guarded" label:"judge skipped on empty text" format:"boolean" doc:"the eval skips its judge on empty completions"`
	Profile        string  `parquet:"profile" label:"profile file" format:"identifier" doc:"profile file"`
}

// PrimaryCell is a row of the primary_cells table: D3's pre-registered cells.
type PrimaryCell struct {
	Eval  string `parquet:"eval" label:"eval" format:"identifier" doc:"eval profile"`
	Route string `parquet:"route" label:"route" format:"identifier" doc:"route"`
}

// ReplyOutcome is a row of the reply_outcomes table: what each re-scored
// reply was, as D1 and D2 read it.
type ReplyOutcome struct {
	LogID     string `parquet:"log_id" doc:"log file key"`
	Eval      string `parquet:"eval" doc:"eval profile"`
	Route     string `parquet:"route" doc:"route"`
	Arm       string `parquet:"arm" vocab:"arms" doc:"arm"`
	Part      string `parquet:"part" vocab:"parts" doc:"A, B or C"`
	SampleID  string `parquet:"sample_id" doc:"sample id as text"`
	Epoch     int64  `parquet:"epoch" doc:"epoch"`
	Class     string `parquet:"class" vocab:"classes" doc:"reply class"`
	NonAnswer bool   `parquet:"non_answer" doc:"a non-answer class"`
	Refused   *bool  `parquet:"refused,optional" doc:"the eval's own scorer counted the reply as a refusal (profile's refused predicate over the logged score); null when unscored or the profile has none"`
	Form      string `parquet:"form" vocab:"refusal_forms" doc:"D2 refusal form: filtered, refusal_flag, error_text (the class), text (an answer the eval's scorer counts as a refusal) or none"`
	PairKey   string `parquet:"pair_key" doc:"eval/route/sample_id/epoch: pairs a re-run with the reply it re-runs"`
}

// Rerun is a row of the reruns table: a wide or control re-run paired with
// the default-arm reply it re-runs (issue: select / pairing).
type Rerun struct {
	Eval         string  `parquet:"eval" label:"eval" format:"identifier" doc:"eval profile"`
	Route        string  `parquet:"route" label:"route" format:"identifier" doc:"route"`
	Arm          string  `parquet:"arm" label:"arm" format:"identifier" vocab:"arms" doc:"wide or control"`
	SampleID     string  `parquet:"sample_id" label:"sample" format:"identifier" doc:"sample id as text"`
	Epoch        int64   `parquet:"epoch" label:"epoch" format:"count" doc:"epoch"`
	Status       string  `parquet:"status" label:"status" format:"identifier" vocab:"rerun_statuses" doc:"paired, no_original (a re-run without an original reply) or not_rerun (planned, never re-run)"`
	OrigLogID    *string `parquet:"orig_log_id,optional" label:"original log key" format:"identifier" show:"never" doc:"log of the original reply"`
	OrigClass    *string `parquet:"orig_class,optional" label:"original class" format:"identifier" vocab:"classes" doc:"class of the original reply"`
	RerunLogID   *string `parquet:"rerun_log_id,optional" label:"re-run log key" format:"identifier" show:"never" doc:"log of the re-run"`
	RerunClass   *string `parquet:"rerun_class,optional" label:"re-run class" format:"identifier" vocab:"classes" doc:"class of the re-run reply"`
	RerunRefused *bool   `parquet:"rerun_refused,optional" label:"re-run refused" format:"boolean" doc:"the eval's own scorer counted the re-run as a refusal"`
}

// JudgeTest is a row of the judge_tests table (Part C): one judge grading
// one non-answer form on one sample, once.
type JudgeTest struct {
	LogID        string   `parquet:"log_id" doc:"Part C log"`
	Eval         string   `parquet:"eval" doc:"eval profile whose judge is tested"`
	JudgeModel   string   `parquet:"judge_model" doc:"judge model (the first judge call of the sample)"`
	Temperature  *float64 `parquet:"temperature,optional" doc:"judge temperature (null = provider default)"`
	Form         string   `parquet:"form" doc:"the non-answer form substituted for the response"`
	SampleID     string   `parquet:"sample_id" doc:"the original sample"`
	Repeat       int64    `parquet:"repeat" doc:"repeat number, from 1"`
	VerdictJSON  string   `parquet:"verdict_json,json" doc:"the score the judge's verdict produced (JSON)"`
	VerdictFloat *float64 `parquet:"verdict_float,optional" doc:"value_to_float of the verdict"`
	Passed       *bool    `parquet:"passed,optional" doc:"a passing verdict on a non-answer (seed section 5, profile judge.pass); null when unscored"`
	JudgeClass   string   `parquet:"judge_class" vocab:"judge_classes" doc:"class of the judge's own reply"`
}

// PlannedRerun is a row of the planned_reruns table: what `empties select`
// planned to re-run (wide and control arms).
type PlannedRerun struct {
	Plan     string `parquet:"plan" doc:"plan file name"`
	Arm      string `parquet:"arm" vocab:"arms" doc:"wide or control"`
	Eval     string `parquet:"eval" doc:"eval profile"`
	Route    string `parquet:"route" doc:"route"`
	SampleID string `parquet:"sample_id" doc:"sample id as text"`
	Epoch    int64  `parquet:"epoch" doc:"epoch of the reply re-run"`
}

// Exposure is a row of the exposure table (written by `empties exposure`).
type Exposure struct {
	Eval          string  `parquet:"eval" label:"eval" format:"identifier" doc:"eval folder under the package (inspect_evals/<eval>/) the finding is reported for"`
	Criterion     int32   `parquet:"criterion" label:"criterion" format:"count" doc:"1 to 4 (pre-registration section 4); see criterion_name"`
	CriterionName string  `parquet:"criterion_name" label:"criterion name" format:"identifier" doc:"empty_check, unguarded_judge, max_tokens or refusal_signal"`
	File          string  `parquet:"file" label:"file" format:"identifier" doc:"Python file, relative to PATH"`
	Line          int32   `parquet:"line" label:"line" format:"count" doc:"1-based line of the match"`
	Function      string  `parquet:"function" label:"function" format:"identifier" doc:"enclosing def, dotted (<module> for module-level code)"`
	Code          string  `parquet:"code" label:"code" format:"text" doc:"the source line of the match, trimmed"`
	Detail        string  `parquet:"detail" label:"detail" format:"text" doc:"what matched: the test, the judge and the path to it, the max_tokens value and target, or the refusal signal"`
	Value         *string `parquet:"value,optional" label:"max_tokens value" format:"identifier" doc:"criterion 3: the max_tokens value resolved to a literal; null when it is not a constant or for other criteria"`
}

// Decision is a row of the decisions table: one decision rule (D1-D4) or
// hypothesis (H1-H4) applied to the analysis tables.
type Decision struct {
	Rule           string   `parquet:"rule" label:"rule" format:"identifier" doc:"D1a.raise, D1a.helper, D1b, D2, D3, D4, H1-H4"`
	Title          string   `parquet:"title" label:"decision" format:"text" doc:"what the rule decides, in a few words (D1(a) truncation: raise max_tokens?)"`
	Question       string   `parquet:"question" label:"question" format:"text" doc:"what the rule asks, in the pre-registration's words"`
	Verdict        string   `parquet:"verdict" vocab:"verdicts" label:"verdict" format:"identifier" doc:"met, not met, not enough data (rules); supported, against, inconclusive, not enough data (hypotheses)"`
	Finding        string   `parquet:"finding" label:"what was found" format:"text" doc:"one sentence in plain language: the deciding cell and its number, the verdict against the threshold, and the recommendation"`
	Recommendation string   `parquet:"recommendation" label:"recommendation" format:"text" doc:"the recommendation the pre-registration attaches to this verdict"`
	Value          *float64 `parquet:"value,optional" label:"deciding value" format:"number" doc:"the deciding number: the largest value across the cells of the rule's first test (a share for D1, D2 and D4; |P3 − P0| in percentage points for D3)"`
	DecidingCell   *string  `parquet:"deciding_cell,optional" label:"deciding cell" format:"identifier" doc:"the cell with the deciding number (the first listed in cells); null for a hypothesis or without cells"`
	Threshold      string   `parquet:"threshold" label:"threshold" format:"text" doc:"the threshold(s), from the manifest"`
	Cells          string   `parquet:"cells" label:"cells behind the verdict" format:"text" doc:"the cells behind the verdict, largest value first, with their numbers: a share as a percentage with its interval, a D3 delta in pp"`
	Inputs         string   `parquet:"inputs" label:"tables read" format:"identifier" doc:"the analysis tables read"`
}
