// Command empties-check runs the check stage on its own; the same code as
// `empties check`.
package main

import (
	"empties/internal/app"
	"empties/stages/checkcmd"
)

func main() { app.RunMain(app.Stage(checkcmd.Command())) }
