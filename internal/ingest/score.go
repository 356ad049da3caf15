package ingest

import (
	"math"

	"empties/internal/evallog"
	"empties/internal/scorevalue"
	"empties/schema"
)

func scoreRow(logID, sampleID string, epoch int64, s evallog.ScoreView) schema.Score {
	row := schema.Score{LogID: logID, SampleID: sampleID, Epoch: epoch, Scorer: s.Name}
	row.ValueJSON = string(s.Value)
	row.ValueKind, row.ValueFloat, row.ValueString = scorevalue.Project(s.Value)
	row.Unscored = row.ValueFloat != nil && math.IsNaN(*row.ValueFloat) && (row.ValueKind == "float" || row.ValueKind == "null")
	row.Reason, row.Answer, row.Explanation, row.Metadata = s.Reason, s.Answer, s.Explanation, s.Metadata
	return row
}
