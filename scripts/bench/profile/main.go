// Command profile runs `empties ingest` in-process under the Go profilers, to
// find where ingest's time goes when `make bench` shows it missing a target.
//
//	go build -o bench/profile ./scripts/bench/profile
//	bench/profile -cpuprofile bench/ingest.pprof -trace bench/ingest.trace -out bench/out-prof bench/corpus
//	go tool pprof -top bench/profile bench/ingest.pprof
//	go tool trace bench/ingest.trace
//	bench/profile -split -out bench/out-prof bench/corpus   # CPU seconds by stage
//
// -split profiles the run (into -cpuprofile's file, or a temporary one) and
// prints the CPU seconds of each stage of ingest (split.go), with one JSON
// line of them last.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"

	"empties/internal/evallog"
	"empties/internal/ingest"
	"empties/stages/ingestcmd"
)

func main() {
	cpu := flag.String("cpuprofile", "", "write a CPU profile to `FILE`")
	tr := flag.String("trace", "", "write an execution trace to `FILE`")
	mem := flag.String("memprofile", "", "write an allocation profile to `FILE` (one sample per 4 KB allocated)")
	out := flag.String("out", "bench/out-profile", "dataset `DIR` to write")
	workers := flag.Int("j", 0, "workers (0 = one per CPU)")
	splitFlag := flag.Bool("split", false, "print the CPU seconds of each stage of ingest, from the CPU profile")
	repeat := flag.Int("repeat", 1, "ingest the paths this many times (every file read each time), for enough profile samples on a small corpus")
	decoder := flag.Bool("decoder", false, "decode every sample as before the one-walk decode (the repeated-key scan, then goccy), for an A/B in one build")
	flag.Parse()
	if *splitFlag && *cpu == "" {
		f, err := os.CreateTemp("", "empties-split-*.pprof")
		check(err)
		f.Close()
		*cpu = f.Name()
		defer os.Remove(f.Name())
	}
	if *mem != "" {
		runtime.MemProfileRate = 4096
		defer func() {
			// The profile is as of the last GC: one more so it counts all.
			runtime.GC()
			f, err := os.Create(*mem)
			check(err)
			check(pprof.Lookup("allocs").WriteTo(f, 0))
			f.Close()
		}()
	}
	stop := func() {}
	if *cpu != "" {
		f, err := os.Create(*cpu)
		check(err)
		check(pprof.StartCPUProfile(f))
		stop = func() { pprof.StopCPUProfile(); f.Close() }
		defer stop()
	}
	if *tr != "" {
		f, err := os.Create(*tr)
		check(err)
		check(trace.Start(f))
		defer trace.Stop()
	}
	if *decoder {
		evallog.SetFastDecode(false)
	}
	for i := range max(1, *repeat) {
		stdout := io.Writer(os.Stdout)
		if i > 0 {
			stdout = io.Discard
		}
		err := ingestcmd.Run(context.Background(), ingestcmd.Options{Config: ingest.Config{Compression: os.Getenv("EMPTIES_CODEC"), Paths: flag.Args(), Out: *out, Workers: *workers, Full: true}, ProgressMode: "never"}, stdout, os.Stderr)
		if err != nil {
			fmt.Fprintln(os.Stderr, "profile:", err)
		}
	}
	if *splitFlag {
		stop()
		exe, err := os.Executable()
		check(err)
		by, total, turns, err := split(exe, *cpu)
		check(err)
		printSplit(os.Stdout, by, total, turns)
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "profile:", err)
		os.Exit(1)
	}
}
