// Command empties-select plans the re-run arms and Part C; the same code as
// `empties select`.
package main

import (
	"empties/internal/app"
	"empties/stages/selectcmd"
)

func main() { app.RunMain(app.Stage(selectcmd.Command())) }
