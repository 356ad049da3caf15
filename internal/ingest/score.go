package ingest

import (
	"bytes"
	"math"

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
	s, err := evallog.DecodeString(raw)
	if err != nil {
		t := string(raw)
		return &t
	}
	return &s
}
