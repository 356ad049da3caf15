package measures

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"empties/internal/duck"
	"empties/schema"
)

// Contract is the promise an output table keeps (sql/marts/<output>.yml): its
// grain, the key that is unique at that grain, every column with its type and
// meaning, and invariants, each a query returning the rows that break it.
type Contract struct {
	File       string      `yaml:"-"`
	Output     string      `yaml:"output"`
	Grain      string      `yaml:"grain"`
	Doc        string      `yaml:"doc"`
	Key        []string    `yaml:"key"`
	Columns    []Column    `yaml:"columns"`
	Invariants []Invariant `yaml:"invariants"`
}

// Column is one column of an output: its name, type and meaning, and how a
// page shows it (label, format, of, show: schema/formats.go), which every
// column declares.
type Column struct {
	Name    string `yaml:"name"`
	Type    string `yaml:"type"`
	NotNull bool   `yaml:"not_null"`
	Label   string `yaml:"label"`
	Format  string `yaml:"format"`
	Of      string `yaml:"of"`
	Show    string `yaml:"show"`
	Doc     string `yaml:"doc"`
}

// Display is the column as schema describes a shown column.
func (c Column) Display() schema.Column {
	return schema.Column{Name: c.Name, Type: c.Type, Nullable: !c.NotNull, Doc: c.Doc,
		Label: c.Label, Format: c.Format, Of: c.Of, Show: c.Show}
}

// Invariant is a named query that returns the rows breaking it.
type Invariant struct {
	Name     string `yaml:"name"`
	Breaking string `yaml:"breaking"`
}

var columnTypes = map[string]bool{
	"VARCHAR": true, "BIGINT": true, "INTEGER": true, "DOUBLE": true, "BOOLEAN": true,
	"VARCHAR[]": true, "TIMESTAMP WITH TIME ZONE": true,
}

func (s *Suite) loadContracts(fsys fs.FS, fail func(string, error)) {
	files, err := suiteFiles(fsys, ".yml", fail)
	if err != nil {
		fail("sql/", err)
		return
	}
	for _, f := range files {
		if path.Dir(f) != "marts" {
			fail("sql/"+f, fmt.Errorf("a contract lives in sql/marts/, beside its output's .sql file"))
			continue
		}
		data, err := fs.ReadFile(fsys, f)
		if err != nil {
			fail("sql/"+f, err)
			continue
		}
		c := &Contract{File: f}
		dec := yaml.NewDecoder(bytes.NewReader(data))
		dec.KnownFields(true)
		if err := dec.Decode(c); err != nil {
			fail("sql/"+f, err)
			continue
		}
		if want := strings.TrimSuffix(path.Base(f), ".yml"); c.Output != want {
			fail("sql/"+f, fmt.Errorf("output %q must be the file's name, %q", c.Output, want))
			continue
		}
		if err := c.validate(); err != nil {
			fail("sql/"+f, err)
			continue
		}
		st, ok := s.byName[c.Output]
		switch {
		case c.Output == RunsTable:
			if c.Grain != runsGrain {
				fail("sql/"+f, fmt.Errorf("grain %q differs from the stage's %q", c.Grain, runsGrain))
				continue
			}
		case !ok || st.Kind != KindOutput:
			fail("sql/"+f, fmt.Errorf("a contract for %q, which no .sql file outputs", c.Output))
			continue
		case st.Grain != c.Grain:
			fail("sql/"+f, fmt.Errorf("grain %q differs from sql/%s's header grain %q", c.Grain, st.File, st.Grain))
			continue
		default:
			st.Contract = c
		}
		s.Contracts[c.Output] = c
	}
	for _, st := range s.Steps {
		if st.Kind == KindOutput && st.Contract == nil {
			fail(st.where(), fmt.Errorf("output %q has no contract: write sql/marts/%s.yml (grain, key, columns, invariants)", st.Output, st.Output))
		}
	}
	if _, ok := s.Contracts[RunsTable]; !ok {
		fail("sql/marts/"+RunsTable+".yml", fmt.Errorf("missing: the contract of the table the stage writes last"))
	}
}

func (c *Contract) validate() error {
	if c.Grain == "" {
		return fmt.Errorf("no grain")
	}
	if len(c.Columns) == 0 {
		return fmt.Errorf("no columns")
	}
	cols := map[string]bool{}
	var names []string
	for _, col := range c.Columns {
		names = append(names, col.Name)
	}
	for _, col := range c.Columns {
		if col.Name == "" || !columnTypes[col.Type] {
			return fmt.Errorf("column %q: type %q is not one of VARCHAR, BIGINT, INTEGER, DOUBLE, BOOLEAN, VARCHAR[], TIMESTAMP WITH TIME ZONE", col.Name, col.Type)
		}
		if col.Doc == "" {
			return fmt.Errorf("column %q: no doc", col.Name)
		}
		if cols[col.Name] {
			return fmt.Errorf("column %q listed twice", col.Name)
		}
		if err := schema.CheckDisplay(col.Display(), names); err != nil {
			return err
		}
		cols[col.Name] = true
	}
	if len(c.Key) == 0 {
		return fmt.Errorf("no key: name the columns unique at the grain")
	}
	for _, k := range c.Key {
		if !cols[k] {
			return fmt.Errorf("key column %q is not a column", k)
		}
	}
	for _, inv := range c.Invariants {
		if inv.Name == "" || strings.TrimSpace(inv.Breaking) == "" {
			return fmt.Errorf("an invariant needs a name and a breaking query")
		}
	}
	return nil
}

// querier is what contracts and steps run against: *sql.Conn or *sql.DB.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Check verifies the built table against the contract and returns every
// broken promise: columns (names, order, types), not-null columns, the key,
// and the invariants.
func (c *Contract) Check(ctx context.Context, q querier) ([]string, error) {
	var broken []string
	rows, err := q.QueryContext(ctx, `SELECT column_name, data_type FROM information_schema.columns
		WHERE table_name = ? AND table_schema = 'main' ORDER BY ordinal_position`, c.Output)
	if err != nil {
		return nil, err
	}
	var got []string
	for rows.Next() {
		var name, typ string
		if err := rows.Scan(&name, &typ); err != nil {
			rows.Close()
			return nil, err
		}
		got = append(got, name+" "+typ)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var want []string
	for _, col := range c.Columns {
		want = append(want, col.Name+" "+col.Type)
	}
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		return []string{fmt.Sprintf("%s: columns are\n    %s\n  the contract says\n    %s", c.Output, strings.Join(got, ", "), strings.Join(want, ", "))}, nil
	}
	var nn []string
	for _, col := range c.Columns {
		if col.NotNull {
			nn = append(nn, fmt.Sprintf("count(*) FILTER (WHERE %s IS NULL)", duck.Ident(col.Name)))
		}
	}
	if len(nn) > 0 {
		vals := make([]int64, len(nn))
		ptrs := make([]any, len(nn))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := q.QueryRowContext(ctx, "SELECT "+strings.Join(nn, ", ")+" FROM "+duck.Ident(c.Output)).Scan(ptrs...); err != nil {
			return nil, fmt.Errorf("%s: not-null check: %w", c.Output, err)
		}
		i := 0
		for _, col := range c.Columns {
			if col.NotNull {
				if vals[i] > 0 {
					broken = append(broken, fmt.Sprintf("%s.%s: %d NULLs in a not-null column", c.Output, col.Name, vals[i]))
				}
				i++
			}
		}
	}
	keys := make([]string, len(c.Key))
	for i, k := range c.Key {
		keys[i] = duck.Ident(k)
	}
	var dup int64
	dq := fmt.Sprintf("SELECT count(*) FROM (SELECT %s FROM %s GROUP BY ALL HAVING count(*) > 1)", strings.Join(keys, ", "), duck.Ident(c.Output))
	if err := q.QueryRowContext(ctx, dq).Scan(&dup); err != nil {
		return nil, fmt.Errorf("%s: key check: %w", c.Output, err)
	}
	if dup > 0 {
		broken = append(broken, fmt.Sprintf("%s: %d key values (%s) appear more than once", c.Output, dup, strings.Join(c.Key, ", ")))
	}
	for _, inv := range c.Invariants {
		var n int64
		if err := q.QueryRowContext(ctx, "SELECT count(*) FROM ("+inv.Breaking+")").Scan(&n); err != nil {
			return nil, fmt.Errorf("%s: invariant %q: %w", c.Output, inv.Name, err)
		}
		if n > 0 {
			broken = append(broken, fmt.Sprintf("%s: invariant %q broken by %d rows (%s)", c.Output, inv.Name, n, strings.Join(strings.Fields(inv.Breaking), " ")))
		}
	}
	sort.Strings(broken)
	return broken, nil
}

// KeyOrder is the ORDER BY clause listing the key columns.
func (c *Contract) KeyOrder() string {
	keys := make([]string, len(c.Key))
	for i, k := range c.Key {
		keys[i] = duck.Ident(k)
	}
	return strings.Join(keys, ", ")
}
