// Command empties-serve serves a dataset in the browser; the same code as
// `empties serve`.
package main

import (
	"empties/internal/app"
	"empties/stages/serve"
)

func main() { app.RunMain(app.Stage(serve.Command())) }
