// Command empties-run runs the whole pipeline; the same code as
// `empties run`.
package main

import (
	"empties/internal/app"
	"empties/stages/run"
)

func main() { app.RunMain(app.Stage(run.Command())) }
