// Command empties-check runs the check stage on its own; the same code as
// `empties check`.
package main

import (
	"empties/internal/app"
	"empties/stages/check"
)

func main() { app.RunMain(app.Stage(check.Command())) }
