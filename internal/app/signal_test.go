package app_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"empties/internal/store"
	"empties/internal/testutil"
)

// generationOf returns the current generation's folder and a digest of its
// tables' files.
func generationOf(t *testing.T, dir string) (string, map[string]int64) {
	t.Helper()
	cur, err := store.Current(dir)
	if err != nil || cur == "" {
		t.Fatalf("no current generation in %s: %v", dir, err)
	}
	sizes := map[string]int64{}
	for _, tb := range store.Tables(cur) {
		for _, f := range store.TableFiles(cur, tb) {
			st, err := os.Stat(f)
			if err != nil {
				t.Fatal(err)
			}
			sizes[f] = st.Size()
		}
	}
	return cur, sizes
}

// The built binary, with a real FIFO among its inputs and real signals:
// the FIFO is skipped and named; a first SIGTERM stops a run whose decoders
// are blocked by itself (the watchdog never fires), and a second ends it at once; either way the
// dataset is the previous generation, whole, and the next run goes on.
func TestSignalsAndFIFOs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := testutil.Binary(t)
	logs := t.TempDir()
	b, err := os.ReadFile(testutil.Path(t, "testdata", "logs", "zstd-basic.eval"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(logs, "a.eval"), b, 0o644)
	fifo := filepath.Join(logs, "pipe.eval")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(t.TempDir(), "data")

	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute) // a hang guard, far beyond any load
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "ingest", logs, fifo, "--out", data, "--progress", "never").CombinedOutput()
	if err != nil {
		t.Fatalf("ingest with a FIFO: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "skipped "+fifo+": not a regular file (a named pipe)") {
		t.Errorf("the FIFO is not named in the summary:\n%s", out)
	}
	before, files := generationOf(t, data)

	for _, tc := range []struct {
		name    string
		signals int
		stderr  string
	}{
		{"one signal", 1, "empties: interrupted\n"},
		{"two signals", 2, "interrupted again: stopping now"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// --full: the folder is unchanged, and an incremental run would
			// read nothing to stall in.
			cmd := exec.CommandContext(ctx, bin, "ingest", logs, "--out", data, "--progress", "never", "--full")
			stalled := filepath.Join(t.TempDir(), "stalled")
			// The watchdog waits far beyond any load, so that its message
			// (checked below) means the stage did not stop by itself.
			cmd.Env = append(os.Environ(), "EMPTIES_TEST_STALL_READS="+stalled, "EMPTIES_TEST_STOP_GRACE=10m")
			var stderr testutil.SyncBuffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Once a decoder has stalled (it made the file), the run can end
			// only by a signal.
			for deadline := time.Now().Add(10 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
				if _, err := os.Stat(stalled); err == nil {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("the run never started")
				}
			}
			start := time.Now()
			cmd.Process.Signal(syscall.SIGTERM)
			if tc.signals == 2 {
				// Signals of one kind that are pending at once merge into
				// one: the second is sent once the first has been taken.
				for deadline := time.Now().Add(10 * time.Minute); !strings.Contains(stderr.String(), "stopping (interrupt again"); time.Sleep(10 * time.Millisecond) {
					if time.Now().After(deadline) {
						t.Fatal("the first signal was never taken")
					}
				}
				cmd.Process.Signal(syscall.SIGTERM)
			}
			err := cmd.Wait()
			elapsed := time.Since(start)
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
				t.Errorf("exit: %v, want code 130\n%s", err, stderr.String())
			}
			t.Logf("stopped %s after the signal", elapsed) // a figure, not a verdict: the machine may be loaded
			if strings.Contains(stderr.String(), "still busy") {
				t.Errorf("the run did not stop by itself; the watchdog ended it:\n%s", stderr.String())
			}
			if !strings.Contains(stderr.String(), tc.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.stderr, stderr.String())
			}
			if m, _ := filepath.Glob(filepath.Join(data, "gen", ".build-*")); tc.signals == 1 && len(m) > 0 {
				t.Errorf("a clean stop left its build folder: %v", m)
			}
			cur, now := generationOf(t, data)
			if cur != before || len(now) != len(files) {
				t.Errorf("current generation %s with %d files, want %s with %d", cur, len(now), before, len(files))
			}
			for f, size := range files {
				if now[f] != size {
					t.Errorf("%s: %d bytes, was %d", f, now[f], size)
				}
			}
		})
	}
	out, err = exec.CommandContext(ctx, bin, "ingest", logs, "--out", data, "--progress", "never", "--full").CombinedOutput()
	if err != nil {
		t.Fatalf("the run after the stopped ones: %v\n%s", err, out)
	}
	if m, _ := filepath.Glob(filepath.Join(data, "gen", ".build-*")); len(m) > 0 {
		t.Errorf("build folders left: %v", m)
	}
	if cur, _ := generationOf(t, data); cur == before {
		t.Error("the next run did not switch to a new generation")
	}
}
