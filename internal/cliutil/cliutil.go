// Package cliutil holds what every stage command shares: the error kinds
// app.Main turns into exit codes (cliutil.go), the flags several stages take
// (flags.go) and the stop an interrupt makes (stop.go).
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

// Required is the one wording of a flag or argument a stage's options lack
// ("decide: --manifest FILE is required"), for its Validate; what names it
// as its help does.
func Required(stage, what string) error {
	return Usagef("%s: %s is required", stage, what)
}

// PartialError reports that some inputs failed while the others succeeded
// (exit code 1). The stage has already listed each failure.
type PartialError struct{ Msg string }

func (e *PartialError) Error() string { return e.Msg }

// ExitCode implements cli.ExitCoder.
func (e *PartialError) ExitCode() int { return 1 }

var _ cli.ExitCoder = (*PartialError)(nil)
