// Command empties-rerun runs a plan of empties select with inspect_ai; the
// same code as `empties rerun`.
package main

import (
	"empties/internal/app"
	"empties/stages/reruncmd"
)

func main() { app.RunMain(app.Stage(reruncmd.Command())) }
