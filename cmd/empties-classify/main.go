// Command empties-classify is the classify stage on its own; it runs the same
// code as `empties classify`.
package main

import (
	"empties/internal/app"
	"empties/stages/classifycmd"
)

func main() { app.RunMain(app.Stage(classifycmd.Command())) }
