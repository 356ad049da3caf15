// Package schemacmd prints the published table schema (`empties schema`).
package schemacmd

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	json "github.com/goccy/go-json"
	"github.com/urfave/cli/v3"

	"empties/internal/cliutil"
	"empties/internal/measures"
	"empties/internal/vocab"
	"empties/schema"
	sqlfiles "empties/sql"
)

// Options configure the schema command.
type Options struct {
	Table  string // one table, or "" for all
	Format string // text, markdown or json
}

// Command returns the `schema` subcommand.
func Command() *cli.Command {
	return &cli.Command{
		Name:      "schema",
		Usage:     "print the tables empties writes: columns, types, meanings",
		ArgsUsage: "[TABLE]",
		Description: `Prints every table (or one), its grain, and each column's type, nullability
and meaning. The same declarations write the Parquet files. The JSON form also
carries the vocabulary the tables use (reply classes in order, classifier
rules, provider error forms, the non-answer rule, judge classes, policies, call
kinds), from the code that defines them; scripts read it from there.

Examples:
   empties schema
   empties schema replies
   empties schema --format json > schema.json`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Value: "text", Usage: "text, markdown or json"},
		},
		Arguments: []cli.Argument{&cli.StringArg{Name: "table"}},
		Action: func(ctx context.Context, c *cli.Command) error {
			return Run(ctx, Options{Table: c.StringArg("table"), Format: c.String("format")}, c.Root().Writer)
		},
	}
}

// table is one table's documentation, from the Go declarations in schema/
// or from an analysis output's contract in sql/.
type table struct {
	Name    string          `json:"name"`
	Grain   string          `json:"grain"`
	Doc     string          `json:"doc"`
	Owner   string          `json:"owner"`          // the one stage that writes it (schema.TableDef.Owner; analyze for outputs)
	Also    []string        `json:"also,omitempty"` // its documented second writers (classify)
	Key     []string        `json:"key,omitempty"`  // the columns that identify a row
	Columns []schema.Column `json:"columns"`
}

// writers says who writes the table, and its key.
func (t table) writers() string {
	s := "written by " + strings.Join(append([]string{t.Owner}, t.Also...), " and ")
	if len(t.Key) > 0 {
		s += "; key " + strings.Join(t.Key, ", ")
	}
	return s
}

// allTables lists the stages' tables, then the analysis outputs.
func allTables() ([]table, error) {
	var out []table
	values := map[string][]string{}
	for _, c := range vocab.Columns() {
		values[c.Table+"."+c.Column] = c.Values
	}
	for _, t := range schema.Tables() {
		cols := t.Columns()
		for i, c := range cols {
			if v, ok := values[t.Name+"."+c.Name]; ok {
				cols[i].Doc += "; one of " + strings.Join(v, ", ")
			}
		}
		out = append(out, table{Name: t.Name, Grain: t.Grain, Doc: t.Doc, Owner: t.Owner, Also: t.Also, Key: t.Key, Columns: cols})
	}
	suite, err := measures.LoadSuite(sqlfiles.FS)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(suite.Contracts))
	for n := range suite.Contracts {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		c := suite.Contracts[n]
		t := table{Name: c.Output, Grain: c.Grain, Owner: schema.StageAnalyze, Doc: strings.TrimSpace(c.Doc) + " (contract sql/" + c.Output + ".yml)"}
		for _, col := range c.Columns {
			t.Columns = append(t.Columns, schema.Column{Name: col.Name, Type: col.Type, Nullable: !col.NotNull, Doc: col.Doc})
		}
		out = append(out, t)
	}
	return out, nil
}

// Run prints the schema.
func Run(_ context.Context, opts Options, w io.Writer) error {
	tables, err := allTables()
	if err != nil {
		return err
	}
	if opts.Table != "" {
		var names []string
		var found []table
		for _, t := range tables {
			names = append(names, t.Name)
			if t.Name == opts.Table {
				found = append(found, t)
			}
		}
		if len(found) == 0 {
			return cliutil.Usagef("schema: no table %q; tables are %s", opts.Table, strings.Join(names, ", "))
		}
		tables = found
	}
	switch opts.Format {
	case "text":
		for i, t := range tables {
			if i > 0 {
				fmt.Fprintln(w)
			}
			fmt.Fprintf(w, "%s: %s\n  %s (%s)\n", t.Name, t.Grain, t.Doc, t.writers())
			for _, c := range t.Columns {
				null := ""
				if c.Nullable {
					null = " NULL"
				}
				fmt.Fprintf(w, "  %-26s %-26s %s\n", c.Name, c.Type+null, c.Doc)
			}
		}
	case "markdown":
		for _, t := range tables {
			fmt.Fprintf(w, "## %s\n\n%s. %s (%s)\n\n| column | type | null | meaning |\n|---|---|---|---|\n", t.Name, t.Grain, t.Doc, t.writers())
			for _, c := range t.Columns {
				fmt.Fprintf(w, "| %s | %s | %v | %s |\n", c.Name, c.Type, c.Nullable, strings.ReplaceAll(c.Doc, "|", `\|`))
			}
			fmt.Fprintln(w)
		}
	case "json":
		out := struct {
			Version    int              `json:"version"`
			Tables     []table          `json:"tables"`
			Vocabulary vocab.Vocabulary `json:"vocabulary"`
		}{Version: schema.Version, Tables: tables, Vocabulary: vocab.Export()}
		b, err := json.MarshalIndent(out, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintln(w, string(b))
	default:
		return cliutil.Usagef("schema: --format must be text, markdown or json, not %q", opts.Format)
	}
	return nil
}
