package store_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"empties/internal/store"
	"empties/internal/testutil"
)

// logRow stands for a row of replies: the rows of one log share a log_id.
type logRow struct {
	LogID  string `parquet:"log_id"`
	Sample int64  `parquet:"sample"`
	Text   string `parquet:"text"`
}

// rowsOf are the rows of one log: a few samples, texts that differ.
func rowsOf(key string) []logRow {
	n, _ := strconv.Atoi(strings.TrimPrefix(key, "k"))
	var out []logRow
	for i := range 3 + n%4 {
		out = append(out, logRow{key, int64(i), strings.Repeat(key+" says "+strconv.Itoa(i)+". ", 1+i*n%7)})
	}
	return out
}

// rankOf orders keys by name, as ingest orders logs by path.
func rankOf(key string) int {
	n, err := strconv.Atoi(strings.TrimPrefix(key, "k"))
	if err != nil {
		return 1 << 30
	}
	return n
}

// writeLogs writes the rows of each key, one batch a key, as a full ingest's
// Sink does, into a table starting at part first (0: a new table).
func writeLogs(t testing.TB, d *store.Dataset, first int, keys ...string) {
	t.Helper()
	s, err := store.NewSinkAt[logRow](d, "t", first)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		s.Write(rowsOf(k))
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// addLogs is one incremental run's table: the current parts kept (those of
// keys in drop written again without them), the logs added in new parts.
func addLogs(t testing.TB, d *store.Dataset, drop []string, keys ...string) {
	t.Helper()
	var keep func(string) bool
	if len(drop) > 0 {
		keep = func(k string) bool { return !slices.Contains(drop, k) }
	}
	next, _, err := store.FilterParts(d, "t", "log_id", keep, func(r *logRow) string { return r.LogID })
	if err != nil {
		t.Fatal(err)
	}
	writeLogs(t, d, next, keys...)
}

// fileSums maps each part file of the current generation to its SHA-256.
func fileSums(t testing.TB, dir string) map[string]string {
	t.Helper()
	return testutil.FileSums(t, store.TableFiles(dir, "t"))
}

// witness witnesses the current generation of the dataset at dir.
func witness(t testing.TB, dir string) testutil.Witness {
	t.Helper()
	cur, err := store.Current(dir)
	if err != nil {
		t.Fatal(err)
	}
	return testutil.NewWitness(t, cur)
}

// fullWrite is the table a full ingest of keys writes: a new dataset, each
// key's rows in rank order.
func fullWrite(t testing.TB, keys []string) map[string]string {
	t.Helper()
	keys = slices.Clone(keys)
	slices.SortFunc(keys, func(a, b string) int { return rankOf(a) - rankOf(b) })
	dir := t.TempDir()
	d, err := store.Create(testStage, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	writeLogs(t, d, 0, keys...)
	if err := d.Commit(); err != nil {
		t.Fatal(err)
	}
	return fileSums(t, dir)
}

func compact(t testing.TB, d *store.Dataset, all bool) store.Compacted {
	t.Helper()
	c, err := store.CompactParts[logRow](context.Background(), d, "t", "log_id", all, rankOf)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A table grown one log per run keeps its small parts until there are more
// than MaxSmallParts; then they are rewritten into one part holding the rows
// in key order, byte for byte the file one write of the same logs makes,
// and no file of the generation it replaces is modified. A log removed on
// the way (its part written again without it) is not in it.
func TestCompactPartsWritesWhatAFullWriteWrites(t *testing.T) {
	dir := t.TempDir()
	d, err := store.Create(testStage, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	have := []string{"k00", "k05", "k10", "k15"}
	writeLogs(t, d, 0, have...)
	if err := d.Commit(); err != nil {
		t.Fatal(err)
	}
	adds := []string{"k03", "k12", "k01", "k16", "k07", "k02", "k13", "k04", "k11", "k06"}
	for i, k := range adds {
		var drop []string
		if k == "k07" {
			drop = []string{"k10"} // part-00000 is written again without it
			have = slices.DeleteFunc(have, func(h string) bool { return h == "k10" })
		}
		w := witness(t, dir)
		before := len(store.TableFiles(dir, "t"))
		addLogs(t, d, drop, k)
		have = append(have, k)
		c := compact(t, d, false)
		if err := d.Commit(); err != nil {
			t.Fatal(err)
		}
		w.Check(t, "add "+k)
		after := fileSums(t, dir)
		if before+1 <= store.MaxSmallParts {
			if c != (store.Compacted{}) || len(after) != before+1 {
				t.Errorf("run %d: %d parts, %+v; want %d parts and nothing compacted", i, len(after), c, before+1)
			}
			continue
		}
		if want := (store.Compacted{Parts: before + 1, Into: 1}); c != want {
			t.Errorf("run %d: compacted %+v, want %+v", i, c, want)
		}
		if want := fullWrite(t, have); !mapsEqual(after, want) {
			t.Errorf("run %d: compacted table %v, want the files of one write %v", i, after, want)
		}
	}
	if n := len(store.TableFiles(dir, "t")); n != 3 {
		t.Errorf("%d parts after the last run, want the compacted one and the two added since", n)
	}

	// Forced: every part, whatever their number.
	w := witness(t, dir)
	addLogs(t, d, nil)
	if c := compact(t, d, true); c != (store.Compacted{Parts: 3, Into: 1}) {
		t.Errorf("forced: compacted %+v, want 3 parts into 1", c)
	}
	if err := d.Commit(); err != nil {
		t.Fatal(err)
	}
	w.Check(t, "forced")
	if got, want := fileSums(t, dir), fullWrite(t, have); !mapsEqual(got, want) {
		t.Errorf("forced: table %v, want the files of one write %v", got, want)
	}
}

// Parts of RowsPerFile rows are left as they are (the same inodes), and the
// small ones compacted are numbered after them; forced, every part is
// rewritten into the parts one write makes, rolling over between logs.
func TestCompactPartsLeavesFullParts(t *testing.T) {
	store.SetRowsPerFile(t, 10)
	dir := t.TempDir()
	d, err := store.Create(testStage, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	have := []string{"k00", "k02", "k04", "k06", "k08", "k10", "k12"} // 3 to 6 rows each
	writeLogs(t, d, 0, have...)
	if err := d.Commit(); err != nil {
		t.Fatal(err)
	}
	full := map[string]uint64{}
	for _, f := range store.TableFiles(dir, "t") {
		if rows := readRows(t, f); len(rows) >= 10 {
			full[filepath.Base(f)] = inode(t, f)
		}
	}
	if len(full) == 0 {
		t.Fatal("no full part to leave alone")
	}
	for _, k := range []string{"k01", "k03", "k05", "k07", "k09", "k11", "k13", "k14", "k15"} {
		addLogs(t, d, nil, k)
		have = append(have, k)
		if err := d.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	addLogs(t, d, nil, "k16")
	have = append(have, "k16")
	small := len(store.TableFiles(dir, "t")) + 1 - len(full)
	c := compact(t, d, false)
	if err := d.Commit(); err != nil {
		t.Fatal(err)
	}
	if c.Parts != small || c.Into < 1 {
		t.Errorf("compacted %+v, want the %d small parts", c, small)
	}
	var rows []logRow
	var names []string
	for _, f := range store.TableFiles(dir, "t") {
		name := filepath.Base(f)
		names = append(names, name)
		if ino, ok := full[name]; ok {
			if inode(t, f) != ino {
				t.Errorf("%s: a full part was written again", name)
			}
			continue
		}
		rows = append(rows, readRows(t, f)...)
	}
	if len(names) != len(full)+c.Into {
		t.Errorf("parts %v: want %d full ones and %d compacted", names, len(full), c.Into)
	}
	for i := 1; i < len(rows); i++ {
		if rankOf(rows[i].LogID) < rankOf(rows[i-1].LogID) {
			t.Fatalf("compacted rows out of key order: %s after %s", rows[i].LogID, rows[i-1].LogID)
		}
	}

	addLogs(t, d, nil)
	compact(t, d, true)
	if err := d.Commit(); err != nil {
		t.Fatal(err)
	}
	if got, want := fileSums(t, dir), fullWrite(t, have); !mapsEqual(got, want) {
		t.Errorf("forced: table %v, want the files of one write %v", got, want)
	}
}

func readRows(t testing.TB, f string) []logRow {
	t.Helper()
	var out []logRow
	if err := store.ReadFile(f, func(rows []logRow) error { out = append(out, rows...); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

func inode(t testing.TB, p string) uint64 {
	t.Helper()
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return st.Sys().(*syscall.Stat_t).Ino
}

func mapsEqual(a, b map[string]string) bool {
	return fmt.Sprint(a) == fmt.Sprint(b)
}

// A compacting run killed after each step of Commit leaves the table whole:
// the ten parts of before, or the compacted one with the log added; no file
// of the generation it started from is modified; the next run recovers and
// commits.
func TestKillCompactionAtEveryCommitStep(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	before := []string{"k00", "k02", "k04", "k06", "k08", "k10", "k12", "k14", "k16"}
	template := t.TempDir()
	d, err := store.Create(testStage, template)
	if err != nil {
		t.Fatal(err)
	}
	writeLogs(t, d, 0, before[0])
	for _, key := range before[1:] {
		if err := d.Commit(); err != nil {
			t.Fatal(err)
		}
		addLogs(t, d, nil, key)
	}
	if err := d.Commit(); err != nil {
		t.Fatal(err)
	}
	d.Close()
	old := fileSums(t, template)
	compacted := fullWrite(t, append(slices.Clone(before), "k01"))
	nextOld := fullWrite(t, append(slices.Clone(before), "k03"))
	nextCompacted := fullWrite(t, append(slices.Clone(before), "k01", "k03"))
	for k := 0; k <= store.CommitSteps; k++ {
		t.Run(fmt.Sprint("after step ", k), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "ds")
			if out, err := exec.Command("cp", "-a", template, dir).CombinedOutput(); err != nil {
				t.Fatalf("cp: %v\n%s", err, out)
			}
			w := witness(t, dir)
			cmd := exec.Command(exe, "-test.run=^$")
			cmd.Env = append(os.Environ(), "EMPTIES_COMPACT_KILL_DIR="+dir, "EMPTIES_KILL_STEP="+strconv.Itoa(k))
			out, err := cmd.CombinedOutput()
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
				t.Fatalf("helper did not stop at step %d: %v\n%s", k, err, out)
			}
			w.Check(t, "killed")
			want, next := old, nextOld
			if k >= 6 {
				want, next = compacted, nextCompacted
			}
			if got := fileSums(t, dir); !mapsEqual(got, want) {
				t.Errorf("after the kill the table is %v, want %v", got, want)
			}
			d, err := store.Create(testStage, dir)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			if got := fileSums(t, dir); !mapsEqual(got, want) {
				t.Errorf("after recovery the table is %v, want %v", got, want)
			}
			if g := len(generationsOf(t, dir)); g != 1 {
				t.Errorf("after recovery gen/ holds %d entries, want the current generation only", g)
			}
			addLogs(t, d, nil, "k03")
			compact(t, d, true)
			if err := d.Commit(); err != nil {
				t.Fatal(err)
			}
			if got := fileSums(t, dir); !mapsEqual(got, next) {
				t.Errorf("the next run's table is %v, want %v", got, next)
			}
		})
	}
}

func generationsOf(t testing.TB, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(dir, "gen"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".build-") { // the open run's own
			out = append(out, e.Name())
		}
	}
	return out
}

// killedCompaction is the helper process of the kill test: one run adds a
// log, compacts (the tenth part makes nine small ones too many) and exits
// with code 3 after step EMPTIES_KILL_STEP of Commit (0: before it).
func killedCompaction() {
	dir := os.Getenv("EMPTIES_COMPACT_KILL_DIR")
	k, _ := strconv.Atoi(os.Getenv("EMPTIES_KILL_STEP"))
	store.SetCommitStep(func(step int) {
		if step == k {
			os.Exit(3)
		}
	})
	tb := &exitTB{}
	d, err := store.Create(testStage, dir)
	if err != nil {
		tb.Fatal(err)
	}
	addLogs(tb, d, nil, "k01")
	if c := compact(tb, d, false); c.Parts != 10 {
		tb.Fatal("compacted", c)
	}
	if k == 0 {
		os.Exit(3)
	}
	if err := d.Commit(); err != nil {
		tb.Fatal(err)
	}
	os.Exit(0)
}

// An interrupted compaction returns the context's error and leaves nothing:
// the run is not committed, and the current generation is as it was.
func TestCompactPartsInterrupted(t *testing.T) {
	dir := t.TempDir()
	d, err := store.Create(testStage, dir)
	if err != nil {
		t.Fatal(err)
	}
	writeLogs(t, d, 0, "k00")
	for _, k := range []string{"k01", "k02", "k03", "k04", "k05", "k06", "k07", "k08"} {
		if err := d.Commit(); err != nil {
			t.Fatal(err)
		}
		addLogs(t, d, nil, k)
	}
	if err := d.Commit(); err != nil {
		t.Fatal(err)
	}
	w, old := witness(t, dir), fileSums(t, dir)
	addLogs(t, d, nil, "k09")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := store.CompactParts[logRow](ctx, d, "t", "log_id", false, rankOf); !errors.Is(err, context.Canceled) {
		t.Errorf("compaction with a cancelled context: %v, want context.Canceled", err)
	}
	d.Close()
	w.Check(t, "interrupted")
	if got := fileSums(t, dir); !mapsEqual(got, old) {
		t.Errorf("after the interrupted run the table is %v, want %v", got, old)
	}
}

// BenchmarkCompactParts rewrites nine small parts of 2,000 logs each (five
// rows of 2 KB texts a log, the parts' logs interleaved in key order) into
// one; its bytes are the texts', and it reports the part files' size.
func BenchmarkCompactParts(b *testing.B) {
	dir := b.TempDir()
	d, err := store.Create(testStage, dir)
	if err != nil {
		b.Fatal(err)
	}
	text := strings.Repeat("the model said nothing useful here. ", 56)
	logs := func(part int) [][]logRow {
		var out [][]logRow
		for i := range 2000 {
			key := fmt.Sprintf("k%07d", i*9+part) // the parts interleave in key order
			var rows []logRow
			for s := range 5 {
				rows = append(rows, logRow{key, int64(s), key + text})
			}
			out = append(out, rows)
		}
		return out
	}
	for part := range 9 {
		next := 0
		if part > 0 {
			if next, _, err = store.FilterParts(d, "t", "log_id", nil, func(r *logRow) string { return r.LogID }); err != nil {
				b.Fatal(err)
			}
		}
		s, err := store.NewSinkAt[logRow](d, "t", next)
		if err != nil {
			b.Fatal(err)
		}
		for _, rows := range logs(part) {
			s.Write(rows)
		}
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
		if err := d.Commit(); err != nil {
			b.Fatal(err)
		}
	}
	d.Close()
	var size int64
	for _, f := range store.TableFiles(dir, "t") {
		st, _ := os.Stat(f)
		size += st.Size()
	}
	b.SetBytes(int64(9 * 2000 * 5 * (8 + len(text))))
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		d, err := store.Create(testStage, dir)
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := store.FilterParts(d, "t", "log_id", nil, func(r *logRow) string { return r.LogID }); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		c, err := store.CompactParts[logRow](context.Background(), d, "t", "log_id", true, rankOf)
		if err != nil || c.Parts != 9 || c.Into != 1 {
			b.Fatal(c, err)
		}
		b.StopTimer()
		d.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(9*2000*5)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(size)/1e6, "MB-of-parts")
}
