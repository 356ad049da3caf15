// Package exposure is the static scan of inspect_evals (issue 7). Placeholder
// until the scan lands: the command exists so the CLI tree is complete.
package exposure

import (
	"context"
	"errors"

	"github.com/urfave/cli/v3"
)

// Command returns the `exposure` subcommand.
func Command() *cli.Command {
	return &cli.Command{
		Name:  "exposure",
		Usage: "list inspect_evals evals exposed to the empty-reply problem (not yet implemented)",
		Action: func(ctx context.Context, c *cli.Command) error {
			return errors.New("exposure: not implemented yet")
		},
	}
}
