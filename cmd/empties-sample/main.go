// Command empties-sample draws the classifier review set; the same code as
// `empties sample`.
package main

import (
	"empties/internal/app"
	"empties/stages/samplecmd"
)

func main() { app.RunMain(app.Stage(samplecmd.Command())) }
