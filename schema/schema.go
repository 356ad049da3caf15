// Package schema declares every table empties writes: one Go struct per
// table, whose parquet tags fix the column names and types and whose doc tags
// are the column documentation that `empties schema` prints. Nothing about a
// table's shape is inferred from the data that arrives.
//
// A JSON-valued column (task_args, results, scores.value_json, ...) is JSON
// in the views every reader shares (DuckDB's JSON type, whose functions
// also read the NaN/Infinity literals Python writes); its tag says
// sql:"JSON". In the Parquet files it carries the JSON logical type where
// the writer can put it, on required columns (parquet:"...,json");
// parquet-go v0.32 writes NULL for every value of an optional JSON column
// (TestOptionalJSONColumnsStayStrings), so those are plain UTF-8 strings
// holding JSON text. duckdb-go scans a JSON value with encoding/json (an
// error on NaN, a Go map otherwise), so Go readers take the text:
// duck.Rows casts JSON columns to VARCHAR.
package schema

import (
	"fmt"
	"reflect"
	"strings"
)

// Version of the table layout; bump it when a column changes meaning or type.
const Version = 2

// Table describes one table.
type Table struct {
	Name  string
	Grain string
	Doc   string
	Row   any // a zero value of the row struct
}

// Column is one column of a table.
type Column struct {
	Name string
	Type string // the type in the views every reader shares
	// Stored is the type DuckDB reads from the Parquet files, which is Type
	// but for a JSON column written as a plain string (VARCHAR).
	Stored   string
	Nullable bool
	Doc      string
}

// Tables lists the tables in pipeline order.
func Tables() []Table {
	return []Table{
		{"logs", "one row per log file", "What each ingested log file is: format, status, eval, task, model, settings.", Log{}},
		{"replies", "one row per sample × epoch (every sample, errored ones included)", "The reply of the model under test: the output of its first completed generation in the sample (placeholders and failed, retried attempts skipped; sample.output when it made no call through Inspect's model API, unless that output is a judge's; reply_source says which), with every raw field the classifier reads.", Reply{}},
		{"scores", "one row per sample × epoch × scorer", "Each scorer's logged score, raw and projected.", Score{}},
		{"model_calls", "one row per model event", "Every model call of every sample, tagged model under test, judge or other, with the reason.", ModelCall{}},
		{"ingest_errors", "one row per file (or member) that could not be ingested", "Files the last ingest could not read; none of their samples are in the other tables.", IngestError{}},
		{"log_assignments", "one row per log file", "Where each log sits in the study: eval profile, route, arm, part, and how that was decided (rescore).", LogAssignment{}},
		{"policy_scores", "one row per sample × epoch × policy", "Each reply's score under routing policies P0-P3 (rescore).", PolicyScore{}},
		{"judge_verdicts", "one row per judge call that produced a score", "What each judge saw and decided, with the class of the reply it graded (rescore).", JudgeVerdict{}},
		{"headlines", "one row per eval × route × arm × policy", "Each eval's headline metric under each policy, with a seeded bootstrap interval (rescore).", Headline{}},
		{"study_routes", "one row per route", "The manifest's routes: model, provider, adapter, reasoning, prices (rescore).", StudyRoute{}},
		{"study_evals", "one row per eval profile", "The manifest's evals and their metric direction and scale (rescore).", StudyEval{}},
		{"primary_cells", "one row per eval × route", "D3's pre-registered primary cells, expanded (rescore).", PrimaryCell{}},
		{"reply_outcomes", "one row per re-scored sample × epoch", "Each reply's refusal by the eval's own scorer and its D2 refusal form (rescore).", ReplyOutcome{}},
		{"planned_reruns", "one row per planned re-run", "The wide and control re-runs `empties select` planned (select).", PlannedRerun{}},
		{"reruns", "one row per planned or seen re-run", "Wide and control re-runs paired with the replies they re-run (rescore).", Rerun{}},
		{"judge_tests", "one row per judge × form × sample × repeat", "Part C: judges grading non-answer forms (rescore).", JudgeTest{}},
		{"decisions", "one row per decision rule or hypothesis", "D1-D4 and H1-H4 applied with the manifest's thresholds (decide).", Decision{}},
		{"exposure", "one row per eval × criterion × file × line", "inspect_evals evals exposed to the empty-reply problem, with the code that shows it (exposure).", Exposure{}},
		{"p0_check", "one row per log with a profile", "The P0 headline recomputed from the rows against the metric stored in the log (rescore; empties check).", P0Check{}},
	}
}

// Lookup returns the table of that name.
func Lookup(name string) (Table, bool) {
	for _, t := range Tables() {
		if t.Name == name {
			return t, true
		}
	}
	return Table{}, false
}

// Columns returns the columns of a table in declaration order.
func (t Table) Columns() []Column {
	rt := reflect.TypeOf(t.Row)
	cols := make([]Column, 0, rt.NumField())
	for i := 0; i < rt.NumField(); i++ {
		f := rt.Field(i)
		tag := strings.Split(f.Tag.Get("parquet"), ",")
		c := Column{Name: tag[0], Doc: f.Tag.Get("doc")}
		sqlTag := f.Tag.Get("sql")
		typ := f.Type
		for _, opt := range tag[1:] {
			if opt == "optional" {
				c.Nullable = true
			}
		}
		if typ.Kind() == reflect.Pointer {
			typ = typ.Elem()
		}
		c.Type = sqlType(typ, tag[1:])
		c.Stored = c.Type
		if sqlTag != "" {
			c.Type = sqlTag
		}
		cols = append(cols, c)
	}
	return cols
}

func sqlType(t reflect.Type, opts []string) string {
	for _, o := range opts {
		switch {
		case strings.HasPrefix(o, "timestamp"):
			return "TIMESTAMP WITH TIME ZONE"
		case o == "json":
			return "JSON"
		}
	}
	switch t.Kind() {
	case reflect.String:
		return "VARCHAR"
	case reflect.Bool:
		return "BOOLEAN"
	case reflect.Int32:
		return "INTEGER"
	case reflect.Int64, reflect.Int:
		return "BIGINT"
	case reflect.Float64:
		return "DOUBLE"
	case reflect.Slice:
		return sqlType(t.Elem(), nil) + "[]"
	}
	panic(fmt.Sprintf("schema: no SQL type for %s", t))
}
