// Command empties-sql runs ad-hoc SQL over a dataset; the same code as
// `empties sql`.
package main

import (
	"empties/internal/app"
	"empties/stages/sqlcmd"
)

func main() { app.RunMain(app.Stage(sqlcmd.Command())) }
