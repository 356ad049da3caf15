// Command empties-classify is the classify stage on its own; it runs the same
// code as `empties classify`.
package main

import (
	"empties/internal/app"
	"empties/stages/classify"
)

func main() { app.RunMain(app.Stage(classify.Command())) }
