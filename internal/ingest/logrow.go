package ingest

import (
	"bytes"

	json "github.com/goccy/go-json"

	"empties/internal/evallog"
	"empties/schema"
)

func logRow(lc *logContext, l *evallog.Log, samples int64) schema.Log {
	h := l.Header
	e := h.Eval
	row := schema.Log{
		LogID: lc.LogID, Path: l.Path, SHA256: l.SHA256, SizeBytes: l.Size,
		Format: l.Format, Version: int64(h.Version), Status: h.Status, HeaderSource: l.HeaderSource,
		EvalID: nonEmpty(e.EvalID), RunID: nonEmpty(e.RunID), EvalSetID: nonEmpty(e.EvalSetID), TaskID: nonEmpty(e.TaskID),
		Task: e.Task, Model: e.Model,
		TaskVersion: scalarText(e.TaskVersion),
		TaskArgs:    rawText(e.TaskArgs), ModelRoles: rawText(e.ModelRoles), ModelArgs: rawText(e.ModelArgs),
		GenConfig: rawText(e.ModelGenerateConfig), EvalConfig: rawText(e.Config),
		MaxTokens:   lc.EvalMaxTokens,
		InspectAI:   nonEmpty(e.Packages["inspect_ai"]),
		Created:     parseTime(e.Created),
		Tags:        stringList(e.Tags),
		Metadata:    rawText(e.Metadata),
		Results:     rawText(h.Results),
		DatasetName: nonEmpty(e.Dataset.Name),
		DatasetSize: e.Dataset.Samples.Ptr(),
		SampleCount: samples,
		Invalidated: h.Invalidated,
	}
	row.Modified = lc.Modified
	row.IngestVersion = ingestVersion()
	row.ETag = lc.ETag
	if row.Version == 0 {
		row.Version = 2 // the model's default when the field is absent
	}
	if h.Plan != nil {
		row.TaskConfig = rawText(h.Plan.Config)
	}
	if l.Summaries >= 0 {
		n := int64(l.Summaries)
		row.SummaryCount = &n
	}
	if h.Error != nil {
		row.Error = &h.Error.Message
	}
	return row
}

// evalMaxTokens is the max_tokens of the eval's generate config: the model's
// config, else the task's (plan.config).
func evalMaxTokens(h evallog.Header) *int64 {
	if c := evallog.ParseGenerateConfig(h.Eval.ModelGenerateConfig); c.MaxTokens.Valid {
		return c.MaxTokens.Ptr()
	}
	if h.Plan != nil {
		if c := evallog.ParseGenerateConfig(h.Plan.Config); c.MaxTokens.Valid {
			return c.MaxTokens.Ptr()
		}
	}
	return nil
}

// legacyScoreName is the key a version-1 sample `score` migrates to: the name
// of the first results score, or of the legacy results.scorer (§1.7).
func legacyScoreName(h evallog.Header) string {
	var res struct {
		Scores []struct {
			Name string `json:"name"`
		} `json:"scores"`
		Scorer json.RawMessage `json:"scorer"`
	}
	if len(h.Results) == 0 || json.Unmarshal(evallog.RestoreNonFinite(sanitize(h.Results)), &res) != nil {
		return ""
	}
	if len(res.Scores) > 0 {
		return res.Scores[0].Name
	}
	var s struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(res.Scorer, &s) == nil && s.Name != "" {
		return s.Name
	}
	var name string
	if json.Unmarshal(res.Scorer, &name) == nil {
		return name
	}
	return ""
}

func sanitize(raw []byte) []byte {
	clean, _ := evallog.SanitizeNonFinite(raw)
	return clean
}

// rawText keeps a raw JSON value as text, non-finite literals restored.
func rawText(raw json.RawMessage) *string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	s := string(evallog.RestoreNonFinite(raw))
	return &s
}

// scalarText renders an int or str JSON value as text.
func scalarText(raw json.RawMessage) *string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return &s
	}
	t := string(raw)
	return &t
}

func stringList(raw json.RawMessage) []string {
	var out []string
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, &out)
	}
	if out == nil {
		out = []string{}
	}
	return out
}

// parseTime reads a log's datetime string as inspect_ai reads it
// (evallog.ParseDatetime: datetime.fromisoformat, a naive value in UTC),
// in microseconds since the epoch; nil for none. The shape checks have
// refused a log whose datetime inspect_ai cannot read, naming the field, so
// a value given here parses.
func parseTime(s string) *int64 {
	if s == "" {
		return nil
	}
	t, err := evallog.ParseDatetime(s)
	if err != nil {
		return nil
	}
	us := t.UnixMicro()
	return &us
}
