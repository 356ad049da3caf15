// Command empties is the umbrella binary: one subcommand per stage.
package main

import "empties/internal/app"

func main() { app.RunMain(app.Root()) }
