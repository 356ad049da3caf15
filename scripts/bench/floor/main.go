// Command floor gives the floors of `make bench`, the rows ingest is
// measured against.
//
// -mode decode (the default), the decode floor: it inflates every sample of
// every log and decodes it with DecodedSample.DecodeRef, with the same
// parallelism and the same reading path as `empties ingest` (logs opened and
// hashed ahead by one goroutine, one decoder per CPU by default, reused member
// buffers and decoded samples, a huge sample streamed), and does nothing
// else: no extraction, no classification, no Parquet. raw_bytes is the summed length of the sample JSON it decoded.
//
// -mode inflate, the physical floor of reading the logs at all: it reads
// every file and inflates every member of every .eval (samples, header,
// summaries, reductions, journal) into a reused buffer, with the same
// parallelism, and does nothing else: no hash, no CRC, no JSON. A .json log
// is read whole (in 1 MiB reads). raw_bytes is the bytes inflated (and
// read, for .json).
//
// -mode scan, the validating scan alone: it inflates every sample as -mode
// decode does and runs evallog.ScanSample over it (the check the walk makes
// of a value it skips, over the whole sample), and nothing else.
//
// -mode open, what opening the logs costs: each log is opened as -mode
// decode opens it (hashed, its header decoded, its summaries read, a .json
// log scanned for its samples' places) and closed, and no sample is read.
// samples is the samples the logs list; raw_bytes is 0.
//
// -portable turns every vectorised scan off, as on a CPU without AVX2: the
// values the walk skips are checked byte by byte, strings are scanned
// without the AVX2 kernel, and a .json log's samples are found by the byte
// walk (evallog.SetSIMDScan(false)).
//
// -repeat N reads everything N times in the one process, so that a small
// corpus is not measured by the process's start: cpu_seconds (user+sys of
// the process from the first run's start, per run) and seconds (wall, per
// run) are of one run.
//
// PATH... are listed as `empties ingest` lists them (ingest.Discover), so
// the floor reads exactly the files ingest reads; a file it skips is named
// on stderr.
//
// It prints one JSON line: {"files":…, "samples":…, "raw_bytes":…,
// "seconds":…, "cpu_seconds":…, "repeat":…, "mode":…}.
//
//	go build -o bench/floor ./scripts/bench/floor
//	bench/floor [-j N] [-mode decode|inflate|scan|open] [-repeat N] [-cpuprofile FILE] PATH...
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"empties/internal/evallog"
	"empties/internal/ingest"
)

func main() {
	workers := flag.Int("j", runtime.GOMAXPROCS(0), "parallel sample decoders")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile to `FILE`")
	mode := flag.String("mode", "decode", "decode (inflate + DecodeSample of every sample), scan (inflate + ScanSample), inflate (inflate every member, no JSON) or open (open every log, read no sample)")
	repeat := flag.Int("repeat", 1, "read everything this many times in the one process; the figures are per run")
	portable := flag.Bool("portable", false, "turn every vectorised scan off, as where the CPU has no AVX2 (an A/B of the SIMD scans in one build)")
	flag.Parse()
	if *portable {
		evallog.SetSIMDScan(false)
	}
	if *mode != "decode" && *mode != "inflate" && *mode != "scan" && *mode != "open" {
		fmt.Fprintln(os.Stderr, "floor: -mode is decode, scan, inflate or open")
		os.Exit(2)
	}
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: floor [-j N] PATH...")
		os.Exit(2)
	}
	// The files ingest would read, by ingest's own discovery.
	files, skipped, err := ingest.Discover(flag.Args())
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
	for _, s := range skipped {
		fmt.Fprintf(os.Stderr, "floor: %s skipped: %s\n", s.Path, s.Reason)
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "floor:", err)
			os.Exit(1)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	n := max(1, *repeat)
	cpu0, start := cpuSeconds(), time.Now()
	var out map[string]any
	for range n {
		if *mode == "inflate" {
			out = inflateOnly(files, max(1, *workers))
		} else {
			out = decodeAll(files, max(1, *workers), *mode)
		}
	}
	out["seconds"] = time.Since(start).Seconds() / float64(n)
	out["cpu_seconds"] = (cpuSeconds() - cpu0) / float64(n)
	out["repeat"] = n
	b, _ := json.Marshal(out)
	fmt.Println(string(b))
	if out["failures"].(int64) > 0 {
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

// cpuSeconds is the process's user+sys CPU time so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// decodeAll is -mode decode, scan and open: one run over the files.
func decodeAll(files []string, workers int, mode string) map[string]any {
	scan := mode == "scan"
	var samples, rawBytes, failures atomic.Int64
	type job struct {
		ref  evallog.SampleRef
		done *sync.WaitGroup // the log's outstanding samples
	}
	work := make(chan job, 32*workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// the buffer and the decoded sample reused, and the sample read
			// and decoded by DecodeRef (streamed if huge), as ingest's
			// workers do
			var buf []byte
			d := new(evallog.DecodedSample)
			for j := range work {
				ref := j.ref
				var raw []byte
				var err error
				if scan {
					if raw, err = ref.AppendBytes(buf[:0]); err == nil {
						buf = raw
						if !evallog.ScanSample(raw) {
							err = fmt.Errorf("the validating scan refuses it")
						}
					}
				} else {
					raw, err = d.DecodeRef(ref, buf[:0], "")
					buf = raw
					d.Release()
				}
				j.done.Done()
				if err != nil {
					failures.Add(1)
					fmt.Fprintf(os.Stderr, "floor: %s: %v\n", ref.Member, err)
					continue
				}
				samples.Add(1)
				rawBytes.Add(ref.RawSize()) // raw is not the sample's bytes when it was streamed
			}
		}()
	}
	// Logs are opened in order by one goroutine, ahead of the dispatch of
	// their samples, like ingest's opener; a log is closed once all its
	// samples have been read.
	type opened struct {
		path string
		l    *evallog.Log
		err  error
	}
	openQ := make(chan opened, 2)
	go func() {
		defer close(openQ)
		for _, p := range files {
			l, err := evallog.Open(p)
			openQ <- opened{p, l, err}
		}
	}()
	var open sync.WaitGroup
	for o := range openQ {
		l, err := o.l, o.err
		if err != nil {
			failures.Add(1)
			fmt.Fprintf(os.Stderr, "floor: %s: %v\n", o.path, err)
			continue
		}
		if mode == "open" {
			samples.Add(int64(len(l.Samples)))
			l.Close()
			continue
		}
		done := new(sync.WaitGroup)
		done.Add(len(l.Samples))
		for _, ref := range l.Samples {
			work <- job{ref, done}
		}
		open.Add(1)
		go func() { defer open.Done(); done.Wait(); l.Close() }()
	}
	close(work)
	wg.Wait()
	open.Wait()
	return map[string]any{
		"files": len(files), "samples": samples.Load(), "raw_bytes": rawBytes.Load(),
		"workers": workers, "failures": failures.Load(), "mode": mode,
	}
}
