// Command empties-report regenerates the report; the same code as
// `empties report`.
package main

import (
	"empties/internal/app"
	"empties/stages/report"
)

func main() { app.RunMain(app.Stage(report.Command())) }
