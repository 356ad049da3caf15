// Command empties-decide applies D1-D4 and H1-H4; the same code as
// `empties decide`.
package main

import (
	"empties/internal/app"
	"empties/stages/decidecmd"
)

func main() { app.RunMain(app.Stage(decidecmd.Command())) }
