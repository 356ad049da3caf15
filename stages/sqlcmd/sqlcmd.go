// Package sqlcmd runs ad-hoc SQL over a dataset's tables (`empties sql`).
package sqlcmd

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	json "github.com/goccy/go-json"
	"github.com/urfave/cli/v3"

	"empties/internal/cliutil"
	"empties/internal/duck"
	"empties/internal/sqlfmt"
)

// Options configure an ad-hoc query.
type Options struct {
	Query  string
	Data   string
	Format string // table, csv, json
	Width  int    // table cells are cut to this many characters (0 = no limit)
}

// Command returns the `sql` subcommand.
func Command() *cli.Command {
	return &cli.Command{
		Name:      "sql",
		Usage:     "run SQL over the tables of a dataset with the embedded DuckDB",
		ArgsUsage: "QUERY",
		Description: `Every table of the dataset is a view (logs, replies, scores, model_calls,
ingest_errors, and the later stages' tables when present) over its current
generation. The views of the declared tables are the typed staging views every
reader shares (analyze, check, DIR/empties.duckdb and the notebook): each
column cast to the type ` + "`empties schema`" + ` prints. They hold every row,
superseded logs' included (logs.set_status says which; the measures leave those
out).

Examples:
   empties sql "SELECT class, count(*) AS n FROM replies GROUP BY ALL ORDER BY n DESC" --data data/study
   empties sql "SELECT * FROM model_calls WHERE kind = 'judge'" --data data/study --format csv > judges.csv
   empties sql "DESCRIBE replies" --data data/study`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "data", Aliases: []string{"d"}, Usage: "dataset `DIR` written by ingest", Required: true},
			&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: "table", Usage: "table, csv or json (one object per line)"},
			&cli.IntFlag{Name: "width", Value: 60, Usage: "cut table cells to this many characters (0 = no limit)"},
		},
		Arguments: []cli.Argument{&cli.StringArg{Name: "query"}},
		Action: func(ctx context.Context, c *cli.Command) error {
			return Run(ctx, Options{Query: c.StringArg("query"), Data: c.String("data"), Format: c.String("format"), Width: c.Int("width")}, c.Root().Writer)
		},
	}
}

// Run executes the query and prints its result.
func Run(ctx context.Context, opts Options, w io.Writer) error {
	if strings.TrimSpace(opts.Query) == "" {
		return cliutil.Usagef("sql: no QUERY given, e.g. empties sql \"SELECT count(*) FROM replies\" --data DIR")
	}
	switch opts.Format {
	case "table", "csv", "json":
	default:
		return cliutil.Usagef("sql: --format must be table, csv or json, not %q", opts.Format)
	}
	db, tables, err := duck.OpenDataset(ctx, opts.Data)
	if err != nil {
		return err
	}
	defer db.Close()
	if len(tables) == 0 {
		return cliutil.Usagef("sql: %s holds no tables; run `empties ingest LOGS --out %s` first", opts.Data, opts.Data)
	}
	cols, vals, err := duck.Rows(ctx, db, opts.Query)
	if err != nil {
		return fmt.Errorf("sql: %w", err)
	}
	out := make([][]string, len(vals))
	var records []map[string]any
	for r, row := range vals {
		out[r] = make([]string, len(row))
		rec := map[string]any{}
		for i, v := range row {
			out[r][i] = sqlfmt.Format(v)
			rec[cols[i]] = jsonValue(v)
		}
		if opts.Format == "json" {
			records = append(records, rec)
		}
	}
	switch opts.Format {
	case "csv":
		cw := csv.NewWriter(w)
		cw.Write(cols)
		cw.WriteAll(out)
		return cw.Error()
	case "json":
		for _, rec := range records {
			b, err := json.Marshal(orderedRecord{cols, rec})
			if err != nil {
				return err
			}
			fmt.Fprintln(w, string(b))
		}
		return nil
	}
	printTable(w, cols, out, opts.Width)
	fmt.Fprintf(w, "(%d rows)\n", len(out))
	return nil
}

type orderedRecord struct {
	cols []string
	m    map[string]any
}

func (o orderedRecord) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	b.WriteByte('{')
	for i, c := range o.cols {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(c)
		v, err := json.Marshal(o.m[c])
		if err != nil {
			v, _ = json.Marshal(fmt.Sprint(o.m[c]))
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}

func jsonValue(v any) any {
	switch x := v.(type) {
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return sqlfmt.Format(x)
		}
	case []byte:
		return string(x)
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	}
	return v
}

func printTable(w io.Writer, cols []string, rows [][]string, width int) {
	cut := func(s string) string {
		s = strings.ReplaceAll(s, "\n", `\n`)
		if width > 0 && utf8.RuneCountInString(s) > width {
			r := []rune(s)
			return string(r[:width-1]) + "…"
		}
		return s
	}
	widths := make([]int, len(cols))
	for i, c := range cols {
		widths[i] = utf8.RuneCountInString(c)
	}
	cells := make([][]string, len(rows))
	for r, row := range rows {
		cells[r] = make([]string, len(row))
		for i, v := range row {
			cells[r][i] = cut(v)
			widths[i] = max(widths[i], utf8.RuneCountInString(cells[r][i]))
		}
	}
	line := func(vals []string) {
		for i, v := range vals {
			if i > 0 {
				fmt.Fprint(w, "  ")
			}
			fmt.Fprint(w, v+strings.Repeat(" ", widths[i]-utf8.RuneCountInString(v)))
		}
		fmt.Fprintln(w)
	}
	line(cols)
	sep := make([]string, len(cols))
	for i := range sep {
		sep[i] = strings.Repeat("-", widths[i])
	}
	line(sep)
	for _, r := range cells {
		line(r)
	}
}
