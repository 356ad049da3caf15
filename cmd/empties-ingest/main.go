// Command empties-ingest is the ingest stage on its own; it runs the same code
// as `empties ingest`.
package main

import (
	"empties/internal/app"
	"empties/stages/ingestcmd"
)

func main() { app.RunMain(app.Stage(ingestcmd.Command())) }
