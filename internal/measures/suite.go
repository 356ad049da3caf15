package measures

import (
	"fmt"
	"io/fs"
	"maps"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"empties/schema"
)

// Step kinds, as a .sql header's kind names them.
const (
	KindMacro  = "macro"  // CREATE MACRO statements (shared SQL functions)
	KindView   = "view"   // a view other steps read
	KindTable  = "table"  // an intermediate table, built once, not written
	KindOutput = "output" // a table written to the dataset as Parquet, with a contract
	// KindQuery is a query another stage runs on its own connection (rescore's
	// headlines, check's invariants, the report's tables), never a step of
	// analyze: it reads the dataset's tables (analyze's outputs among them),
	// its given tables and macros. Its header names the columns it returns
	// (the stage checks them before reading a row; "*" for a query that lists
	// a table's own columns, whatever they are), the tables the stage creates
	// for it (given) and the holes the stage fills ({{name}}: the manifest's
	// SQL expressions, a table's quoted name).
	KindQuery = "query"
	// KindCheck is an invariant of the dataset's tables that `empties check`
	// verifies: a query returning the rows that break it (none when it
	// holds). Its header names the invariant (-- invariant: ...), the tables
	// it reads (needs: the check is skipped when one is missing) and the
	// holes check fills with values of the vocabulary ({{name}}).
	KindCheck = "check"
)

// RunsTable is the table every analyze run writes last: one row per output,
// with its status (ok, empty, or skipped for want of an input table).
const RunsTable = "analyze_runs"

// Variables the stage sets before running any file; files read them with
// getvariable('name').
var Variables = []string{"interval_level", "interval_z", "bootstrap_seed", "bootstrap_resamples", "examples_seed", "examples_per_class"}

// Header is the parsed header comment of a .sql file:
//
//	-- output: class_rates
//	-- kind: output
//	-- grain: one row per eval × route × arm × class
//	-- measure: Class rates (pre-registration §5 ...)
//	-- needs: study_replies, reply_classes, rates
//	-- optional: log_assignments
//
// The header is the file's first block of "-- key: value" lines; it ends at
// the first line that is not one. needs are the tables and steps the file
// reads: a missing source table there makes an output "skipped" (written
// empty). optional inputs may be missing (their view is then empty).
type Header struct {
	File     string // file name in the FS; "" for steps built in Go
	Output   string
	Kind     string
	Grain    string
	Measure  string
	Needs    []string
	Optional []string
	// Queries and checks only: the columns the query returns, in order; the
	// tables the running stage creates before running it; the {{holes}} it
	// fills.
	Columns []string
	Given   []string
	Holes   []string
	// Derived are the columns a query computes that no table declares, as
	// a page shows them (-- derived: name: format, label; ...): a report
	// query's list of classes, a renamed count.
	Derived []schema.Column
	// Checks only: the invariant, as `empties check` names it when broken.
	Invariant string
}

// Step is one node of the suite: a .sql file, or a table the stage builds in
// Go (bootstrap draws, lists from the manifest and the classifier).
type Step struct {
	Header
	Body     string    // the SQL after the header
	Contract *Contract // outputs only
	build    builder   // Go-built steps only
}

// Suite is every step, validated, in the order they run.
type Suite struct {
	Steps     []*Step
	Contracts map[string]*Contract // by output, RunsTable included
	byName    map[string]*Step
	queries   map[string]*Step // queries and checks, by name
}

var (
	headerRe = regexp.MustCompile(`^--\s*([a-z_]+):\s*(.*?)\s*$`)
	varRe    = regexp.MustCompile(`getvariable\(\s*'([^']*)'\s*\)`)
	nameRe   = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	macroRe  = regexp.MustCompile(`(?is)^create\s+(or\s+replace\s+)?macro\s`)
	queryRe  = regexp.MustCompile(`(?is)^(with|select)\s`)
)

// ParseHeader reads the header of one .sql file and returns it with the body.
func ParseHeader(file, text string) (Header, string, error) {
	h := Header{File: file}
	lines := strings.Split(text, "\n")
	seen := map[string]bool{}
	i := 0
	for ; i < len(lines); i++ {
		m := headerRe.FindStringSubmatch(strings.TrimRight(lines[i], "\r"))
		if m == nil {
			break
		}
		key, val := m[1], m[2]
		if seen[key] {
			return h, "", fmt.Errorf("line %d: header key %q given twice", i+1, key)
		}
		seen[key] = true
		switch key {
		case "output":
			h.Output = val
		case "kind":
			h.Kind = val
		case "grain":
			h.Grain = val
		case "measure":
			h.Measure = val
		case "needs":
			h.Needs = splitList(val)
		case "optional":
			h.Optional = splitList(val)
		case "columns":
			h.Columns = splitList(val)
		case "given":
			h.Given = splitList(val)
		case "holes":
			h.Holes = splitList(val)
		case "invariant":
			h.Invariant = val
		case "derived":
			d, err := parseDerived(val)
			if err != nil {
				return h, "", fmt.Errorf("line %d: derived: %w", i+1, err)
			}
			h.Derived = d
		default:
			return h, "", fmt.Errorf("line %d: unknown header key %q (keys: output, kind, grain, measure, needs, optional; for a query also columns, given, holes, derived; for a check invariant, holes)", i+1, key)
		}
	}
	if i == 0 {
		return h, "", fmt.Errorf("no header: the file must open with -- output:, -- kind:, -- grain:, -- measure: and -- needs: lines")
	}
	required := []string{"output", "kind", "measure", "needs"}
	if h.Kind == KindCheck {
		required = []string{"output", "kind", "invariant", "needs"}
	}
	for _, key := range required {
		if !seen[key] {
			return h, "", fmt.Errorf("header: no %q line", key)
		}
	}
	switch h.Kind {
	case KindMacro, KindView, KindTable, KindOutput:
		if len(h.Columns)+len(h.Given)+len(h.Holes)+len(h.Derived) > 0 || h.Invariant != "" {
			return h, "", fmt.Errorf("header: columns, given, holes and derived are keys of a query or check, invariant of a check, not of a %s", h.Kind)
		}
	case KindQuery:
		if len(h.Columns) == 0 {
			return h, "", fmt.Errorf("header: a query names the columns it returns (-- columns: a, b, ...)")
		}
		if h.Invariant != "" {
			return h, "", fmt.Errorf("header: invariant is a key of a check, not of a query")
		}
	case KindCheck:
		if len(h.Given) > 0 {
			return h, "", fmt.Errorf("header: a check reads the dataset's tables only (no given tables)")
		}
		if h.Invariant == "" {
			return h, "", fmt.Errorf("header: invariant is empty: name what the check verifies")
		}
	default:
		return h, "", fmt.Errorf("header: kind %q: kinds are macro, view, table, output, query, check", h.Kind)
	}
	if h.Kind != KindMacro && h.Grain == "" {
		return h, "", fmt.Errorf("header: no grain (\"one row per ...\")")
	}
	if h.Kind != KindCheck && h.Measure == "" {
		return h, "", fmt.Errorf("header: measure is empty: name the pre-registration measure the file implements")
	}
	return h, strings.Join(lines[i:], "\n"), nil
}

// parseDerived reads a query's derived columns: "name: format, label" each,
// separated by semicolons.
func parseDerived(s string) ([]schema.Column, error) {
	var out []schema.Column
	for _, part := range strings.Split(s, ";") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		name, rest, ok := strings.Cut(part, ":")
		format, label, ok2 := strings.Cut(rest, ",")
		c := schema.Column{Name: strings.TrimSpace(name), Format: strings.TrimSpace(format), Label: strings.TrimSpace(label)}
		if !ok || !ok2 || !nameRe.MatchString(c.Name) {
			return nil, fmt.Errorf("%q: write each as name: format, label (e.g. non_answer_classes: identifier, non-answers by class)", strings.TrimSpace(part))
		}
		if err := schema.CheckDisplay(c, nil); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// stripComments removes -- comments (outside string literals) and trims.
func stripComments(sql string) string {
	var b strings.Builder
	inString := false
	for i := 0; i < len(sql); i++ {
		c := sql[i]
		switch {
		case c == '\'':
			inString = !inString
		case !inString && c == '-' && i+1 < len(sql) && sql[i+1] == '-':
			for i < len(sql) && sql[i] != '\n' {
				i++
			}
			b.WriteByte('\n')
			continue
		}
		b.WriteByte(c)
	}
	return strings.TrimSpace(b.String())
}

// statements splits SQL (comments stripped) at semicolons outside strings.
func statements(sql string) []string {
	var out []string
	inString := false
	start := 0
	for i := 0; i < len(sql); i++ {
		switch sql[i] {
		case '\'':
			inString = !inString
		case ';':
			if !inString {
				if s := strings.TrimSpace(sql[start:i]); s != "" {
					out = append(out, s)
				}
				start = i + 1
			}
		}
	}
	if s := strings.TrimSpace(sql[start:]); s != "" {
		out = append(out, s)
	}
	return out
}

// checkBody validates what a step's SQL may be: CREATE MACRO statements for
// a macro, one query (WITH ... SELECT or SELECT) otherwise.
func checkBody(h Header, body string) (string, error) {
	stmts := statements(stripComments(body))
	if len(stmts) == 0 {
		return "", fmt.Errorf("no SQL after the header")
	}
	if h.Kind == KindMacro {
		for _, s := range stmts {
			if !macroRe.MatchString(s) {
				return "", fmt.Errorf("a macro file holds only CREATE MACRO statements; found %.40q", s)
			}
		}
		return body, nil
	}
	if len(stmts) != 1 {
		return "", fmt.Errorf("a %s file holds one query; found %d statements", h.Kind, len(stmts))
	}
	if !queryRe.MatchString(stmts[0]) {
		return "", fmt.Errorf("a %s file holds one query starting WITH or SELECT (the stage wraps it in CREATE); found %.40q", h.Kind, stmts[0])
	}
	return stmts[0], nil
}

// kindDirs are the folders of sql/ and the kinds of file each holds: shared
// macros, the intermediate steps other steps read (views and tables built
// on the staging views of internal/duck; dbt's word), the marts (the outputs
// analyze writes, each with its contract beside it), the queries other
// stages run on their own connection, and the invariants `empties check`
// verifies.
var kindDirs = map[string][]string{
	"macros":       {KindMacro},
	"intermediate": {KindView, KindTable},
	"marts":        {KindOutput},
	"queries":      {KindQuery},
	"checks":       {KindCheck},
}

// dirOfKind is the folder of sql/ that holds files of a kind.
func dirOfKind(kind string) string {
	for dir, kinds := range kindDirs {
		if slices.Contains(kinds, kind) {
			return dir
		}
	}
	return "?"
}

// suiteFiles lists the files of fsys ending in ext, sorted, each in one of
// the folders of kindDirs; a file elsewhere is reported through fail.
func suiteFiles(fsys fs.FS, ext string, fail func(string, error)) ([]string, error) {
	var files []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || path.Ext(p) != ext {
			return nil
		}
		if _, ok := kindDirs[path.Dir(p)]; !ok {
			fail("sql/"+p, fmt.Errorf("not in a folder of sql/: a file lives in macros/, intermediate/, marts/, queries/ or checks/, by its kind"))
			return nil
		}
		files = append(files, p)
		return nil
	})
	sort.Strings(files)
	return files, err
}

// LoadSuite reads every .sql file and contract of fsys, and validates them
// all before anything runs: headers, bodies, variables, the names each file
// needs, the dependency graph, and a contract beside every output.
func LoadSuite(fsys fs.FS) (*Suite, error) {
	s := &Suite{byName: map[string]*Step{}, queries: map[string]*Step{}, Contracts: map[string]*Contract{}}
	var errs []string
	fail := func(where string, err error) { errs = append(errs, fmt.Sprintf("%s: %v", where, err)) }
	files, err := suiteFiles(fsys, ".sql", fail)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("sql: no .sql files")
	}
	known := map[string]bool{}
	for _, v := range Variables {
		known[v] = true
	}
	for _, f := range files {
		data, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, err
		}
		h, body, err := ParseHeader(f, string(data))
		if err != nil {
			fail("sql/"+f, err)
			continue
		}
		if want := strings.TrimSuffix(path.Base(f), ".sql"); h.Output != want {
			fail("sql/"+f, fmt.Errorf("header: output %q must be the file's name, %q", h.Output, want))
			continue
		}
		if dir := path.Dir(f); !slices.Contains(kindDirs[dir], h.Kind) {
			fail("sql/"+f, fmt.Errorf("a %s file lives in sql/%s/, not sql/%s/", h.Kind, dirOfKind(h.Kind), dir))
			continue
		}
		query, err := checkBody(h, body)
		if err != nil {
			fail("sql/"+f, err)
			continue
		}
		for _, m := range varRe.FindAllStringSubmatch(body, -1) {
			if !known[m[1]] {
				fail("sql/"+f, fmt.Errorf("getvariable(%q): the stage sets only %s", m[1], strings.Join(Variables, ", ")))
			}
		}
		if h.Kind == KindQuery || h.Kind == KindCheck {
			s.addQuery(&Step{Header: h, Body: query}, fail)
			continue
		}
		s.add(&Step{Header: h, Body: query}, fail)
	}
	// A step built in Go joins the suite when a file reads it.
	for _, b := range builtins {
		if s.read(b.Output) {
			s.add(&Step{Header: b.Header, build: b.build}, fail)
		}
	}
	s.checkNames(fail)
	s.loadContracts(fsys, fail)
	if len(errs) == 0 {
		if err := s.order(); err != nil {
			errs = append(errs, err.Error())
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%d problems in the analysis SQL (nothing was run):\n  %s", len(errs), strings.Join(errs, "\n  "))
	}
	return s, nil
}

func (s *Suite) add(st *Step, fail func(string, error)) {
	where := st.where()
	if !nameRe.MatchString(st.Output) {
		fail(where, fmt.Errorf("output %q must be a lower-case identifier", st.Output))
		return
	}
	if _, ok := schema.Lookup(st.Output); ok {
		fail(where, fmt.Errorf("output %q is an input table of schema/; choose another name", st.Output))
		return
	}
	if prev, ok := s.byName[st.Output]; ok {
		fail(where, fmt.Errorf("output %q is also produced by %s", st.Output, prev.where()))
		return
	}
	if st.Output == RunsTable {
		fail(where, fmt.Errorf("output %q is written by the stage itself", RunsTable))
		return
	}
	s.byName[st.Output] = st
	s.Steps = append(s.Steps, st)
}

// holeRe is a hole of a query: {{name}}.
var holeRe = regexp.MustCompile(`\{\{\s*([a-z_]+)\s*\}\}`)

func (s *Suite) addQuery(st *Step, fail func(string, error)) {
	where := st.where()
	if !nameRe.MatchString(st.Output) {
		fail(where, fmt.Errorf("output %q must be a lower-case identifier", st.Output))
		return
	}
	declared := map[string]bool{}
	for _, h := range st.Holes {
		declared[h] = true
	}
	used := map[string]bool{}
	for _, m := range holeRe.FindAllStringSubmatch(st.Body, -1) {
		if !declared[m[1]] {
			fail(where, fmt.Errorf("hole {{%s}} is not declared in the header's holes", m[1]))
		}
		used[m[1]] = true
	}
	for _, h := range st.Holes {
		if !used[h] {
			fail(where, fmt.Errorf("header: hole %q is never used", h))
		}
	}
	s.queries[st.Output] = st
}

// Query returns the query file named name (kind: query).
func (s *Suite) Query(name string) (*Step, bool) {
	st, ok := s.queries[name]
	if !ok || st.Kind != KindQuery {
		return nil, false
	}
	return st, ok
}

// Checks returns the check files (kind: check), by name.
func (s *Suite) Checks() []*Step {
	var out []*Step
	for _, name := range slices.Sorted(maps.Keys(s.queries)) {
		if st := s.queries[name]; st.Kind == KindCheck {
			out = append(out, st)
		}
	}
	return out
}

// Fill returns a query's SQL with its holes filled; every hole must be given.
func (st *Step) Fill(holes map[string]string) (string, error) {
	for _, h := range st.Holes {
		if _, ok := holes[h]; !ok {
			return "", fmt.Errorf("%s: hole {{%s}} not filled", st.where(), h)
		}
	}
	for h := range holes {
		if !slices.Contains(st.Holes, h) {
			return "", fmt.Errorf("%s: no hole {{%s}}", st.where(), h)
		}
	}
	return holeRe.ReplaceAllStringFunc(st.Body, func(m string) string {
		return holes[holeRe.FindStringSubmatch(m)[1]]
	}), nil
}

// CheckColumns verifies that a query's result has the columns its header
// names, in order: the contract of what the stage scans. A query whose
// columns are "*" lists a table's own columns: any non-empty set.
func (st *Step) CheckColumns(got []string) error {
	if slices.Equal(st.Columns, []string{"*"}) && len(got) > 0 {
		return nil
	}
	if !slices.Equal(got, st.Columns) {
		return fmt.Errorf("%s returns columns %s; its header says %s", st.where(), strings.Join(got, ", "), strings.Join(st.Columns, ", "))
	}
	return nil
}

// read reports whether some step reads name.
func (s *Suite) read(name string) bool {
	for _, st := range s.Steps {
		for _, n := range append(append([]string{}, st.Needs...), st.Optional...) {
			if n == name {
				return true
			}
		}
	}
	return false
}

// checkNames verifies that every input a step names is a declared table of
// schema/ or another step.
func (s *Suite) checkNames(fail func(string, error)) {
	all := append([]*Step{}, s.Steps...)
	for _, name := range slices.Sorted(maps.Keys(s.queries)) {
		all = append(all, s.queries[name])
	}
	for _, st := range all {
		for _, n := range append(append([]string{}, st.Needs...), st.Optional...) {
			if _, ok := schema.Lookup(n); ok {
				continue
			}
			if dep, ok := s.byName[n]; ok {
				// An output is a table of the dataset once analyze has run;
				// views and intermediate tables live only inside analyze.
				if (st.Kind == KindQuery || st.Kind == KindCheck) && dep.Kind != KindMacro && dep.Kind != KindOutput {
					fail(st.where(), fmt.Errorf("header: a %s reads the dataset's tables (analyze's outputs included), its given tables and macros; %q is a %s inside analyze", st.Kind, n, dep.Kind))
				}
				continue
			}
			if st.Kind == KindQuery && n == RunsTable {
				continue
			}
			fail(st.where(), fmt.Errorf("header: %q is neither a table of schema/ nor an output of another file", n))
		}
	}
}

// order sorts the steps so every step runs after what it reads; among steps
// that are ready together, by name, so runs are deterministic.
func (s *Suite) order() error {
	indeg := map[string]int{}
	users := map[string][]string{}
	for _, st := range s.Steps {
		indeg[st.Output] += 0
		for _, n := range append(append([]string{}, st.Needs...), st.Optional...) {
			if _, ok := s.byName[n]; ok {
				indeg[st.Output]++
				users[n] = append(users[n], st.Output)
			}
		}
	}
	var ready []string
	for _, st := range s.Steps {
		if indeg[st.Output] == 0 {
			ready = append(ready, st.Output)
		}
	}
	var out []*Step
	for len(ready) > 0 {
		sort.Strings(ready)
		n := ready[0]
		ready = ready[1:]
		out = append(out, s.byName[n])
		for _, u := range users[n] {
			if indeg[u]--; indeg[u] == 0 {
				ready = append(ready, u)
			}
		}
	}
	if len(out) != len(s.Steps) {
		var stuck []string
		for _, st := range s.Steps {
			if indeg[st.Output] > 0 {
				stuck = append(stuck, st.Output)
			}
		}
		sort.Strings(stuck)
		return fmt.Errorf("sql: the needs of %s form a cycle", strings.Join(stuck, ", "))
	}
	s.Steps = out
	return nil
}

// Step returns the step producing name.
func (s *Suite) Step(name string) (*Step, bool) {
	st, ok := s.byName[name]
	return st, ok
}

// Outputs returns the output steps, in run order.
func (s *Suite) Outputs() []*Step {
	var out []*Step
	for _, st := range s.Steps {
		if st.Kind == KindOutput {
			out = append(out, st)
		}
	}
	return out
}

// Closure returns the steps needed to build the named steps, in run order.
func (s *Suite) Closure(names ...string) []*Step {
	want := map[string]bool{}
	var visit func(string)
	visit = func(n string) {
		st, ok := s.byName[n]
		if !ok || want[n] {
			return
		}
		want[n] = true
		for _, d := range append(append([]string{}, st.Needs...), st.Optional...) {
			visit(d)
		}
	}
	for _, n := range names {
		visit(n)
	}
	var out []*Step
	for _, st := range s.Steps {
		if want[st.Output] {
			out = append(out, st)
		}
	}
	return out
}

// Sources returns the schema tables the given steps read, sorted.
func Sources(steps []*Step) []string {
	seen := map[string]bool{}
	var out []string
	for _, st := range steps {
		for _, n := range append(append([]string{}, st.Needs...), st.Optional...) {
			if _, ok := schema.Lookup(n); ok && !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	sort.Strings(out)
	return out
}
