package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"
)

// The split: where ingest's CPU time goes, by stage, from its CPU profile.
// Each sample of the profile (a call stack and the CPU time it stood for)
// goes to one stage, by the code on its stack:
//
//   - parquet compress: under parquet-go, in its page compression (the
//     codecs: s2's Snappy, zstd's encoder, lz4)
//   - parquet encode: anything else under parquet-go (shredding rows into
//     columns, encodings, statistics, the footer)
//   - hash: SHA-256 of the files, with the reads of the hashing pass
//   - then the code nearest the leaf that is one of: inflate (the zstd and
//     flate decoders, CRC-32, reading a member's compressed bytes), scan/decode
//     (goccy's decoder, internal/evallog: the key scans, the walks, the .json
//     scanner, string decoding), extract (internal/ingest's extract and the
//     classifier), commit (internal/store and internal/duck outside
//     parquet-go: the logs and ingest_errors tables, renames, fsyncs, the
//     view file), pipeline (the rest of internal/ingest: dispatch, the
//     writer's bookkeeping, the spill)
//   - runtime: stacks of the runtime alone: the garbage collector's
//     background work, the scheduler, system calls of no stage above.
//
// Allocation and its GC assists count to the stage that allocated (they are
// on its stack); only the collector's own workers are runtime.
//
// Beside the stages, turns is the part of extract that classifies every
// generation of the model under test and the final reply (classify.ApplyCall,
// classify.AsReply, ingest.finalReply on the stack): what classifying every
// turn costs, which issue 35 bounds at 5% of ingest.
var stages = []string{"inflate", "scan/decode", "extract", "parquet encode", "parquet compress", "hash", "commit", "pipeline", "runtime"}

// stageOf gives the stage of a stack, leaf first.
func stageOf(stack []string) string {
	underParquet, compressing, hashing := false, false, false
	for _, f := range stack {
		switch {
		case strings.HasPrefix(f, "github.com/parquet-go/parquet-go"):
			underParquet = true
			if strings.Contains(f, "/compress") || strings.Contains(f, "writerBuffers).compress") {
				compressing = true
			}
		case strings.HasPrefix(f, "github.com/klauspost/compress/s2.") || strings.HasPrefix(f, "github.com/klauspost/compress/snappy.") ||
			strings.HasPrefix(f, "github.com/pierrec/lz4") || strings.HasPrefix(f, "empties/internal/store.(*fastSnappy)") ||
			strings.HasPrefix(f, "empties/internal/store.encodeSnappyChunked"):
			compressing = true
		case strings.HasPrefix(f, "crypto/sha256") || strings.HasPrefix(f, "crypto/internal/fips140/sha256") ||
			f == "empties/internal/evallog.(*Log).hash":
			hashing = true
		}
	}
	switch {
	case underParquet && compressing:
		return "parquet compress"
	case underParquet:
		return "parquet encode"
	case hashing:
		return "hash"
	}
	for _, f := range stack {
		switch {
		case strings.HasPrefix(f, "github.com/klauspost/compress/") || strings.HasPrefix(f, "compress/flate") ||
			strings.HasPrefix(f, "hash/crc32") || f == "empties/internal/evallog.appendMember" ||
			strings.HasPrefix(f, "empties/internal/evallog.SampleRef.openMemberStream"):
			return "inflate"
		case strings.HasPrefix(f, "github.com/goccy/go-json") || strings.HasPrefix(f, "empties/internal/evallog."):
			return "scan/decode"
		case strings.HasPrefix(f, "empties/internal/ingest.extract") || strings.HasPrefix(f, "empties/internal/ingest.viewOutput") ||
			strings.HasPrefix(f, "empties/internal/ingest.modelEvents") || strings.HasPrefix(f, "empties/internal/ingest.scoreRow") ||
			strings.HasPrefix(f, "empties/internal/classify") || strings.HasPrefix(f, "empties/internal/ingest.(*sampleRows)"):
			return "extract"
		case strings.HasPrefix(f, "empties/internal/store") || strings.HasPrefix(f, "empties/internal/duck") ||
			strings.HasPrefix(f, "github.com/duckdb/"):
			return "commit"
		case strings.HasPrefix(f, "empties/"):
			return "pipeline"
		}
	}
	return "runtime"
}

// isTurns reports whether a stack is classifying a turn (see stages).
func isTurns(stack []string) bool {
	for _, f := range stack {
		if strings.HasPrefix(f, "empties/internal/classify.ApplyCall") || strings.HasPrefix(f, "empties/internal/classify.AsReply") ||
			strings.HasPrefix(f, "empties/internal/ingest.finalReply") {
			return true
		}
	}
	return false
}

// split reads the CPU profile at path (through `go tool pprof -traces`,
// with the binary that wrote it) and returns the seconds of each stage, their
// total, and the seconds of classifying turns.
func split(binary, path string) (map[string]float64, float64, float64, error) {
	cmd := exec.Command("go", "tool", "pprof", "-traces", binary, path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, 0, 0, fmt.Errorf("go tool pprof -traces: %v: %s", err, stderr.String())
	}
	return parseTraces(bytes.NewReader(out))
}

// parseTraces reads the -traces output: blocks separated by lines of
// dashes, each a duration and the leaf frame on its first line, then one
// frame a line towards the root.
func parseTraces(r io.Reader) (map[string]float64, float64, float64, error) {
	by := map[string]float64{}
	total, turns := 0.0, 0.0
	var value float64
	var stack []string
	flush := func() {
		if stack != nil {
			by[stageOf(stack)] += value
			total += value
			if isTurns(stack) {
				turns += value
			}
		}
		stack, value = nil, 0
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	inBody := false
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "-----------+") {
			flush()
			inBody = true
			continue
		}
		if !inBody {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if stack == nil && len(fields) == 2 && isDuration(fields[0]) {
			d, err := time.ParseDuration(fields[0])
			if err != nil {
				return nil, 0, 0, fmt.Errorf("trace line %q: %v", line, err)
			}
			value = d.Seconds()
			stack = []string{fields[1]}
			continue
		}
		if stack != nil && !strings.HasSuffix(fields[0], ":") { // not a label line
			stack = append(stack, fields[0])
		}
	}
	flush()
	return by, total, turns, sc.Err()
}

func isDuration(s string) bool {
	_, err := time.ParseDuration(s)
	return err == nil && strings.IndexAny(s, "0123456789") == 0
}

// printSplit prints the stages' seconds and shares, and one JSON line with
// them for bench.py.
func printSplit(w io.Writer, by map[string]float64, total, turns float64) {
	fmt.Fprintf(w, "CPU seconds by stage (from the CPU profile, %.2fs of samples):\n", total)
	for _, s := range stages {
		share := 0.0
		if total > 0 {
			share = by[s] / total
		}
		fmt.Fprintf(w, "  %-18s %7.2fs %6.1f%%\n", s, by[s], 100*share)
	}
	share := 0.0
	if total > 0 {
		share = turns / total
	}
	fmt.Fprintf(w, "  of extract, classifying every turn (each generation's class, the final reply): %.2fs %.1f%%\n", turns, 100*share)
	row := map[string]any{"split": by, "profile_seconds": total, "turns_seconds": turns}
	b, _ := json.Marshal(row)
	fmt.Fprintln(w, string(b))
}
