package rerun

import (
	"os"
	"syscall"
)

// runnerAttr starts the runner in a process group of its own, with SIGTERM
// as its parent-death signal: empties' death asks it to stop as a first
// Ctrl-C does. EMPTIES_TEST_NO_PDEATHSIG leaves the signal out, for the
// test of the runner's own watch of its parent (the fallback).
func runnerAttr() *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	if os.Getenv("EMPTIES_TEST_NO_PDEATHSIG") != "" {
		a.Pdeathsig = 0
	}
	return a
}
