// Package schemacmd prints the published table schema (`empties schema`):
// the tables' documentation (catalog.Tables) and, in JSON, the vocabulary
// (vocab.Export).
package schemacmd

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	json "github.com/goccy/go-json"
	"github.com/urfave/cli/v3"

	"empties/internal/catalog"
	"empties/internal/cliutil"
	"empties/internal/vocab"
	"empties/schema"
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
		Description: `Prints every table (or one), its grain, and each column's type, nullability,
the label and format the report and empties serve show it with (in brackets),
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

// Formats are the values of --format.
var Formats = []string{"text", "markdown", "json"}

// Validate checks the options before any work.
func (o Options) Validate() error {
	if !slices.Contains(Formats, o.Format) {
		return cliutil.Usagef("schema: --format must be text, markdown or json, not %q", o.Format)
	}
	return nil
}

// shownAs is how a page heads and formats a column ("non-answers", percent:
// ), "" for a column no page shows.
func shownAs(c schema.Column) string {
	if c.Label == "" {
		return ""
	}
	// A label's mode words read as both of their forms here.
	label := strings.NewReplacer("{evals}", "evals/tasks", "{eval}", "eval/task", "{routes}", "routes/models", "{route}", "route/model").Replace(c.Label)
	s := fmt.Sprintf("%q, %s", label, c.Format)
	if c.Of != "" {
		s += " of " + c.Of
	}
	switch c.Show {
	case schema.ShowNever:
		s += ", files only"
	case schema.ShowStudy:
		s += ", in a study"
	}
	return "[" + s + "]: "
}

// Run prints the schema.
func Run(_ context.Context, opts Options, w io.Writer) error {
	if err := opts.Validate(); err != nil {
		return err
	}
	tables, err := catalog.Tables()
	if err != nil {
		return err
	}
	if opts.Table != "" {
		var names []string
		var found []catalog.Table
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
			fmt.Fprintf(w, "%s: %s\n  %s (%s)\n", t.Name, t.Grain, t.Doc, t.Writers())
			for _, c := range t.Columns {
				null := ""
				if c.Nullable {
					null = " NULL"
				}
				fmt.Fprintf(w, "  %-26s %-26s %s%s\n", c.Name, c.Type+null, shownAs(c), c.Doc)
			}
		}
	case "markdown":
		for _, t := range tables {
			fmt.Fprintf(w, "## %s\n\n%s. %s (%s)\n\n| column | type | null | shown as | meaning |\n|---|---|---|---|---|\n", t.Name, t.Grain, t.Doc, t.Writers())
			for _, c := range t.Columns {
				fmt.Fprintf(w, "| %s | %s | %v | %s | %s |\n", c.Name, c.Type, c.Nullable, strings.ReplaceAll(strings.TrimSuffix(shownAs(c), ": "), "|", `\|`), strings.ReplaceAll(c.Doc, "|", `\|`))
			}
			fmt.Fprintln(w)
		}
	case "json":
		out := struct {
			Version    int              `json:"version"`
			Tables     []catalog.Table  `json:"tables"`
			Vocabulary vocab.Vocabulary `json:"vocabulary"`
		}{Version: schema.Version, Tables: tables, Vocabulary: vocab.Export()}
		b, err := json.MarshalIndent(out, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintln(w, string(b))
	}
	return nil
}
