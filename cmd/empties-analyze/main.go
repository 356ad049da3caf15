// Command empties-analyze runs the measures; the same code as
// `empties analyze`.
package main

import (
	"empties/internal/app"
	"empties/stages/analyze"
)

func main() { app.RunMain(app.Stage(analyze.Command())) }
