// Command empties-exposure scans inspect_evals for evals exposed to the
// empty-reply problem; the same code as `empties exposure`.
package main

import (
	"empties/internal/app"
	"empties/stages/exposurecmd"
)

func main() { app.RunMain(app.Stage(exposurecmd.Command())) }
