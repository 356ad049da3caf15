// Command profile runs `empties ingest` in-process under the Go profilers, to
// find where ingest's time goes when `make bench` shows it missing a target.
//
//	go build -o bench/profile ./scripts/bench/profile
//	bench/profile -cpuprofile bench/ingest.pprof -trace bench/ingest.trace -out bench/out-prof bench/corpus
//	go tool pprof -top bench/profile bench/ingest.pprof
//	go tool trace bench/ingest.trace
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"

	"empties/stages/ingest"
)

func main() {
	cpu := flag.String("cpuprofile", "", "write a CPU profile to `FILE`")
	tr := flag.String("trace", "", "write an execution trace to `FILE`")
	mem := flag.String("memprofile", "", "write an allocation profile to `FILE` (one sample per 4 KB allocated)")
	out := flag.String("out", "bench/out-profile", "dataset `DIR` to write")
	workers := flag.Int("j", 0, "workers (0 = one per CPU)")
	flag.Parse()
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
	if *cpu != "" {
		f, err := os.Create(*cpu)
		check(err)
		check(pprof.StartCPUProfile(f))
		defer pprof.StopCPUProfile()
	}
	if *tr != "" {
		f, err := os.Create(*tr)
		check(err)
		check(trace.Start(f))
		defer trace.Stop()
	}
	err := ingest.Run(context.Background(), ingest.Options{Compression: os.Getenv("EMPTIES_CODEC"), Paths: flag.Args(), Out: *out, Workers: *workers, Progress: "never"}, os.Stdout, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "profile:", err)
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "profile:", err)
		os.Exit(1)
	}
}
