// Command empties-run runs the whole pipeline; the same code as
// `empties run`.
package main

import (
	"empties/internal/app"
	"empties/stages/runcmd"
)

func main() { app.RunMain(app.Stage(runcmd.Command())) }
