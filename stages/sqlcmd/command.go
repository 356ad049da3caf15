// Package sqlcmd runs ad-hoc SQL over a dataset's tables (`empties sql`):
// the dataset opened read-only and each statement through the one gate
// (duck.OpenReader, internal/duck/readonly.go, shared with serve's SQL box),
// the rows printed as a table (table.go) or written by DuckDB's own CSV,
// JSON and Parquet writers.
package sqlcmd

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	json "github.com/goccy/go-json"
	"github.com/urfave/cli/v3"

	"empties/internal/cliutil"
	"empties/internal/duck"
	"empties/internal/guard"
	"empties/internal/numfmt"
	"empties/internal/sqlfmt"
	"empties/internal/store"
)

// Options configure an ad-hoc query.
type Options struct {
	Query  string
	Data   string
	Format string // table, csv, json, parquet
	Width  int    // table cells are cut to this many characters (0 = no limit)
	Output string // write the result to this new file instead of the terminal
	// The query's limits: memory and spill in bytes (0: the defaults,
	// DefaultMemory and DefaultSpill), threads (0: every core), time (0:
	// none).
	Memory, Spill int64
	Threads       int
	Timeout       time.Duration
}

// DefaultMemory is what a query may hold in memory unless --memory-limit
// says: half of the machine's (or its container's) memory, where DuckDB
// would take 80%. Past it DuckDB spills to disk.
func DefaultMemory() int64 { return duck.TotalMemory() / 2 }

// DefaultSpill is what a query may spill unless --max-spill says: half the
// free space of the temporary folder, at most 64 GiB.
func DefaultSpill() int64 { return duck.FreeSpill(os.TempDir(), 64<<30) }

// Formats are the values of --format.
var Formats = []string{"table", "csv", "json", "parquet"}

// Command returns the `sql` subcommand.
func Command() *cli.Command {
	return &cli.Command{
		Name:      "sql",
		Usage:     "run a SELECT over the tables of a dataset with the embedded DuckDB",
		ArgsUsage: "QUERY",
		Description: `Every table of the dataset is a view (logs, replies, scores, model_calls,
ingest_errors, and the later stages' tables when present) over its current
generation. The views of the declared tables are the typed staging views every
reader shares (analyze, check, DIR/empties.duckdb and the notebook): each
column cast to the type ` + "`empties schema`" + ` prints. They hold every row,
superseded logs' included (logs.set_status says which; the measures leave those
out).

QUERY is one statement that reads: a SELECT (also FROM ..., WITH ..., VALUES,
DESCRIBE, SHOW, SUMMARIZE) or an EXPLAIN of one. Anything that would write
(COPY, EXPORT, ATTACH, CREATE, DROP, ALTER, INSERT, UPDATE, DELETE, SET,
PRAGMA settings, INSTALL, LOAD, CHECKPOINT, table functions that are no
readers such as checkpoint() or query()) is refused before it runs, and
settings are locked, so no query changes the dataset or any other file; the
read_* functions read files inside the dataset only. Rows stream as DuckDB produces them:
memory stays flat whatever the result's size, and a reader that stops early
(| head) ends the query.

--format csv, json and parquet are DuckDB's own writers (COPY): csv with a
header, NULL as an empty field and an empty string as ""; json one object per
line, NaN and infinities as the bare literals NaN, Infinity and -Infinity (as
inspect_ai writes them); parquet needs --output. Times print in UTC. table
sizes its columns from the first 1,000 rows.

A query holds at most --memory-limit in memory (default: half of the
machine's) and spills at most --max-spill to the temporary folder (default:
half its free space, at most 64 GiB); --timeout stops it after a time
(default: none; Ctrl-C stops it too), --threads bounds its cores. A query
stopped by a limit says which, and the flag that raises it.

Examples:
   empties sql "SELECT class, count(*) AS n FROM replies GROUP BY ALL ORDER BY n DESC" --data data/study
   empties sql "SELECT * FROM model_calls WHERE kind = 'judge'" --data data/study --format csv > judges.csv
   empties sql "FROM replies" --data data/study --format parquet --output replies.parquet
   empties sql "DESCRIBE replies" --data data/study
   empties sql "SELECT * FROM model_calls ORDER BY input_tokens DESC" --data data/study --memory-limit 8GiB --timeout 10m`,
		Flags: []cli.Flag{
			cliutil.NewDataFlag("written by ingest"),
			&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: "table", Usage: "table, csv, json (one object per line) or parquet (with --output)"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the result to `FILE`, a new file outside the dataset, instead of the terminal"},
			&cli.IntFlag{Name: "width", Value: 60, Usage: "cut table cells to this many characters (0 = no limit)"},
			&cli.StringFlag{Name: "memory-limit", Usage: "the most the query holds in memory, e.g. 8GiB or 25% (default: half of the machine's memory)"},
			&cli.StringFlag{Name: "max-spill", Usage: "the most the query spills to disk past its memory, e.g. 100GB (default: half the free space of the temporary folder, at most 64 GiB)"},
			&cli.DurationFlag{Name: "timeout", Usage: "stop the query after this long, e.g. 10m (default: no time limit)"},
			&cli.IntFlag{Name: "threads", Usage: "the cores the query may use (default: every core)"},
		},
		Arguments: []cli.Argument{&cli.StringArg{Name: "query"}},
		Action: func(ctx context.Context, c *cli.Command) error {
			opts := Options{Query: c.StringArg("query"), Data: c.String(cliutil.DataFlag), Format: c.String("format"),
				Width: c.Int("width"), Output: c.String("output"), Threads: c.Int("threads"), Timeout: c.Duration("timeout")}
			var err error
			if opts.Memory, err = sizeFlag(c, "memory-limit"); err != nil {
				return err
			}
			if opts.Spill, err = sizeFlag(c, "max-spill"); err != nil {
				return err
			}
			return Run(ctx, opts, c.Root().Writer)
		},
	}
}

// sizeFlag reads a size flag (0 when not given).
func sizeFlag(c *cli.Command, name string) (int64, error) {
	if !c.IsSet(name) {
		return 0, nil
	}
	n, err := duck.ParseBytes(c.String(name))
	if err != nil {
		return 0, cliutil.Usagef("sql: --%s: %v", name, err)
	}
	return n, nil
}

// Validate checks the options before any work.
func (o Options) Validate() error {
	if strings.TrimSpace(o.Query) == "" {
		return cliutil.Usagef("sql: no QUERY given, e.g. empties sql \"SELECT count(*) FROM replies\" --data DIR")
	}
	if o.Data == "" {
		return cliutil.Required("sql", "--data DIR")
	}
	switch o.Format {
	case "table", "csv", "json":
	case "parquet":
		if o.Output == "" {
			return cliutil.Usagef("sql: --format parquet writes a file: add --output FILE")
		}
	default:
		return cliutil.Usagef("sql: --format must be one of %s, not %q", strings.Join(Formats, ", "), o.Format)
	}
	if o.Width < 0 {
		return cliutil.Usagef("sql: --width must be 0 (no limit) or more, not %d", o.Width)
	}
	if o.Threads < 0 || o.Memory < 0 || o.Spill < 0 || o.Timeout < 0 {
		return cliutil.Usagef("sql: --threads, --memory-limit, --max-spill and --timeout cannot be negative")
	}
	return nil
}

// limits are the query's limits, defaults filled in.
func (o Options) limits() duck.Limits {
	return duck.Limits{Memory: o.Memory, Spill: o.Spill, Threads: o.Threads, Timeout: o.Timeout,
		MemoryFlag: "--memory-limit", SpillFlag: "--max-spill", TimeoutFlag: "--timeout"}.Or(duck.Limits{Memory: DefaultMemory(), Spill: DefaultSpill()})
}

// Run executes the query and writes its result to w, or to opts.Output.
func Run(ctx context.Context, opts Options, w io.Writer) error {
	if err := opts.Validate(); err != nil {
		return err
	}
	if err := store.CheckReadable("sql", opts.Data); err != nil {
		return err
	}
	var out *guard.Files
	if opts.Output != "" {
		var err error
		out, err = guard.OpenFiles(guard.Rules{Avoid: []string{opts.Data}}, guard.File{Path: opts.Output})
		if err != nil {
			return fmt.Errorf("sql: --output: %w", err)
		}
		defer out.Close()
	}
	db, err := duck.OpenReader(ctx, opts.Data, opts.limits())
	if err != nil {
		return err
	}
	defer db.Close()
	if len(db.Tables) == 0 {
		return cliutil.Usagef("sql: %s holds no tables; run `empties ingest LOGS --out %s` first", opts.Data, opts.Data)
	}
	stmt, err := db.Check(ctx, opts.Query)
	var refused *duck.Refused
	if errors.As(err, &refused) {
		return cliutil.Usagef("sql: refused, nothing ran: %v. empties sql only reads: one SELECT (FROM, WITH, VALUES, DESCRIBE, SHOW, SUMMARIZE) or an EXPLAIN of one; to save a result, add --format csv|json|parquet --output FILE", err)
	}
	if err != nil {
		return fmt.Errorf("sql: %w", err)
	}
	// A reader that goes away (| head) makes writes fail with EPIPE, and
	// the query end, instead of the signal killing the process.
	signal.Ignore(syscall.SIGPIPE)
	defer signal.Reset(syscall.SIGPIPE)
	ctx, cancel := db.Limits.Context(ctx)
	defer cancel()
	q := query{opts: opts, stmt: stmt, db: db}
	if out == nil {
		err = q.write(ctx, w)
		if duck.IsBrokenPipe(err) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("sql: %w", err)
		}
		return nil
	}
	if err := out.Write(opts.Output, func(fw io.Writer) error { return q.write(ctx, fw) }); err != nil {
		return fmt.Errorf("sql: %w", err)
	}
	return out.Commit()
}

// query is an accepted statement and how to print it.
type query struct {
	opts Options
	stmt duck.Statement
	db   *duck.Reader
}

// write prints the result in the chosen format; a limit that stopped the
// query is said (duck.Limits.Explain).
func (q query) write(ctx context.Context, w io.Writer) error {
	return q.db.Limits.Explain(ctx, q.run(ctx, w))
}

func (q query) run(ctx context.Context, w io.Writer) error {
	if q.stmt.Kind == duck.Explain {
		cols, rows, err := q.db.Explain(ctx, q.opts.Query)
		if err != nil {
			return err
		}
		return printRows(w, q.opts, cols, rows)
	}
	if q.opts.Format == "table" {
		rows := 0
		err := q.db.Copy(ctx, q.opts.Query, "FORMAT csv, HEADER true, NULLSTR 'NULL'", func(r io.Reader) (err error) {
			rows, err = printTable(w, q.opts.Width, csv.NewReader(r))
			return err
		})
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "(%s)\n", numfmt.Plural(int64(rows), "row", "rows"))
		return err
	}
	return q.db.Copy(ctx, q.opts.Query, "FORMAT "+q.opts.Format, func(r io.Reader) error {
		_, err := io.Copy(w, r)
		return err
	})
}

// printRows prints an EXPLAIN's rows in the chosen format.
func printRows(w io.Writer, opts Options, cols []string, rows [][]any) error {
	text := make([][]string, len(rows))
	for r, row := range rows {
		text[r] = make([]string, len(row))
		for i, v := range row {
			text[r][i] = sqlfmt.Format(v)
		}
	}
	switch opts.Format {
	case "csv":
		cw := csv.NewWriter(w)
		cw.Write(cols)
		cw.WriteAll(text)
		return cw.Error()
	case "json":
		for _, row := range text {
			var b strings.Builder
			b.WriteByte('{')
			for i, c := range cols {
				if i > 0 {
					b.WriteByte(',')
				}
				k, _ := json.Marshal(c)
				v, _ := json.Marshal(row[i])
				b.Write(k)
				b.WriteByte(':')
				b.Write(v)
			}
			b.WriteString("}\n")
			if _, err := io.WriteString(w, b.String()); err != nil {
				return err
			}
		}
		return nil
	case "parquet":
		return fmt.Errorf("an EXPLAIN's plan cannot be written as Parquet; use --format csv or json")
	}
	// A plan is a drawing: printed as it is, not cut into cells.
	for _, row := range text {
		if _, err := fmt.Fprintln(w, row[len(row)-1]); err != nil {
			return err
		}
	}
	return nil
}
