package measures

import (
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"empties/internal/duck"
)

// measureDir holds the test cases of the measures, one folder per step and
// case: testdata/measures/<output>/<case>/ with a CSV file of given rows per
// input table (<table>.csv, a header naming its columns; the others are
// NULL), expected.csv (the exact rows, numbers to six significant digits,
// NULL for a null), and case.yml (what the case shows; optionally the query
// that reads the output, default every row in its key's order, and the
// input tables treated as absent from the dataset). Adding a measure is
// adding its .sql file, its contract and a folder here.
const measureDir = "../../testdata/measures"

// measureCaseFile is case.yml.
type measureCaseFile struct {
	Name    string   `yaml:"name"`
	Query   string   `yaml:"query"`
	Why     string   `yaml:"why"`
	Missing []string `yaml:"missing"`
}

// loadMeasureCase reads one case folder: the given CSV files become INSERT
// statements over read_csv (every value read as text and cast to its
// column's type; an unquoted empty field is NULL, a quoted one the empty
// string).
func loadMeasureCase(t *testing.T, dir string) (measureCase, []string) {
	t.Helper()
	var meta measureCaseFile
	b, err := os.ReadFile(filepath.Join(dir, "case.yml"))
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	dec.KnownFields(true)
	if err := dec.Decode(&meta); err != nil {
		t.Fatalf("%s/case.yml: %v", dir, err)
	}
	if meta.Name == "" {
		t.Fatalf("%s/case.yml: no name: say what the case shows", dir)
	}
	c := measureCase{name: meta.Name, query: meta.Query, missing: meta.Missing}
	files, err := filepath.Glob(filepath.Join(dir, "*.csv"))
	if err != nil {
		t.Fatal(err)
	}
	var given []string
	for _, f := range files {
		table := strings.TrimSuffix(filepath.Base(f), ".csv")
		if table == "expected" {
			continue
		}
		abs, err := filepath.Abs(f)
		if err != nil {
			t.Fatal(err)
		}
		given = append(given, "INSERT INTO "+duck.Ident(table)+" BY NAME SELECT * FROM read_csv("+duck.Quote(abs)+
			", header = true, all_varchar = true, allow_quoted_nulls = false, delim = ',', quote = '\"', escape = '\"')")
	}
	c.given = strings.Join(given, ";\n")
	ef, err := os.Open(filepath.Join(dir, "expected.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	r := csv.NewReader(ef)
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatalf("%s/expected.csv: %v", dir, err)
	}
	if len(recs) == 0 {
		t.Fatalf("%s/expected.csv: no header", dir)
	}
	for _, rec := range recs[1:] {
		c.want = append(c.want, strings.Join(rec, " | "))
	}
	return c, recs[0]
}

// Every step of the suite (its views, intermediate tables and outputs) has
// at least one case folder, and every folder names a step: each case is
// built over its given rows, its contract checked, and its rows compared
// with expected.csv, columns by name.
func TestMeasureFolders(t *testing.T) {
	s := loadSuite(t)
	steps, err := os.ReadDir(measureDir)
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, d := range steps {
		if !d.IsDir() {
			continue
		}
		output := d.Name()
		have[output] = true
		if _, ok := s.Step(output); !ok {
			t.Errorf("testdata/measures/%s: no step of sql/ is named %s", output, output)
			continue
		}
		cases, err := os.ReadDir(filepath.Join(measureDir, output))
		if err != nil {
			t.Fatal(err)
		}
		var list []measureCase
		var cols [][]string
		for _, cd := range cases {
			if !cd.IsDir() {
				continue
			}
			c, header := loadMeasureCase(t, filepath.Join(measureDir, output, cd.Name()))
			c.name = cd.Name() + ": " + c.name
			list = append(list, c)
			cols = append(cols, header)
		}
		if len(list) == 0 {
			t.Errorf("testdata/measures/%s: no case folder", output)
			continue
		}
		t.Run(output, func(t *testing.T) { runMeasureCases(t, s, output, list, cols) })
	}
	var untested []string
	for _, st := range s.Steps {
		if st.File != "" && st.Kind != KindMacro && !have[st.Output] {
			untested = append(untested, st.Output)
		}
	}
	sort.Strings(untested)
	if len(untested) > 0 {
		t.Errorf("steps without a case folder in testdata/measures/: %v", untested)
	}
}

// runMeasureCases runs the cases of one step: builds it over the given rows,
// checks its contract, the result's column names against expected.csv's
// header, and its rows against the expected ones.
func runMeasureCases(t *testing.T, s *Suite, output string, cases []measureCase, cols [][]string) {
	st, _ := s.Step(output)
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			conn, _ := buildStep(t, s, output, c.given, c.missing)
			ctx := context.Background()
			if st.Contract != nil {
				broken, err := st.Contract.Check(ctx, conn)
				if err != nil {
					t.Fatal(err)
				}
				for _, b := range broken {
					t.Errorf("contract: %s", b)
				}
			}
			q := c.query
			if q == "" {
				q = "SELECT * FROM " + output
				if st.Contract != nil {
					q += " ORDER BY " + st.Contract.KeyOrder()
				}
			}
			rs, err := conn.QueryContext(ctx, q)
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			got, _ := rs.Columns()
			rs.Close()
			if !slices.Equal(got, cols[i]) {
				t.Errorf("columns %v, expected.csv names %v", got, cols[i])
			}
			rows := queryRows(t, conn, q)
			if strings.Join(rows, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("%s:\ngot\n  %s\nwant\n  %s", q, strings.Join(rows, "\n  "), strings.Join(c.want, "\n  "))
			}
		})
	}
}
