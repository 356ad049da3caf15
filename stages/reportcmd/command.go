// Package reportcmd is the `empties report` command: its flags and help, the
// checks of the dataset and of the report folder (through the guard), and
// what it prints. The page itself is built by internal/report.
package reportcmd

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/urfave/cli/v3"

	"empties/internal/cliutil"
	"empties/internal/duck"
	"empties/internal/guard"
	"empties/internal/report"
	"empties/internal/rerun"
	"empties/internal/store"
)

// Options configure a report.
type Options struct {
	Data   string
	Out    string
	Avoid  []string // paths the report folder must keep clear of (run's LOGS)
	Python string   // the Python whose vl-convert draws index.md's charts ("": rerun.Python's default)
}

// Command returns the `report` subcommand.
func Command() *cli.Command {
	return &cli.Command{
		Name:  "report",
		Usage: "regenerate the report: one page (index.html, index.md), its tables as CSV and Parquet, its charts",
		Description: `Writes OUT/index.html, one self-contained page that opens with no network,
and OUT/index.md, the same page in Markdown. Its first screen answers the
question: of all samples, the share whose reply is a non-answer, split by
class, and beside it the share with no reply at all (error, no_choices), each
with its Wilson interval; one row per model (route); the task × model cells
with the most non-answers. Then what each class means (from the classifier's
vocabulary), charts (a task × model heat map of the non-answer share, the
class shares per cell), real examples of each class with the reply as the
model gave it and the prompt it answered (non-answers first), the rates per
cell, and every table the page draws on, sortable and filterable.

OUT/tables/<table>.csv, .parquet and .md hold each of those tables (every
column, full precision); OUT/plots/<chart>.vl.json each chart's Vega-Lite
spec with its data, which a notebook opens with Altair
(alt.Chart.from_dict), and OUT/plots/<chart>.png the image index.md shows,
drawn from that spec by vl-convert (pip install vl-convert-python: the
page's Vega and Vega-Lite, no browser) in the Python --python names (default
$EMPTIES_PYTHON, ./.venv/bin/python, python3). Without it the report is
written all the same, and index.md says why its charts are not images. Tables that could not be computed are listed on one
line each with what they need. The same inputs give byte-identical files.

Without a manifest the task is the eval and the model the route. With a
manifest (a dataset rescore placed in a study) the page opens with the
decisions D1-D4 and H1-H4, then the same sections, and the study's charts.

Examples:
   empties report --data data/study --out report/
   empties report --data out/explore --out out/explore/report`,
		Flags: []cli.Flag{
			cliutil.NewDataFlag(""),
			cliutil.NewOutFlag("report folder `DIR`: new, empty, or an earlier report (whose files it replaces); anything else is refused"),
			&cli.StringFlag{Name: "python", Usage: "Python `FILE` with vl-convert-python, which draws index.md's charts (default: $EMPTIES_PYTHON, ./.venv/bin/python, python3)"},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			return Run(ctx, Options{Data: c.String(cliutil.DataFlag), Out: c.String(cliutil.OutFlag), Python: c.String("python")}, c.Root().Writer)
		},
	}
}

// Validate checks the options before any work.
func (o Options) Validate() error {
	if o.Data == "" {
		return cliutil.Required("report", "--data DIR")
	}
	if o.Out == "" {
		return cliutil.Required("report", "--out DIR")
	}
	return nil
}

// Run writes the report.
func Run(ctx context.Context, opts Options, w io.Writer) error {
	if err := opts.Validate(); err != nil {
		return err
	}
	if err := store.RequireTables("report", opts.Data, "replies"); err != nil {
		return err
	}
	// The report folder is checked before any work (new, empty, or an
	// earlier report; never a user's folder, the logs or a dataset) and
	// built in a temporary folder that Commit switches in.
	out, err := guard.OpenFolder(opts.Out, "report", guard.Rules{Avoid: opts.Avoid})
	if err != nil {
		return err
	}
	defer out.Close()
	db, present, err := duck.OpenDataset(ctx, opts.Data)
	if err != nil {
		return err
	}
	defer db.Close()
	sum, err := report.Build(ctx, db, present, out.Dir(), report.VLConvert{Python: rerun.Python(opts.Python)})
	if err != nil {
		return err
	}
	if err := out.Commit(); err != nil {
		return err
	}
	images := fmt.Sprintf("%d drawn for index.md", sum.Images)
	if sum.NoImages != "" {
		images = "not drawn for index.md: " + sum.NoImages
	}
	fmt.Fprintf(w, "report: %d tables, %d charts (%s) in %s (open %s in a browser, or %s)\n", sum.Tables, sum.Charts, images, opts.Out,
		filepath.Join(opts.Out, "index.html"), filepath.Join(opts.Out, "index.md"))
	return nil
}
