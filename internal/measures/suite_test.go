package measures

import (
	"context"
	"io/fs"
	"path"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	"empties/internal/classify"
	"empties/internal/vocab"
	sqlfiles "empties/sql"
)

// The outputs issue 6 asks for, each from its own file.
var wantOutputs = []string{
	"class_rates", "d1a_truncation", "d1b_wide_outcomes", "d1b_non_refusal", "d2_form_disagreement",
	"d3_headline_deltas", "d4_judge_behaviour", "d4_judge_verdicts", "transient_share", "tight_vs_default",
	"cost", "judge_calls_saved", "rates_by_stop_reason", "rates_by_stop_category",
	"non_answer_rates", "truncation_by_max_tokens", "judge_calls_on_non_answers", "reply_sources",
	"log_accounting", "class_examples", "overview", "overview_classes", "turn_rates", "turn_examples",
}

func TestEmbeddedSQLIsValid(t *testing.T) {
	s := loadSuite(t)
	var got []string
	for _, st := range s.Outputs() {
		got = append(got, st.Output)
		if st.File != "marts/"+st.Output+".sql" {
			t.Errorf("%s comes from %s", st.Output, st.File)
		}
		if !strings.Contains(st.Measure, "pre-registration") {
			t.Errorf("sql/%s: the measure line does not cite the pre-registration: %q", st.File, st.Measure)
		}
		if !strings.HasPrefix(st.Grain, "one row per ") {
			t.Errorf("sql/%s: grain %q does not say \"one row per ...\"", st.File, st.Grain)
		}
	}
	sort.Strings(got)
	want := append([]string{}, wantOutputs...)
	sort.Strings(want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("outputs %v, want %v", got, want)
	}
	files, _ := fs.Glob(sqlfiles.FS, "*/*.sql")
	for _, f := range files {
		name := strings.TrimSuffix(path.Base(f), ".sql")
		_, step := s.Step(name)
		q, query := s.Query(name)
		check := slices.ContainsFunc(s.Checks(), func(c *Step) bool { return c.Output == name })
		if n := btoi(step) + btoi(query) + btoi(check); n != 1 {
			t.Errorf("sql/%s is %d of a step, a query and a check", f, n)
		}
		if query && (!strings.Contains(q.Measure, "pre-registration") || !strings.HasPrefix(q.Grain, "one row per ")) {
			t.Errorf("sql/%s: a query's header cites the pre-registration and says \"one row per ...\": %q, %q", f, q.Measure, q.Grain)
		}
	}
	for name, c := range s.Contracts {
		for _, col := range c.Columns {
			if strings.TrimSpace(col.Doc) == "" {
				t.Errorf("%s.%s: no doc", name, col.Name)
			}
		}
	}
}

// Every output, built with every input table missing, has the columns and
// types its contract declares and is empty; the run marks it skipped or
// empty, never ok.
func TestEveryOutputOnMissingInputs(t *testing.T) {
	s := loadSuite(t)
	ctx := context.Background()
	conn := testDB(t)
	if _, err := createSourceViews(ctx, conn, t.TempDir(), sourceViews); err != nil {
		t.Fatal(err)
	}
	r, err := newRunner(ctx, conn, testParams, map[string]bool{})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.run(ctx, s.Steps); err != nil {
		t.Fatal(err)
	}
	for _, st := range s.Outputs() {
		broken, err := st.Contract.Check(ctx, conn)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range broken {
			t.Error(b)
		}
		res := r.results[st.Output]
		if res.Rows != 0 || res.Status() == "ok" {
			t.Errorf("%s: %d rows, status %s", st.Output, res.Rows, res.Status())
		}
	}
	if got := r.results["d4_judge_behaviour"].Missing; !reflect.DeepEqual(got, []string{"judge_tests"}) {
		t.Errorf("d4_judge_behaviour missing %v", got)
	}
	if got := r.results["d1a_truncation"].Missing; !reflect.DeepEqual(got, []string{"replies", "study_routes"}) {
		t.Errorf("d1a_truncation missing %v (class_rates' needs propagate)", got)
	}
}

func TestParseHeader(t *testing.T) {
	text := `-- output: class_rates
-- kind: output
-- grain: one row per eval × route × arm × class
-- measure: Class rates (pre-registration §5)
-- needs: study_replies, reply_classes,wilson
-- optional: log_assignments
--
-- free comment: not part of the header
WITH x AS (SELECT 1) SELECT * FROM x;
`
	h, body, err := ParseHeader("class_rates.sql", text)
	if err != nil {
		t.Fatal(err)
	}
	want := Header{File: "class_rates.sql", Output: "class_rates", Kind: KindOutput, Grain: "one row per eval × route × arm × class",
		Measure: "Class rates (pre-registration §5)", Needs: []string{"study_replies", "reply_classes", "wilson"}, Optional: []string{"log_assignments"}}
	if !reflect.DeepEqual(h, want) {
		t.Errorf("got %+v\nwant %+v", h, want)
	}
	q, err := checkBody(h, body)
	if err != nil || q != "WITH x AS (SELECT 1) SELECT * FROM x" {
		t.Errorf("query %q, %v", q, err)
	}
}

// A broken file stops the whole suite before anything runs, with an error
// naming the file and what to fix.
func TestSuiteValidation(t *testing.T) {
	good := func(name, needs string) string {
		return "-- output: " + name + "\n-- kind: output\n-- grain: one row per eval\n-- measure: m (pre-registration §5)\n-- needs: " + needs + "\nSELECT 1 AS eval\n"
	}
	contract := func(name string) string {
		return "output: " + name + "\ngrain: one row per eval\nkey: [eval]\ncolumns:\n  - {name: eval, type: INTEGER, label: eval, format: count, doc: d}\n"
	}
	runs := "output: analyze_runs\ngrain: " + runsGrain + "\nkey: [output]\ncolumns:\n  - {name: output, type: VARCHAR, label: table, format: identifier, doc: d}\n"
	base := fstest.MapFS{
		"marts/a.sql":            {Data: []byte(good("a", "replies"))},
		"marts/a.yml":            {Data: []byte(contract("a"))},
		"marts/analyze_runs.yml": {Data: []byte(runs)},
	}
	if _, err := LoadSuite(base); err != nil {
		t.Fatalf("the base suite is valid: %v", err)
	}
	// A query reads the dataset's tables, analyze's outputs and analyze_runs
	// among them (the report's tables do).
	reader := fstest.MapFS{"queries/q.sql": {Data: []byte("-- output: q\n-- kind: query\n-- grain: one row per eval\n-- measure: x\n-- needs: a, analyze_runs, replies\n-- columns: *\nSELECT * FROM a")}}
	for k, v := range base {
		reader[k] = v
	}
	if s, err := LoadSuite(reader); err != nil {
		t.Errorf("a query reading an output and analyze_runs: %v", err)
	} else if q, _ := s.Query("q"); q.CheckColumns([]string{"eval", "n"}) != nil || q.CheckColumns(nil) == nil {
		t.Errorf("columns *: any non-empty list of columns, got %v and %v", q.CheckColumns([]string{"eval", "n"}), q.CheckColumns(nil))
	}
	cases := []struct {
		name string
		edit fstest.MapFS
		want string
	}{
		{"no header", fstest.MapFS{"marts/a.sql": {Data: []byte("SELECT 1 AS eval")}}, "sql/marts/a.sql: no header"},
		{"missing kind", fstest.MapFS{"marts/a.sql": {Data: []byte(strings.Replace(good("a", "replies"), "-- kind: output\n", "", 1))}}, `sql/marts/a.sql: header: no "kind" line`},
		{"unknown key", fstest.MapFS{"marts/a.sql": {Data: []byte("-- outptu: a\n" + good("a", "replies"))}}, `unknown header key "outptu"`},
		{"output is not the file name", fstest.MapFS{"marts/a.sql": {Data: []byte(good("b", "replies"))}}, `output "b" must be the file's name, "a"`},
		{"unknown input", fstest.MapFS{"marts/a.sql": {Data: []byte(good("a", "replys"))}}, `"replys" is neither a table of schema/ nor an output`},
		{"an input table's name", fstest.MapFS{"marts/replies.sql": {Data: []byte(good("replies", "logs"))}, "marts/replies.yml": {Data: []byte(contract("replies"))}}, "is an input table of schema/"},
		{"two statements", fstest.MapFS{"marts/a.sql": {Data: []byte(good("a", "replies") + "; DROP TABLE replies;\n")}}, "holds one query; found 2 statements"},
		{"not a query", fstest.MapFS{"marts/a.sql": {Data: []byte(strings.Replace(good("a", "replies"), "SELECT 1 AS eval", "DELETE FROM replies", 1))}}, "starting WITH or SELECT"},
		{"a macro file with a query", fstest.MapFS{"macros/m.sql": {Data: []byte("-- output: m\n-- kind: macro\n-- measure: x\n-- needs:\nSELECT 1")}}, "only CREATE MACRO statements"},
		{"unknown variable", fstest.MapFS{"marts/a.sql": {Data: []byte(strings.Replace(good("a", "replies"), "SELECT 1 AS eval", "SELECT getvariable('seed') AS eval", 1))}}, `getvariable("seed")`},
		{"no contract", fstest.MapFS{"marts/b.sql": {Data: []byte(good("b", "replies"))}}, `output "b" has no contract: write sql/marts/b.yml`},
		{"contract grain differs", fstest.MapFS{"marts/a.yml": {Data: []byte(strings.Replace(contract("a"), "one row per eval", "one row per eval × route", 1))}}, "differs from sql/marts/a.sql's header grain"},
		{"contract without a file", fstest.MapFS{"marts/z.yml": {Data: []byte(contract("z"))}}, `a contract for "z", which no .sql file outputs`},
		{"a column without a label", fstest.MapFS{"marts/a.yml": {Data: []byte(strings.Replace(contract("a"), "label: eval, ", "", 1))}}, `column "eval": no label`},
		{"a column without a format", fstest.MapFS{"marts/a.yml": {Data: []byte(strings.Replace(contract("a"), "format: count, ", "", 1))}}, `column "eval": format "" is not one of identifier, text, count`},
		{"an interval end of no column", fstest.MapFS{"marts/a.yml": {Data: []byte(strings.Replace(contract("a"), "format: count, ", "format: interval_low, of: rate, ", 1))}}, `an interval_low names the column it is the interval of (of: <column>), not "rate"`},
		{"an unknown show", fstest.MapFS{"marts/a.yml": {Data: []byte(strings.Replace(contract("a"), "format: count, ", "format: count, show: sometimes, ", 1))}}, `show "sometimes" is not study or never`},
		{"contract key not a column", fstest.MapFS{"marts/a.yml": {Data: []byte(strings.Replace(contract("a"), "key: [eval]", "key: [route]", 1))}}, `key column "route" is not a column`},
		{"a query without columns", fstest.MapFS{"queries/q.sql": {Data: []byte("-- output: q\n-- kind: query\n-- grain: one row per log\n-- measure: x\n-- needs: logs\nSELECT log_id FROM logs")}}, "a query names the columns it returns"},
		{"a query hole not declared", fstest.MapFS{"queries/q.sql": {Data: []byte("-- output: q\n-- kind: query\n-- grain: one row per log\n-- measure: x\n-- needs: logs\n-- columns: v\nSELECT {{formula}} AS v FROM logs")}}, "hole {{formula}} is not declared"},
		{"a query hole never used", fstest.MapFS{"queries/q.sql": {Data: []byte("-- output: q\n-- kind: query\n-- grain: one row per log\n-- measure: x\n-- needs: logs\n-- columns: v\n-- holes: formula\nSELECT 1 AS v FROM logs")}}, `hole "formula" is never used`},
		{"a query reading an intermediate view", fstest.MapFS{
			"intermediate/v.sql": {Data: []byte("-- output: v\n-- kind: view\n-- grain: one row per log\n-- measure: x\n-- needs: logs\nSELECT log_id FROM logs")},
			"queries/q.sql":      {Data: []byte("-- output: q\n-- kind: query\n-- grain: one row per log\n-- measure: x\n-- needs: v\n-- columns: log_id\nSELECT log_id FROM v")},
		}, `"v" is a view inside analyze`},
		{"a check without its invariant", fstest.MapFS{"checks/c.sql": {Data: []byte("-- output: c\n-- kind: check\n-- grain: one row per log\n-- needs: logs\nSELECT log_id FROM logs")}}, `sql/checks/c.sql: header: no "invariant" line`},
		{"a check reading an intermediate view", fstest.MapFS{
			"intermediate/v.sql": {Data: []byte("-- output: v\n-- kind: view\n-- grain: one row per log\n-- measure: x\n-- needs: logs\nSELECT log_id FROM logs")},
			"checks/c.sql":       {Data: []byte("-- output: c\n-- kind: check\n-- invariant: i\n-- grain: one row per log\n-- needs: v\nSELECT log_id FROM v")},
		}, `"v" is a view inside analyze`},
		{"a check among the queries", fstest.MapFS{"queries/c.sql": {Data: []byte("-- output: c\n-- kind: check\n-- invariant: i\n-- grain: one row per log\n-- needs: logs\nSELECT log_id FROM logs")}}, "a check file lives in sql/checks/, not sql/queries/"},
		{"an invariant on a query", fstest.MapFS{"queries/q.sql": {Data: []byte("-- output: q\n-- kind: query\n-- invariant: i\n-- grain: one row per log\n-- measure: x\n-- needs: logs\n-- columns: v\nSELECT 1 AS v FROM logs")}}, "invariant is a key of a check"},
		{"a check hole not declared", fstest.MapFS{"checks/c.sql": {Data: []byte("-- output: c\n-- kind: check\n-- invariant: i\n-- grain: one row per log\n-- needs: logs\nSELECT log_id FROM logs WHERE set_status = {{counted}}")}}, "hole {{counted}} is not declared"},
		{"columns on an output", fstest.MapFS{"marts/a.sql": {Data: []byte(strings.Replace(good("a", "replies"), "-- kind: output\n", "-- kind: output\n-- columns: eval\n", 1))}}, "keys of a query"},
		{"a file outside the folders", fstest.MapFS{"c.sql": {Data: []byte(good("c", "replies"))}}, "sql/c.sql: not in a folder of sql/"},
		{"an output among the macros", fstest.MapFS{"macros/c.sql": {Data: []byte(good("c", "replies"))}}, "sql/macros/c.sql: a output file lives in sql/marts/, not sql/macros/"},
		{"a query among the marts", fstest.MapFS{"marts/q.sql": {Data: []byte("-- output: q\n-- kind: query\n-- grain: one row per log\n-- measure: x\n-- needs: logs\n-- columns: v\nSELECT 1 AS v FROM logs")}}, "a query file lives in sql/queries/"},
		{"a contract away from its file", fstest.MapFS{"intermediate/a.yml": {Data: []byte(contract("a"))}}, "sql/intermediate/a.yml: a contract lives in sql/marts/"},
		{"cycle", fstest.MapFS{
			"marts/a.sql": {Data: []byte(good("a", "b"))},
			"marts/b.sql": {Data: []byte(good("b", "a"))}, "marts/b.yml": {Data: []byte(contract("b"))},
		}, "the needs of a, b form a cycle"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fsys := fstest.MapFS{}
			for k, v := range base {
				fsys[k] = v
			}
			for k, v := range c.edit {
				fsys[k] = v
			}
			_, err := LoadSuite(fsys)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "nothing was run") {
				t.Errorf("got %v\nwant an error containing %q", err, c.want)
			}
		})
	}
}

// The dependency order runs every step after what it reads.
func TestSuiteOrder(t *testing.T) {
	s := loadSuite(t)
	pos := map[string]int{}
	for i, st := range s.Steps {
		pos[st.Output] = i
	}
	for _, st := range s.Steps {
		for _, n := range append(append([]string{}, st.Needs...), st.Optional...) {
			if p, ok := pos[n]; ok && p > pos[st.Output] {
				t.Errorf("%s runs before %s, which it reads", st.Output, n)
			}
		}
	}
}

// A value of the vocabulary the SQL names (class = 'truncated_empty',
// policy = 'P3', judge_class <> 'usable', role = 'model_under_test') is one
// the code defines (internal/vocab): a renamed class or policy fails here,
// not as a measure that silently counts nothing.
func TestSQLNamesOnlyVocabularyValues(t *testing.T) {
	sets := map[string][]string{
		"class": classify.Classes(), "orig_class": classify.Classes(), "rerun_class": classify.Classes(), "reply_class": classify.Classes(),
		"judge_class": classify.JudgeClasses(), "policy": vocab.Policies, "role": vocab.CallKinds,
	}
	cmp := regexp.MustCompile(`\b(class|orig_class|rerun_class|reply_class|judge_class|policy|role)\s*(?:=|<>|!=|(?i:not\s+in|in))\s*\(?\s*('[^']*'(?:\s*,\s*'[^']*')*)`)
	lit := regexp.MustCompile(`'([^']*)'`)
	files, err := fs.Glob(sqlfiles.FS, "*/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	named := 0
	for _, f := range files {
		b, err := fs.ReadFile(sqlfiles.FS, f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range cmp.FindAllStringSubmatch(string(b), -1) {
			for _, l := range lit.FindAllStringSubmatch(m[2], -1) {
				named++
				if !slices.Contains(sets[m[1]], l[1]) {
					t.Errorf("sql/%s: %s compared with %q, which is none of %v", f, m[1], l[1], sets[m[1]])
				}
			}
		}
	}
	if named < 10 {
		t.Errorf("only %d vocabulary values found in sql/: the pattern no longer reads the files", named)
	}
}

// A query file is filled and checked as the stage that runs it uses it:
// every hole filled, no unknown hole, the result's columns as its header
// names them.
func TestQueryFiles(t *testing.T) {
	s := loadSuite(t)
	for _, name := range []string{"headline_cells", "p0_recomputed", "headline_boot_samples"} {
		if _, ok := s.Query(name); !ok {
			t.Fatalf("no query %s in the embedded suite", name)
		}
		if _, ok := s.Step(name); ok {
			t.Errorf("query %s is also a step of analyze", name)
		}
	}
	q, _ := s.Query("p0_recomputed")
	holes := map[string]string{"components": "1 AS c", "averages": "avg(c) AS c", "scored_when": "c IS NOT NULL", "formula": "avg(c)"}
	text, err := q.Fill(holes)
	if err != nil || strings.Contains(text, "{{") || !strings.Contains(text, "SELECT log_id, policy, sample_id, 1 AS c") {
		t.Errorf("Fill: %v\n%s", err, text)
	}
	delete(holes, "formula")
	if _, err := q.Fill(holes); err == nil || !strings.Contains(err.Error(), "hole {{formula}} not filled") {
		t.Errorf("Fill without formula: %v", err)
	}
	holes["formula"], holes["extra"] = "avg(c)", "x"
	if _, err := q.Fill(holes); err == nil || !strings.Contains(err.Error(), "no hole {{extra}}") {
		t.Errorf("Fill with an unknown hole: %v", err)
	}
	if err := q.CheckColumns([]string{"log_id", "path", "results", "value"}); err != nil {
		t.Error(err)
	}
	if err := q.CheckColumns([]string{"log_id", "path", "value"}); err == nil || !strings.Contains(err.Error(), "its header says log_id, path, results, value") {
		t.Errorf("CheckColumns on other columns: %v", err)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// A check file's header names its invariant and the tables it reads; a
// query may read an output of analyze (a table of the dataset once analyze
// has run), as decide's do.
func TestCheckAndQueryHeaders(t *testing.T) {
	fsys := fstest.MapFS{
		"marts/a.sql":            {Data: []byte("-- output: a\n-- kind: output\n-- grain: one row per eval\n-- measure: m (pre-registration §5)\n-- needs: replies\nSELECT 1 AS eval\n")},
		"marts/a.yml":            {Data: []byte("output: a\ngrain: one row per eval\nkey: [eval]\ncolumns:\n  - {name: eval, type: INTEGER, label: eval, format: count, doc: d}\n")},
		"marts/analyze_runs.yml": {Data: []byte("output: analyze_runs\ngrain: " + runsGrain + "\nkey: [output]\ncolumns:\n  - {name: output, type: VARCHAR, label: table, format: identifier, doc: d}\n")},
		"queries/q.sql":          {Data: []byte("-- output: q\n-- kind: query\n-- grain: one row per eval\n-- measure: x\n-- needs: a\n-- columns: eval\nSELECT eval FROM a")},
		"checks/c.sql":           {Data: []byte("-- output: c\n-- kind: check\n-- invariant: every log is counted\n-- grain: one row per log not counted\n-- needs: logs\n-- holes: counted\nSELECT path FROM logs WHERE set_status <> {{counted}}")},
	}
	s, err := LoadSuite(fsys)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Query("c"); ok {
		t.Error("a check is not a query")
	}
	checks := s.Checks()
	if len(checks) != 1 || checks[0].Invariant != "every log is counted" || !slices.Equal(checks[0].Needs, []string{"logs"}) {
		t.Fatalf("checks %+v", checks)
	}
	got, err := checks[0].Fill(map[string]string{"counted": "'counted'"})
	if err != nil || !strings.Contains(got, "set_status <> 'counted'") {
		t.Errorf("filled %q, %v", got, err)
	}
}
