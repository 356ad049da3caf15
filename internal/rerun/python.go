package rerun

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	json "github.com/goccy/go-json"

	"empties/internal/cliutil"
	"empties/internal/guard"
	"empties/internal/numfmt"
)

// Event is one progress line of the Python runner.
type Event struct {
	Event     string   `json:"event"` // group_start, sample, group_end, stopping, stopped
	Group     int      `json:"group"`
	Label     string   `json:"label"`
	Done      int      `json:"done"` // sample: records run so far in this invocation
	OK        bool     `json:"ok"`
	Status    []string `json:"status"`
	Run       int      `json:"run"`       // group_end: records run in this invocation
	Samples   int      `json:"samples"`   // group_end: records in the group's log
	Completed int      `json:"completed"` // group_end: of them completed
	Logs      []string `json:"logs"`
	Error     *string  `json:"error"` // sample: its error; group_end: why the group did not finish
	Seconds   float64  `json:"seconds"`
	Stopped   bool     `json:"stopped"` // group_end: the group was stopped (a stop request, an interrupt)
	Why       string   `json:"why"`     // stopping, stopped: what asked the runner to stop
}

// Python finds the interpreter to run: the given one, else $EMPTIES_PYTHON,
// else the project's .venv/bin/python when the working folder has one, else
// python3 on the PATH.
func Python(given string) string {
	switch {
	case given != "":
		return given
	case os.Getenv("EMPTIES_PYTHON") != "":
		return os.Getenv("EMPTIES_PYTHON")
	}
	if fi, err := os.Stat(filepath.Join(".venv", "bin", "python")); err == nil && !fi.IsDir() {
		abs, _ := filepath.Abs(filepath.Join(".venv", "bin", "python"))
		return abs
	}
	return "python3"
}

// RunnerLockFD is the descriptor the runner holds the log folder's lock on
// (its spec's lock_fd): the second of cmd.ExtraFiles, after the events.
const RunnerLockFD = 4

// Runner is one run of the Python runner over a spec.
type Runner struct {
	Python  string
	Spec    string   // the spec file (with LockFD, ParentPID and OrphanGrace set)
	Env     []string // the runner's environment
	Lock    *os.File // the log folder's lock (guard.LogFolder.LockFile), inherited as RunnerLockFD
	OnStart func(pid int)
	OnEvent func(Event)
}

// Run runs `python -m empties rerun SPEC` and calls OnEvent for each
// progress line; its own output (inspect_ai's console, a traceback) is
// returned, its last 64 KiB.
//
// The runner's life is tied to empties' (python/src/empties/study/rerun.py,
// "Stopping"): it inherits the log folder's lock, so the folder stays taken
// while it lives; a cancelled ctx (a first Ctrl-C) asks it to stop with
// SIGTERM (no new group; the running one cancelled cleanly, its log
// written), and Run waits for it to end, however long that takes; a second
// Ctrl-C (cliutil.HoldStop's force) kills its process group outright; and
// empties' own death sends it SIGTERM (the parent-death signal, on Linux),
// which the runner also finds by watching its parent. Its output goes to an
// unlinked file, not a pipe, so the runner never meets a closed pipe when
// empties is gone.
func (r Runner) Run(ctx context.Context) (output string, err error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return "", err
	}
	defer pr.Close()
	out, err := guard.Unlinked("empties-rerun-output-*")
	if err != nil {
		pw.Close()
		return "", err
	}
	defer out.Close()
	cmd := exec.Command(r.Python, "-m", "empties", "rerun", r.Spec, "--events-fd", "3")
	cmd.Env = r.Env
	cmd.ExtraFiles = []*os.File{pw, r.Lock} // fd 3, fd RunnerLockFD
	cmd.Stdout, cmd.Stderr = out, out
	// A terminal's Ctrl-C reaches empties only (a process group of its
	// own), which passes it on as above.
	cmd.SysProcAttr = runnerAttr()
	// The parent-death signal fires when the thread that started the child
	// ends, not the process (golang/go#27505): this goroutine keeps its
	// thread until the runner has been waited for, so the thread outlives
	// the child whatever the runtime does with its other threads.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := cmd.Start(); err != nil {
		pw.Close()
		return "", fmt.Errorf("rerun: cannot start %s: %w (name the project's Python with --python)", r.Python, err)
	}
	pw.Close()
	pid := cmd.Process.Pid
	release := cliutil.HoldStop(ctx, func() { syscall.Kill(-pid, syscall.SIGKILL) })
	defer release()
	if r.OnStart != nil {
		r.OnStart(pid)
	}
	ended := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			cmd.Process.Signal(syscall.SIGTERM)
		case <-ended:
		}
	}()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
		for sc.Scan() {
			var e Event
			if json.Unmarshal(sc.Bytes(), &e) == nil && e.Event != "" && r.OnEvent != nil {
				r.OnEvent(e)
			}
		}
	}()
	err = cmd.Wait()
	close(ended)
	wg.Wait()
	text := lastBytes(out, 64<<10)
	if ctx.Err() != nil {
		return text, ctx.Err()
	}
	var exit *exec.ExitError
	switch {
	case err == nil:
		return text, nil
	case errors.As(err, &exit) && exit.ExitCode() == runnerStopped:
		return text, errStopped
	case errors.As(err, &exit) && strings.Contains(text, "No module named empties"):
		return text, fmt.Errorf("rerun: %s has no empties package: install it (pip install ./python, or make pypkg) or name another with --python", r.Python)
	}
	return text, err
}

// runnerStopped is the runner's exit code when it stopped on request (a
// signal sent to it, not by empties): STOPPED in rerun.py.
const runnerStopped = 130

// errStopped is a runner that stopped on a request empties did not make (a
// signal sent to the runner itself): the run stopped as on a Ctrl-C.
var errStopped = errors.New("the runner was stopped (a signal sent to it)")

// OrphanGrace is how long a runner whose empties is gone has to finish
// writing its logs before it exits at once (the spec's orphan_grace);
// EMPTIES_TEST_ORPHAN_GRACE (a duration) changes it for the tests that
// watch an orphan.
func OrphanGrace() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("EMPTIES_TEST_ORPHAN_GRACE")); err == nil && d > 0 {
		return d
	}
	return 60 * time.Second
}

// lastBytes reads the last n bytes of f.
func lastBytes(f *os.File, n int64) string {
	end, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return ""
	}
	start := max(end-n, 0)
	b := make([]byte, end-start)
	k, _ := f.ReadAt(b, start)
	return string(b[:k])
}

// Tally is a group's records (sample × epoch) as every line of a run
// counts them, one computation: the Planned records are those its logs held
// before this run (InLogs), those this run finished without an error
// (RunNow), and the rest (Left), which the next run of the plan runs.
type Tally struct{ Planned, InLogs, RunNow, Left int }

// Count is the tally of a group whose logs held before records when the
// run began and of which the run has finished now.
func Count(planned, before, now int) Tally {
	in := min(max(before, 0), planned)
	now = min(max(now, 0), planned-in)
	return Tally{Planned: planned, InLogs: in, RunNow: now, Left: planned - in - now}
}

func (t Tally) String() string {
	return fmt.Sprintf("%d in its logs + %d run now + %d left = %d planned", t.InLogs, t.RunNow, t.Left, t.Planned)
}

// Progress prints a run's progress: a line when a group starts, a few as
// its samples finish (at every quarter of a group of 20 records or more to
// run), and one when it ends, each with the group's Tally as far as the
// runner's events tell it (a group that did not finish is counted from its
// log after the run: printLeft in stage rerun).
type Progress struct {
	W       io.Writer
	Groups  []Group
	Done    map[int]int // records each group's logs held before this run
	Failed  []string    // labels of the groups that did not finish
	Stopped bool        // the runner stopped: no group started after the one it stopped in
	Why     string      // what stopped it
	ran     map[int]int // records finished without an error in this run
	last    map[int]int
}

// Tally is group i's tally so far (i: Group.Index).
func (p *Progress) Tally(i int) Tally {
	return Count(p.Groups[i-1].Planned, p.Done[i], p.ran[i])
}

// Event prints one event.
func (p *Progress) Event(e Event) {
	if p.last == nil {
		p.last, p.ran = map[int]int{}, map[int]int{}
	}
	switch e.Event {
	case "stopping":
		p.Stopped, p.Why = true, e.Why
		fmt.Fprintf(p.W, "stopping: no new group starts; the running group's samples in flight are cancelled and its log is written with what finished (interrupt again to stop at once)\n")
		return
	case "stopped":
		p.Stopped = true
		return
	}
	if e.Group < 1 || e.Group > len(p.Groups) {
		return
	}
	g := p.Groups[e.Group-1]
	at := fmt.Sprintf("[%d/%d]", e.Group, len(p.Groups))
	switch e.Event {
	case "group_start":
		what := numfmt.Plural(int64(len(g.SampleIDs)), "sample", "samples") + " × " + numfmt.Plural(int64(g.Epochs), "epoch", "epochs")
		if g.Replays() {
			what = numfmt.Plural(int64(len(g.Replay)), "replayed reply", "replayed replies")
		}
		t := p.Tally(e.Group)
		fmt.Fprintf(p.W, "%s %s (%s): %d planned, %d in its logs, %d to run -> %s\n", at, g.Label, what, t.Planned, t.InLogs, t.Left, g.LogDir)
	case "sample":
		if e.Error == nil {
			p.ran[e.Group]++
		}
		t := p.Tally(e.Group)
		todo := t.Planned - t.InLogs
		if todo < 20 {
			return
		}
		if q := t.RunNow * 4 / todo; q > p.last[e.Group] && t.Left > 0 {
			p.last[e.Group] = q
			fmt.Fprintf(p.W, "%s   %s\n", at, t)
		}
	case "group_end":
		t := p.Tally(e.Group)
		status := strings.Join(e.Status, ", ")
		switch {
		case e.OK:
			fmt.Fprintf(p.W, "%s done in %.1fs: %s (%s)\n", at, e.Seconds, t, status)
		case e.Stopped:
			// what its log holds is counted from the log once the runner has
			// ended: a sample in flight when it was stopped may have finished
			// (and be in the log) with no event of its own
			p.Stopped = true
			fmt.Fprintf(p.W, "%s stopped: its log keeps what finished (counted below)\n", at)
		default:
			why := status
			if e.Error != nil {
				why = *e.Error
			}
			p.Failed = append(p.Failed, g.Label)
			fmt.Fprintf(p.W, "%s NOT finished: %s (its log is counted below; the next `empties rerun` of the plan retries it)\n", at, oneLine(why))
		}
	}
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " ..."
	}
	if len(s) > 400 {
		s = s[:400] + " ..."
	}
	return s
}
