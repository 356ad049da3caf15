// Package classifycmd is the `classify` command: it re-applies the classifier
// (internal/classify) to an ingested dataset through internal/reclassify.
package classifycmd

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v3"

	"empties/internal/classify"
	"empties/internal/cliutil"
	"empties/internal/reclassify"
	"empties/internal/store"
)

// Options configure a classify run.
type Options struct {
	Data string // dataset directory written by ingest
}

// Command returns the `classify` subcommand.
func Command() *cli.Command {
	return &cli.Command{
		Name:  "classify",
		Usage: "recompute reply, turn and judge classes on an ingested dataset",
		Description: `Applies the current classification rules to the replies and model_calls
tables in place, from the raw fields ingest stored, without reading the logs
again: each reply's class and its final reply's (replies.final_class), the
class of every generation of the model under test (model_calls.class), and
each judge call's. Ingest runs the same code, so this is needed only after a
rule changes.

Rules, in order (first match wins; class_rule records the rule and version):
` + rulesHelp() + `
Examples:
   empties classify --data data/study
   empties sql "SELECT class_rule, count(*) FROM replies GROUP BY ALL" --data data/study`,
		Flags: []cli.Flag{cliutil.NewDataFlag("written by ingest")},
		Action: func(ctx context.Context, c *cli.Command) error {
			return Run(ctx, Options{Data: c.String(cliutil.DataFlag)}, c.Root().Writer)
		},
	}
}

// Validate checks the options before any work.
func (o Options) Validate() error {
	if o.Data == "" {
		return cliutil.Required("classify", "--data DIR")
	}
	return nil
}

func rulesHelp() string {
	s := ""
	for _, r := range classify.OrderedRules() {
		s += fmt.Sprintf("   %-36s %s\n", r.ID, r.Seed)
	}
	return s
}

// Run reclassifies the dataset and prints the class counts.
func Run(ctx context.Context, opts Options, w io.Writer) error {
	if err := opts.Validate(); err != nil {
		return err
	}
	if err := store.RequireTables("classify", opts.Data, "replies"); err != nil {
		return err
	}
	res, err := reclassify.Dataset(ctx, opts.Data)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "classified with rules %s; %d replies and %d turns of the model under test changed rule\n", classify.Version, res.Changed, res.Turns)
	if len(res.Dropped) > 0 {
		fmt.Fprintf(w, "removed the tables computed from the old classes (%s): run rescore, analyze and decide again\n", strings.Join(res.Dropped, ", "))
	}
	for _, r := range classify.OrderedRules() {
		if n, ok := res.Counts[r.Class]; ok {
			fmt.Fprintf(w, "  %-16s %8d\n", r.Class, n)
			delete(res.Counts, r.Class)
		}
	}
	return nil
}
