// Command empties-rescore runs the rescore stage on its own; the same code as
// `empties rescore`.
package main

import (
	"empties/internal/app"
	"empties/stages/rescorecmd"
)

func main() { app.RunMain(app.Stage(rescorecmd.Command())) }
