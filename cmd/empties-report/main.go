// Command empties-report regenerates the report; the same code as
// `empties report`.
package main

import (
	"empties/internal/app"
	"empties/stages/reportcmd"
)

func main() { app.RunMain(app.Stage(reportcmd.Command())) }
