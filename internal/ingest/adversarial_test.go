package ingest_test

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"empties/internal/cliutil"
	"empties/internal/ingest"
	"empties/internal/testutil"
)

// Each hostile or damaged file, among good logs of the same run: the bad
// file is named (and the member at fault), every good log is ingested whole,
// every sample of the bad file is either ingested or the file is in
// ingest_errors, and the Go heap stays under its bound. The files come from
// internal/testutil's generators.
func TestAdversarialFiles(t *testing.T) {
	logs := testutil.Path(t, "testdata", "logs")
	goodNames := []string{"zstd-basic.eval", "deflate.eval", "pools-tools.eval", "string-ids.json"}
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(logs, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	basic := read("zstd-basic.eval")
	deep := testutil.DeepNesting(1_000_000)
	huge := strings.Repeat("all work and no play ", 1<<20) // 21 MB

	type result int
	const (
		fails    result = iota // the file is in ingest_errors, nothing of it in the tables
		ingested               // every sample of it is in replies
		partly                 // one ingest_errors row for the member at fault, the others in replies
	)
	cases := []struct {
		name   string
		file   string // name of the bad file
		data   []byte
		cfg    func(*ingest.Config)
		want   result
		member string // the member ingest_errors names ("" for the file)
		errHas string
		// samples the file holds when ingested
		samples int
		// heap bounds the Go heap of the run; 0 means 512 MiB
		heap uint64
	}{
		{name: "truncated zip", file: "truncated.eval", data: basic[:len(basic)*3/5], want: fails, errHas: "zip"},
		{name: "corrupt central directory", file: "corrupt-cd.eval", data: testutil.CorruptCentralDirectory(t, basic), want: fails, errHas: "central directory"},
		{name: "wrong crc", file: "crc.eval", data: testutil.WrongCRC(t, basic, "samples/2_epoch_1.json"), want: fails, member: "samples/2_epoch_1.json", errHas: "checksum"},
		{name: "lying size (zstd bomb)", file: "bomb.eval", data: testutil.Zip(t,
			testutil.Member{Name: "header.json", Method: zstd.ZipMethodWinZip, Body: testutil.HeaderJSON("bomb", 1)},
			testutil.Member{Name: "samples/1_epoch_1.json", Method: zstd.ZipMethodWinZip, Raw: testutil.ZstdBomb(4<<20, ' '), Size: 1000, CRC: 1}),
			want: fails, member: "samples/1_epoch_1.json", errHas: "inflates past the 1000 bytes"},
		{name: "lying size (deflate bomb)", file: "dbomb.eval", data: testutil.Zip(t,
			testutil.Member{Name: "header.json", Method: zip.Deflate, Body: testutil.HeaderJSON("bomb", 1)},
			testutil.Member{Name: "samples/1_epoch_1.json", Method: zip.Deflate, Raw: testutil.DeflateBomb(4<<20, ' '), Size: 1000, CRC: 1}),
			want: fails, member: "samples/1_epoch_1.json", errHas: "inflates past the 1000 bytes"},
		{name: "implausible ratio", file: "ratio.eval", data: testutil.Zip(t,
			testutil.Member{Name: "header.json", Method: zstd.ZipMethodWinZip, Body: testutil.HeaderJSON("ratio", 1)},
			testutil.Member{Name: "samples/1_epoch_1.json", Method: zstd.ZipMethodWinZip, Raw: testutil.ZstdBomb(1<<20, ' '), Size: 1900 << 20, CRC: 1}),
			want: fails, member: "samples/1_epoch_1.json", errHas: "more than 1000:1"},
		{name: "member beyond the cap", file: "big.eval", data: testutil.EvalLog(t, "big",
			testutil.SampleJSON(1, 1, "short", ""), testutil.SampleJSON(2, 1, huge, "")),
			cfg: func(c *ingest.Config) { c.MaxMemberBytes = 8 << 20 }, want: fails, member: "samples/2_epoch_1.json", errHas: "more than the cap of 8388608"},
		{name: ".json sample beyond the cap", file: "big.json", data: []byte(`{"version": 2, "status": "success", "eval": {"created": "2026-01-01T00:00:00+00:00", "dataset": {}, "config": {}, "task": "t", "model": "mockllm/model"}, "samples": [` +
			string(testutil.SampleJSON(1, 1, "short", "")) + ", " + string(testutil.SampleJSON(2, 1, huge, "")) + `]}`),
			cfg: func(c *ingest.Config) { c.MaxMemberBytes = 8 << 20 }, want: fails, member: "samples[1]", errHas: "larger than the cap of 8388608"},
		{name: "huge string under the cap", file: "huge.eval", data: testutil.EvalLog(t, "huge",
			testutil.SampleJSON(1, 1, huge, "")), want: ingested, samples: 1,
			// The 21 MB reply is decoded once and written as a huge text
			// (store.hugeText): 110-170 MiB measured with the good logs
			// (the collector's timing varies with the load), 175 MiB
			// before huge texts were written on their own.
			heap: 256 << 20},
		{name: "deep nesting in a kept field", file: "deep-metadata.eval", data: testutil.EvalLog(t, "deep",
			testutil.SampleJSON(1, 1, "ok", `"metadata": {"x": `+deep+`}`)), want: fails, member: "samples/1_epoch_1.json", errHas: "depth"},
		{name: "deep nesting in a skipped field", file: "deep-store.eval", data: testutil.EvalLog(t, "deep",
			testutil.SampleJSON(1, 1, "ok", `"store": {"x": `+deep+`}`)), want: fails, member: "samples/1_epoch_1.json", errHas: "depth"},
		{name: "object sample id", file: "object-id.eval", data: testutil.EvalLog(t, "ids",
			testutil.SampleJSON(1, 1, "ok", ""), []byte(`{"id": {"n": 2}, "epoch": 1}`)), want: fails, member: "samples/2_epoch_1.json", errHas: "neither an int nor a string"},
		{name: "integer score beyond a float", file: "big-score.eval", data: testutil.EvalLog(t, "score",
			[]byte(`{"id": 1, "epoch": 1, "scores": {"s": {"value": 1`+strings.Repeat("0", 400)+`}}}`)), want: fails, member: "samples/1_epoch_1.json", errHas: "OverflowError"},
		{name: "missing header", file: "no-header.eval", data: testutil.WithoutMember(t, testutil.WithoutMember(t, basic, "header.json"), "_journal/start.json"), want: fails, errHas: "no header.json"},
		// A sample member missing while summaries.json lists it: named, and
		// the others are read, as inspect_ai reads them.
		{name: "missing sample member", file: "no-sample.eval", data: testutil.WithoutMember(t, basic, "samples/2_epoch_1.json"),
			want: partly, member: "samples/2_epoch_1.json", errHas: "listed in summaries.json", samples: 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := t.TempDir()
			var good []string
			for _, n := range goodNames {
				p := filepath.Join(src, n)
				if err := os.WriteFile(p, read(n), 0o644); err != nil {
					t.Fatal(err)
				}
				good = append(good, p)
			}
			bad := filepath.Join(src, tc.file)
			if err := os.WriteFile(bad, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			var stderr bytes.Buffer
			cfg := ingest.Config{Paths: []string{src}, Out: dir, Workers: 2, Log: &stderr}
			if tc.cfg != nil {
				tc.cfg(&cfg)
			}
			var err error
			peak := testutil.PeakHeap(5*time.Millisecond, func() { err = ingest.Build(context.Background(), cfg) })
			t.Logf("Go heap peak %d MiB", peak>>20)
			if tc.heap == 0 {
				tc.heap = 512 << 20
			}
			if peak > tc.heap {
				t.Errorf("Go heap peaked at %d MiB", peak>>20)
			}

			errs := testutil.Query(t, dir, "SELECT path, member, error FROM ingest_errors")
			switch tc.want {
			case fails:
				var partial *cliutil.PartialError
				if !errors.As(err, &partial) {
					t.Fatalf("want a partial failure, got %v\n%s", err, stderr.String())
				}
				if tc.member == "" {
					tc.member = "NULL"
				}
				if len(errs) != 1 || errs[0][0] != bad || errs[0][1] != tc.member || !strings.Contains(errs[0][2], tc.errHas) {
					t.Fatalf("ingest_errors %v, want %s, member %q, error with %q", errs, bad, tc.member, tc.errHas)
				}
				if want := bad + ": "; !strings.Contains(stderr.String(), want) {
					t.Errorf("stderr does not name the file: %s", stderr.String())
				}
				if got := testutil.Query(t, dir, "SELECT count(*) FROM logs WHERE path = ?", bad)[0][0]; got != "0" {
					t.Errorf("the failed file has %s logs rows", got)
				}
			case partly:
				var partial *cliutil.PartialError
				if !errors.As(err, &partial) || len(errs) != 1 || errs[0][0] != bad || errs[0][1] != tc.member || !strings.Contains(errs[0][2], tc.errHas) {
					t.Fatalf("err %v, ingest_errors %v, want %s, member %q, error with %q", err, errs, bad, tc.member, tc.errHas)
				}
				got := testutil.Query(t, dir, `SELECT sample_count, (SELECT count(*) FROM replies r WHERE r.log_id = l.log_id) FROM logs l WHERE path = ?`, bad)
				if len(got) != 1 || got[0][1] != itoa(tc.samples) {
					t.Errorf("logs/replies of the file: %v, want %d samples", got, tc.samples)
				}
			case ingested:
				if err != nil || len(errs) != 0 {
					t.Fatalf("err %v, ingest_errors %v\n%s", err, errs, stderr.String())
				}
				got := testutil.Query(t, dir, `SELECT sample_count, (SELECT count(*) FROM replies r WHERE r.log_id = l.log_id) FROM logs l WHERE path = ?`, bad)
				if len(got) != 1 || got[0][0] != got[0][1] || got[0][1] != itoa(tc.samples) {
					t.Errorf("logs/replies of the file: %v, want %d samples", got, tc.samples)
				}
			}
			// Every good log, whole.
			for _, p := range good {
				got := testutil.Query(t, dir, `SELECT sample_count, (SELECT count(*) FROM replies r WHERE r.log_id = l.log_id) FROM logs l WHERE path = ?`, p)
				if len(got) != 1 || got[0][0] != got[0][1] || got[0][0] == "0" {
					t.Errorf("%s: logs/replies %v", filepath.Base(p), got)
				}
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
