//go:build !linux

package rerun

import "syscall"

// runnerAttr starts the runner in a process group of its own; without a
// parent-death signal, the runner's watch of its parent stops it when
// empties dies.
func runnerAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
