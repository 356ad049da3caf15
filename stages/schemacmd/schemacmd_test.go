package schemacmd_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"empties/schema"
	"empties/stages/schemacmd"
)

// empties schema lists every table the stages write and every analysis
// output, each with its columns.
func TestSchemaListsEveryTable(t *testing.T) {
	var out bytes.Buffer
	if err := schemacmd.Run(context.Background(), schemacmd.Options{Format: "json"}, &out); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tables []struct {
			Name    string `json:"name"`
			Columns []struct {
				Name, Type string
			} `json:"columns"`
		} `json:"tables"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	have := map[string]int{}
	for _, tb := range doc.Tables {
		have[tb.Name] = len(tb.Columns)
	}
	for _, tb := range schema.Tables() {
		if have[tb.Name] != len(tb.Columns()) {
			t.Errorf("%s: %d columns listed, %d declared", tb.Name, have[tb.Name], len(tb.Columns()))
		}
	}
	for _, name := range []string{"class_rates", "d1a_truncation", "d3_headline_deltas", "d4_judge_behaviour", "cost"} {
		if have[name] == 0 {
			t.Errorf("analysis output %s not listed", name)
		}
	}
	if err := schemacmd.Run(context.Background(), schemacmd.Options{Table: "nope", Format: "text"}, &out); err == nil {
		t.Error("an unknown table was accepted")
	}
}
