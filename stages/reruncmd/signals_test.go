package reruncmd_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	json "github.com/goccy/go-json"

	"empties/internal/guard"
	"empties/internal/manifest"
	"empties/internal/planfile"
	"empties/internal/rerun"
	"empties/internal/testutil"
)

// The built binary with the pinned inspect_ai (mockllm models of the demo,
// one sample at a time, its log written after every sample), a plan of two
// groups of six XSTest samples, and real signals, each at a known call of
// the model under test (the harness holds that call until the test opens
// its gate, so the test knows which sample is in flight):
//
//  1. Ctrl-C (SIGINT) in group 1: the runner stops where it says, no new
//     group starts (no call of a group 2 sample), exit 130, and the counts
//     add up (planned = in its logs + run now + left);
//  2. kill -9 of empties in group 1: its runner lives on only as long as
//     its in-flight call, holding the folder: a second rerun then is
//     refused naming the runner's pid; the parent-death signal stops the
//     runner, which ends without another call;
//  3. kill -9 of empties in group 2 with no parent-death signal and the
//     call never released: the runner's own watch of its parent stops it
//     and, past its grace, ends it;
//  4. the resume runs what is left and nothing twice: a sample is called
//     again only if it was the one in flight at a stop, every planned
//     sample is in the final logs exactly once, and the spend ledger
//     counts every call of every attempt's log once (the calls the harness
//     saw, less the one in flight when its runner was ended outright).
func TestRerunStopsWhereItSaysWithRealSignals(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs inspect_ai")
	}
	py := python(t)
	bin := testutil.Binary(t)
	dir := t.TempDir()
	x := xstestWide(t, dir)
	ids := x.IDs
	if len(ids) != 12 {
		t.Fatalf("%d samples in %s, want 12", len(ids), x.Src)
	}
	one := map[string]any{"max_tokens": 16000, "max_connections": 1, "max_samples": 1} // one sample at a time
	cost := planfile.GroupCost{EstimateUSD: 0.01, UpperBoundUSD: 0.02}
	planPath, logDir := x.write(t, x.group(ids[:6], one, cost), x.group(ids[6:], one, cost))
	callsFile := filepath.Join(dir, "calls.jsonl")
	inGroup2 := map[string]bool{}
	for _, id := range ids[6:] {
		inGroup2[id] = true
	}

	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute) // a hang guard, far beyond any load
	defer cancel()
	type proc struct {
		cmd *exec.Cmd
		out *testutil.SyncBuffer
	}
	start := func(env ...string) proc {
		cmd := exec.CommandContext(ctx, bin, "rerun", planPath, "--manifest", manifestFile(t), "--harness", harness(t), "--python", py,
			"--log-buffer", "1", "--allow-unpriced")
		cmd.Env = append(os.Environ(), append([]string{"EMPTIES_TEST_CALLS=" + callsFile, "EMPTIES_TEST_STOP_GRACE=10m", "EMPTIES_TEST_ORPHAN_GRACE=10m"}, env...)...)
		out := &testutil.SyncBuffer{}
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return proc{cmd, out}
	}
	code := func(err error) int {
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatalf("empties: %v", err)
		}
		return 0
	}
	var e proc
	until := func(what string, ok func() bool) {
		t.Helper()
		for !ok() {
			if ctx.Err() != nil {
				t.Fatalf("waited for %s until the hang guard; the last rerun printed:\n%s", what, e.out.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	called := func() []string { return calls(t, callsFile) }
	gateAt := func(n int) (string, []string) {
		gate := filepath.Join(dir, fmt.Sprintf("gate-%d", n))
		return gate, []string{"EMPTIES_TEST_GATE=" + gate, "EMPTIES_TEST_GATE_AT=" + strconv.Itoa(n)}
	}
	runnerPID := func() int {
		b, err := os.ReadFile(filepath.Join(logDir, guard.LogFolderHolder))
		if err != nil {
			return 0
		}
		var h guard.Holder
		json.Unmarshal(b, &h)
		return h.WriterPID
	}
	// a runner is left while its process lives or the folder's lock is held
	alive := func(pid int) bool { return !ended(pid) || guard.CheckLogFolderFree(logDir, logDir) != nil }
	var inFlight []string // the sample of each gated call

	// 1. Ctrl-C at the third call (group 1): no new group
	gate, env := gateAt(3)
	e = start(env...)
	until("the third call", func() bool { return len(called()) == 3 })
	inFlight = append(inFlight, called()[2])
	e.cmd.Process.Signal(syscall.SIGINT)
	until("the runner to take the stop", func() bool { return strings.Contains(e.out.String(), "stopping: no new group starts") })
	os.WriteFile(gate, nil, 0o644)
	if c := code(e.cmd.Wait()); c != 130 {
		t.Fatalf("Ctrl-C: exit %d, want 130\n%s", c, e.out.String())
	}
	for _, id := range called() {
		if inGroup2[id] {
			t.Errorf("group 2's sample %s was called after the Ctrl-C in group 1\n%s", id, e.out.String())
		}
	}
	if strings.Contains(e.out.String(), "[2/2] wide") || !strings.Contains(e.out.String(), "done: 0 of 2 groups finished") {
		t.Errorf("Ctrl-C in group 1: a new group started, or what is left is not said:\n%s", e.out.String())
	}
	checkTallies(t, e.out.String())
	after1 := tallyOf(t, e.out.String(), "[1/2]")

	// 2. kill -9 of empties at the fifth call (group 1, resumed): the runner
	// holds the folder while its call is in flight, then stops by itself
	gate, env = gateAt(5)
	e = start(env...)
	until("the fifth call", func() bool { return len(called()) == 5 })
	inFlight = append(inFlight, called()[4])
	if !strings.Contains(e.out.String(), fmt.Sprintf("[1/2] wide xstest_safe × gpt-5-mini/openai-responses (6 samples × 1 epoch): 6 planned, %d in its logs, %d to run", after1.InLogs+after1.RunNow, after1.Left)) {
		t.Errorf("the resumed group does not start from what the stopped run said it left (%+v):\n%s", after1, e.out.String())
	}
	pid := runnerPID()
	e.cmd.Process.Signal(syscall.SIGKILL)
	e.cmd.Wait()
	if pid == 0 || !alive(pid) {
		t.Fatalf("no runner holds the folder after empties was killed (pid %d)", pid)
	}
	second, err := exec.CommandContext(ctx, bin, "rerun", planPath, "--manifest", manifestFile(t), "--harness", harness(t), "--python", py, "--allow-unpriced").CombinedOutput()
	if code(err) != 1 || !strings.Contains(string(second), fmt.Sprintf("pid %d, running", pid)) || !strings.Contains(string(second), "kill -INT") {
		t.Errorf("a second rerun while the runner lives: exit %d, want 1 and a refusal naming pid %d:\n%s", code(err), pid, second)
	}
	if n := len(called()); n != 5 {
		t.Errorf("the refused rerun or the orphan called the model (%d calls, want 5)", n)
	}
	os.WriteFile(gate, nil, 0o644)
	until("the orphaned runner to end", func() bool { return !alive(pid) })
	if n := len(called()); n != 5 {
		t.Errorf("the runner went on after empties was killed: %d calls, want 5", n)
	}

	// 3. kill -9 of empties at the first call of group 2, with no
	// parent-death signal and the call held for good: only the runner's own
	// watch of its parent can end it (the main thread is held), and does
	e = start("EMPTIES_TEST_NO_PDEATHSIG=1", "EMPTIES_TEST_ORPHAN_GRACE=1s",
		"EMPTIES_TEST_GATE="+filepath.Join(dir, "never"), "EMPTIES_TEST_GATE_SAMPLES="+strings.Join(ids[6:], ","))
	until("a call of group 2", func() bool {
		c := called()
		return len(c) > 0 && inGroup2[c[len(c)-1]]
	})
	held := len(called())
	pid = runnerPID()
	e.cmd.Process.Signal(syscall.SIGKILL)
	e.cmd.Wait()
	until("the runner to see its parent gone", func() bool { return !alive(pid) })
	if n := len(called()); n != held {
		t.Errorf("the runner went on after empties was killed: %d calls after the kill", n-held)
	}

	// 4. the resume runs what is left, nothing twice
	e = start()
	if c := code(e.cmd.Wait()); c != 0 {
		t.Fatalf("the resumed run: exit %d\n%s", c, e.out.String())
	}
	checkTallies(t, e.out.String())
	all := called()
	seen := map[string]int{}
	for _, id := range all {
		seen[id]++
	}
	for id, n := range seen {
		if n > 1 && !slicesContains(inFlight, id) && !inGroup2[id] {
			t.Errorf("sample %s was called %d times, and was not in flight at a stop", id, n)
		}
	}
	final := filepath.Join(dir, "final")
	if out, err := exec.CommandContext(ctx, bin, "ingest", logDir, "--out", final, "--progress", "never").CombinedOutput(); err != nil {
		t.Fatalf("ingest: %v\n%s", err, out)
	}
	counted := testutil.Query(t, final, `SELECT sample_id, count(*) FROM replies r JOIN logs l USING (log_id)
	  WHERE l.set_status = 'counted' AND l.status = 'success' AND r.class <> 'error' GROUP BY ALL ORDER BY 1`)
	if len(counted) != 12 {
		t.Errorf("the final logs hold %d planned samples, want 12: %v", len(counted), counted)
	}
	for _, r := range counted {
		if r[1] != "1" {
			t.Errorf("sample %s is %s times in the final logs", r[0], r[1])
		}
	}
	// the ledger: every call of every attempt's log once, as the harness saw
	// them less the one in flight when the runner ended outright (phase 3,
	// in no log): the calls of a sample eval_set reused are not counted twice
	ledger := filepath.Join(dir, "ledger")
	if out, err := exec.CommandContext(ctx, bin, "ingest", logDir, "--out", ledger, "--all-attempts", "--progress", "never").CombinedOutput(); err != nil {
		t.Fatalf("ingest --all-attempts: %v\n%s", err, out)
	}
	inLogs := testutil.Query(t, ledger, `SELECT count(*), count(DISTINCT (r.sample_uuid, c.epoch, c.call_index)),
	  count(DISTINCT (r.sample_uuid, c.epoch, c.call_index)) FILTER (WHERE c.kind = 'model_under_test' AND c.call_status <> 'placeholder')
	  FROM model_calls c JOIN replies r USING (log_id, sample_id, epoch)`)[0]
	if inLogs[0] == inLogs[1] {
		t.Errorf("no call is in two attempts' logs (%v): the test did not resume a stopped log", inLogs)
	}
	lost := len(all) - atoi(t, inLogs[2])
	if lost != 1 {
		t.Errorf("the harness saw %d calls of the model under test, the logs hold %s once each: %d in no log, want 1 (phase 3's)", len(all), inLogs[2], lost)
	}
	m, err := manifest.Load(manifestFile(t), manifest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	spend, err := rerun.Account(ctx, []string{logDir}, m)
	if err != nil {
		t.Fatal(err)
	}
	if got := spend.In(logDir); itoa(got.Calls) != inLogs[1] || got.Records != 12 || !got.Finished || got.USD <= 0 {
		t.Errorf("the ledger: %+v, want %s calls (each once), 12 records, finished, priced", got, inLogs[1])
	}
}

var tallyRe = regexp.MustCompile(`(\d+) in its logs \+ (\d+) run now \+ (\d+) left = (\d+) planned`)

// checkTallies checks that every tally printed adds up.
func checkTallies(t *testing.T, out string) {
	t.Helper()
	found := 0
	for _, m := range tallyRe.FindAllStringSubmatch(out, -1) {
		found++
		if atoi(t, m[1])+atoi(t, m[2])+atoi(t, m[3]) != atoi(t, m[4]) {
			t.Errorf("%q does not add up", m[0])
		}
	}
	if found == 0 {
		t.Errorf("no tally printed:\n%s", out)
	}
}

// tallyOf is the last tally printed on a line containing at.
func tallyOf(t *testing.T, out, at string) rerun.Tally {
	t.Helper()
	var got *rerun.Tally
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		if m := tallyRe.FindStringSubmatch(sc.Text()); m != nil && strings.Contains(sc.Text(), at) {
			got = &rerun.Tally{Planned: atoi(t, m[4]), InLogs: atoi(t, m[1]), RunNow: atoi(t, m[2]), Left: atoi(t, m[3])}
		}
	}
	if got == nil {
		t.Fatalf("no tally of %s:\n%s", at, out)
	}
	return *got
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func slicesContains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// ended reports whether the process pid has ended, all its threads: gone,
// or a zombie awaiting its reaping (an orphan's new parent may never reap
// it) with no thread left but its leader. A leader that has exited while
// other threads still run shows as a zombie too, and still holds its files.
func ended(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	threads, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	return len(f) > 0 && (f[0] == "Z" || f[0] == "X") && len(threads) <= 1
}

func TestMain(m *testing.M) {
	code := m.Run()
	testutil.RemoveBinary()
	os.Exit(code)
}
