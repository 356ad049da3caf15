// Package cliutil holds the error kinds every stage command shares; app.Main
// turns them into exit codes.
package cliutil

import (
	"fmt"

	"github.com/urfave/cli/v3"
)

// UsageError marks a mistake in how a command was called (exit code 2).
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// Usagef returns a UsageError.
func Usagef(format string, args ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, args...)}
}

// PartialError reports that some inputs failed while the others succeeded
// (exit code 1). The stage has already listed each failure.
type PartialError struct{ Msg string }

func (e *PartialError) Error() string { return e.Msg }

// ExitCode implements cli.ExitCoder.
func (e *PartialError) ExitCode() int { return 1 }

var _ cli.ExitCoder = (*PartialError)(nil)

// Flags shared by the stages that read the experiment manifest.
const (
	ManifestFlag            = "manifest"
	AllowPreregMismatchFlag = "allow-prereg-mismatch"
)

// ManifestFlags are --manifest and, when withPreregOverride, the override of
// the pre-registration check.
func ManifestFlags(withPreregOverride bool) []cli.Flag {
	flags := []cli.Flag{&cli.StringFlag{Name: ManifestFlag, Aliases: []string{"m"}, Usage: "experiment manifest `FILE`", Required: true}}
	if withPreregOverride {
		flags = append(flags, &cli.BoolFlag{Name: AllowPreregMismatchFlag, Usage: "accept a pre-registration whose SHA-256 differs from the manifest's"})
	}
	return flags
}
