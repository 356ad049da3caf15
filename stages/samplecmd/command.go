// Package samplecmd is `empties sample`: it draws the hand-check sets the
// pre-registration requires (internal/sample.Select) and writes them as a
// JSONL file with every raw field a rule reads and one self-contained HTML
// page to read in a browser (html.go), in a review folder of the guard's.
package samplecmd

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	json "github.com/goccy/go-json"
	"github.com/urfave/cli/v3"

	"empties/internal/cliutil"
	"empties/internal/guard"
	"empties/internal/sample"
	"empties/internal/store"
)

// Options configure a draw: the sample.Config its flags give, the dataset
// it draws from and the folder the files go to.
type Options struct {
	sample.Config
	Data string
	Out  string // folder for the files; default DATA/review
}

// Item is one reply of the review set (internal/sample.Item).
type Item = sample.Item

// Command returns the `sample` subcommand.
func Command() *cli.Command {
	return &cli.Command{
		Name:  "sample",
		Usage: "draw replies per class for checking the classifier by hand",
		Description: `Draws up to --per-class replies of every class (the seed's validation: 50
per class against their raw fields, 10 per class spot-checked) and writes

   OUT/review-seed<N>.jsonl   one reply per line: class, rule, every raw field a rule reads
   OUT/review-seed<N>.html    the same, one self-contained page for a browser

Replies of superseded logs (an older attempt, a crashed log beside its
recovered copy, shards beside their merged log: logs.set_status) are not
drawn, as no measure counts them; a dataset ingested with --all-attempts
counts, and draws from, every file.

The draw ranks replies by a hash of the seed and the reply's log content
hash, sample id and epoch, so the same data and seed give the same set.

Examples:
   empties sample --per-class 50 --seed 1 --data data/study
   empties sample --per-class 10 --seed 2 --data data/study --class filtered --class error_text`,
		Flags: []cli.Flag{
			cliutil.NewDataFlag("written by ingest"),
			cliutil.Optional(cliutil.NewOutFlag(""), "`DIR` for the review files (default DATA/review)"),
			&cli.IntFlag{Name: "per-class", Value: 50, Usage: "replies per class"},
			&cli.Int64Flag{Name: "seed", Value: 1, Usage: "seed of the draw"},
			&cli.StringSliceFlag{Name: "class", Usage: "only this class (repeatable)"},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			return Run(ctx, Options{Data: c.String(cliutil.DataFlag), Out: c.String(cliutil.OutFlag),
				Config: sample.Config{PerClass: c.Int("per-class"), Seed: c.Int64("seed"), Classes: c.StringSlice("class")}}, c.Root().Writer)
		},
	}
}

// Validate checks the options before any work.
func (o Options) Validate() error {
	if o.Data == "" {
		return cliutil.Required("sample", "--data DIR")
	}
	if o.PerClass <= 0 {
		return cliutil.Usagef("sample: --per-class must be positive, not %d", o.PerClass)
	}
	for _, c := range o.Classes {
		if !sample.KnownClass(c) {
			return cliutil.Usagef("sample: --class %q is no reply class (the classes: %s)", c, strings.Join(sample.ClassOrder(), ", "))
		}
	}
	return nil
}

// Run draws the set and writes the files.
func Run(ctx context.Context, opts Options, w io.Writer) error {
	if err := opts.Validate(); err != nil {
		return err
	}
	if err := store.RequireTables("sample", opts.Data, "replies"); err != nil {
		return err
	}
	out := opts.Out
	if out == "" {
		out = filepath.Join(opts.Data, "review")
	}
	// The review folder holds empties' review files only (one pair per
	// seed); checked before the draw.
	folder, err := guard.OpenFolder(out, "sample", guard.Rules{})
	if err != nil {
		return err
	}
	defer folder.Close()
	d, err := sample.Select(ctx, opts.Data, opts.Config)
	if err != nil {
		return err
	}
	name := "review-seed" + strconv.FormatInt(opts.Seed, 10)
	if err := writeFile(filepath.Join(folder.Dir(), name+".jsonl"), func(w io.Writer) error { return writeJSONL(w, d.Items) }); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(folder.Dir(), name+".html"), func(w io.Writer) error { return writeHTML(w, d.Items, d.Totals, opts) }); err != nil {
		return err
	}
	if err := folder.Merge(); err != nil {
		return err
	}
	base := filepath.Join(out, name)
	fmt.Fprintf(w, "drew %d replies (seed %d, up to %d per class):\n", len(d.Items), opts.Seed, opts.PerClass)
	for _, c := range sample.ClassOrder() {
		if d.Totals[c] > 0 {
			fmt.Fprintf(w, "  %-16s %4d of %d\n", c, d.Drawn(c), d.Totals[c])
		}
	}
	if d.Superseded > 0 {
		fmt.Fprintf(w, "left out %d replies of superseded logs (logs.set_status; ingest --all-attempts counts every file)\n", d.Superseded)
	}
	fmt.Fprintf(w, "wrote %s.jsonl and %s.html\n", base, base)
	return nil
}

func writeJSONL(w io.Writer, items []Item) error {
	for _, it := range items {
		b, err := json.Marshal(it)
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "%s\n", b); err != nil {
			return err
		}
	}
	return nil
}

// writeFile writes a new file of the review folder's temporary folder.
func writeFile(p string, fill func(io.Writer) error) error {
	f, err := guard.Create(p)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	err = fill(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
