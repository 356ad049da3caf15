package ingest

import (
	"bytes"
	"math"
	"unicode/utf8"

	json "github.com/goccy/go-json"

	"empties/internal/evallog"
	"empties/internal/scorevalue"
	"empties/schema"
)

func scoreRow(logID, sampleID string, epoch int64, name string, s evallog.Score, sanitized bool) schema.Score {
	row := schema.Score{LogID: logID, SampleID: sampleID, Epoch: epoch, Scorer: name}
	raw := bytes.TrimSpace(s.Value)
	if sanitized {
		raw = evallog.RestoreNonFinite(raw)
	}
	if len(raw) == 0 {
		raw = []byte("null")
	}
	row.ValueJSON = string(raw)
	row.ValueKind, row.ValueFloat, row.ValueString = scorevalue.Project(raw)
	row.Unscored = row.ValueFloat != nil && math.IsNaN(*row.ValueFloat) && (row.ValueKind == "float" || row.ValueKind == "null")
	row.Reason = jsonString(s.Reason)
	row.Answer = jsonString(s.Answer)
	row.Explanation = jsonString(s.Explanation)
	row.Metadata = rawJSON(s.Metadata, sanitized)
	return row
}

// jsonString decodes an optional JSON string field.
func jsonString(raw json.RawMessage) *string {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if n := len(raw); n >= 2 && raw[0] == '"' && raw[n-1] == '"' {
		if body := raw[1 : n-1]; bytes.IndexByte(body, '\\') < 0 && bytes.IndexByte(body, '"') < 0 && utf8.Valid(body) {
			s := string(body) // what decoding would give
			return &s
		}
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		t := string(raw)
		return &t
	}
	return &s
}
