// Command empties-serve serves a dataset in the browser; the same code as
// `empties serve`.
package main

import (
	"empties/internal/app"
	"empties/stages/servecmd"
)

func main() { app.RunMain(app.Stage(servecmd.Command())) }
