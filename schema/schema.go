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
	"sort"
	"strings"
)

// Version of the table layout; bump it when a column changes meaning or type.
const Version = 2

// TableDef is what schema/ declares of a table, whatever its row type: its
// name, grain, key, the stage that writes it, and its documentation.
type TableDef struct {
	Name  string
	Grain string
	// Key are the columns that identify a row at the table's grain.
	Key []string
	// Owner is the one stage that writes the table; store refuses a
	// dataset writer of another stage (Writers).
	Owner string
	// Also are the documented second writers: `empties classify`, whose
	// explicit recompute of the classes rewrites replies' class, class_rule
	// and non_answer and model_calls' judge_class in place.
	Also []string
	Doc  string
	Row  any // a zero value of the row struct
}

// Table is a table whose rows are T: the value stages write through
// (store.WriterOf, store.WriteTable) and read the declaration of.
type Table[T any] struct{ TableDef }

func table[T any](name, owner, grain string, key []string, doc string, also ...string) Table[T] {
	var row T
	return Table[T]{TableDef{Name: name, Grain: grain, Key: key, Owner: owner, Also: also, Doc: doc, Row: row}}
}

// The stages that write tables (TableDef.Owner).
const (
	StageIngest   = "ingest"
	StageClassify = "classify"
	StageRescore  = "rescore"
	StageSelect   = "select"
	StageDecide   = "decide"
	StageExposure = "exposure"
	StageAnalyze  = "analyze" // the analysis outputs (sql/), which schema/ does not declare
)

// The tables, in pipeline order.
var (
	Logs = table[Log]("logs", StageIngest, "one row per log file", []string{"log_id"},
		"What each ingested log file is: format, status, eval, task, model, settings.")
	Replies = table[Reply]("replies", StageIngest, "one row per sample × epoch (every sample, errored ones included)", []string{"log_id", "sample_id", "epoch"},
		"The reply of the model under test: the output of its first completed generation in the sample (placeholders and failed, retried attempts skipped; sample.output when it made no call through Inspect's model API, unless that output is a judge's; reply_source says which), with every raw field the classifier reads.",
		StageClassify)
	Scores = table[Score]("scores", StageIngest, "one row per sample × epoch × scorer", []string{"log_id", "sample_id", "epoch", "scorer"},
		"Each scorer's logged score, raw and projected.")
	ModelCalls = table[ModelCall]("model_calls", StageIngest, "one row per model event", []string{"log_id", "sample_id", "epoch", "call_index"},
		"Every model call of every sample, tagged model under test, judge or other, with the reason.",
		StageClassify)
	IngestErrors = table[IngestError]("ingest_errors", StageIngest, "one row per file (or member) that could not be ingested", []string{"path", "member"},
		"Files the last ingest could not read; none of their samples are in the other tables.")
	LogAssignments = table[LogAssignment]("log_assignments", StageRescore, "one row per log file", []string{"log_id"},
		"Where each log sits in the study: eval profile, route, arm, part, and how that was decided.")
	PolicyScores = table[PolicyScore]("policy_scores", StageRescore, "one row per sample × epoch × policy", []string{"log_id", "sample_id", "epoch", "policy"},
		"Each reply's score under routing policies P0-P3.")
	JudgeVerdicts = table[JudgeVerdict]("judge_verdicts", StageRescore, "one row per judge call that produced a score", []string{"log_id", "sample_id", "epoch", "call_index", "scorer"},
		"What each judge saw and decided, with the class of the reply it graded.")
	Headlines = table[Headline]("headlines", StageRescore, "one row per eval × route × arm × policy", []string{"eval", "route", "arm", "policy"},
		"Each eval's headline metric under each policy, with a seeded bootstrap interval.")
	StudyRoutes = table[StudyRoute]("study_routes", StageRescore, "one row per route", []string{"route"},
		"The manifest's routes: model, provider, adapter, reasoning, prices.")
	StudyEvals = table[StudyEval]("study_evals", StageRescore, "one row per eval profile", []string{"eval"},
		"The manifest's evals and their metric direction and scale.")
	PrimaryCells = table[PrimaryCell]("primary_cells", StageRescore, "one row per eval × route", []string{"eval", "route"},
		"D3's pre-registered primary cells, expanded.")
	ReplyOutcomes = table[ReplyOutcome]("reply_outcomes", StageRescore, "one row per re-scored sample × epoch", []string{"log_id", "sample_id", "epoch"},
		"Each reply's refusal by the eval's own scorer and its D2 refusal form.")
	PlannedReruns = table[PlannedRerun]("planned_reruns", StageSelect, "one row per planned re-run", []string{"plan", "arm", "eval", "route", "sample_id", "epoch"},
		"The wide and control re-runs `empties select` planned.")
	Reruns = table[Rerun]("reruns", StageRescore, "one row per planned or seen re-run", []string{"eval", "route", "arm", "sample_id", "epoch"},
		"Wide and control re-runs paired with the replies they re-run.")
	JudgeTests = table[JudgeTest]("judge_tests", StageRescore, "one row per judge × form × sample × repeat", []string{"log_id", "judge_model", "form", "sample_id", "repeat"},
		"Part C: judges grading non-answer forms.")
	Decisions = table[Decision]("decisions", StageDecide, "one row per decision rule or hypothesis", []string{"rule"},
		"D1-D4 and H1-H4 applied with the manifest's thresholds.")
	ExposureTable = table[Exposure]("exposure", StageExposure, "one row per eval × criterion × file × line", []string{"eval", "criterion", "file", "line"},
		"inspect_evals evals exposed to the empty-reply problem, with the code that shows it.")
	P0Checks = table[P0Check]("p0_check", StageRescore, "one row per log with a profile", []string{"log_id"},
		"The P0 headline recomputed from the rows against the metric stored in the log (read by `empties check`).")
)

// Tables lists the tables in pipeline order.
func Tables() []TableDef {
	return []TableDef{
		Logs.TableDef, Replies.TableDef, Scores.TableDef, ModelCalls.TableDef, IngestErrors.TableDef,
		LogAssignments.TableDef, PolicyScores.TableDef, JudgeVerdicts.TableDef, Headlines.TableDef,
		StudyRoutes.TableDef, StudyEvals.TableDef, PrimaryCells.TableDef, ReplyOutcomes.TableDef,
		PlannedReruns.TableDef, Reruns.TableDef, JudgeTests.TableDef, Decisions.TableDef,
		ExposureTable.TableDef, P0Checks.TableDef,
	}
}

// Lookup returns the table of that name.
func Lookup(name string) (TableDef, bool) {
	for _, t := range Tables() {
		if t.Name == name {
			return t, true
		}
	}
	return TableDef{}, false
}

// Writers are the stages that may write the table: its owner, then its
// documented second writers.
func (t TableDef) Writers() []string { return append([]string{t.Owner}, t.Also...) }

// Owner is the stage that writes a table (analyze for a table schema/ does
// not declare: the analysis outputs).
func Owner(table string) string {
	if t, ok := Lookup(table); ok {
		return t.Owner
	}
	return StageAnalyze
}

// FromLogs reports whether a table's rows derive from the ingested logs:
// every table but exposure, which reads inspect_evals' source, not the logs.
func FromLogs(table string) bool { return Owner(table) != StageExposure }

// KeptWhenRepliesChange lists the tables that stay when ingest writes new
// rows or classify recomputes the classes: ingest's own, and those not
// derived from the logs. Every other table of the dataset (the analysis
// outputs too) was computed from the old rows and is dropped.
func KeptWhenRepliesChange() []string {
	var out []string
	for _, t := range Tables() {
		if t.Owner == StageIngest || !FromLogs(t.Name) {
			out = append(out, t.Name)
		}
	}
	sort.Strings(out)
	return out
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
	// Vocab names the closed set of values the column holds (its field's
	// vocab tag; internal/vocab holds the sets), "" for an open column.
	Vocab string `json:",omitempty"`
	// How a page shows it (formats.go): its label, its format, the column
	// an interval end belongs to, when it is shown; "" where the table is
	// not shown on a page.
	Label  string `json:",omitempty"`
	Format string `json:",omitempty"`
	Of     string `json:",omitempty"`
	Show   string `json:",omitempty"`
}

// Columns returns the columns of a table in declaration order.
func (t TableDef) Columns() []Column {
	rt := reflect.TypeOf(t.Row)
	cols := make([]Column, 0, rt.NumField())
	for i := 0; i < rt.NumField(); i++ {
		f := rt.Field(i)
		tag := strings.Split(f.Tag.Get("parquet"), ",")
		c := Column{Name: tag[0], Doc: f.Tag.Get("doc"), Vocab: f.Tag.Get("vocab"),
			Label: f.Tag.Get("label"), Format: f.Tag.Get("format"), Of: f.Tag.Get("of"), Show: f.Tag.Get("show")}
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
