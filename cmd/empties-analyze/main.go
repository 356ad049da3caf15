// Command empties-analyze runs the measures; the same code as
// `empties analyze`.
package main

import (
	"empties/internal/app"
	"empties/stages/analyzecmd"
)

func main() { app.RunMain(app.Stage(analyzecmd.Command())) }
