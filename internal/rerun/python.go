package rerun

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	json "github.com/goccy/go-json"
)

// Event is one progress line of the Python runner.
type Event struct {
	Event     string   `json:"event"` // group_start, sample, group_end
	Group     int      `json:"group"`
	Label     string   `json:"label"`
	Done      int      `json:"done"` // sample: records run so far in this invocation
	OK        bool     `json:"ok"`
	Status    []string `json:"status"`
	Run       int      `json:"run"`       // group_end: records run in this invocation
	Samples   int      `json:"samples"`   // group_end: records in the group's log
	Completed int      `json:"completed"` // group_end: of them completed
	Logs      []string `json:"logs"`
	Error     *string  `json:"error"`
	Seconds   float64  `json:"seconds"`
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

// StopWait is how long a cancelled run's Python has to write its logs
// (inspect_ai marks them cancelled, keeping the finished samples) before it
// is killed; under app.StopGrace, so the process ends on the first signal.
const StopWait = 4 * time.Second

// RunPython runs `python -m empties rerun SPEC` and calls onEvent for each
// progress line. Its own output (inspect_ai's console, a traceback) is kept,
// up to its last 64 KiB, and returned. A cancelled ctx sends the runner an
// interrupt and, after StopWait, kills it.
func RunPython(ctx context.Context, python, specPath string, env []string, onEvent func(Event)) (output string, err error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return "", err
	}
	defer pr.Close()
	cmd := exec.CommandContext(ctx, python, "-m", "empties", "rerun", specPath, "--events-fd", "3")
	cmd.Env = env
	cmd.ExtraFiles = []*os.File{pw}
	out := &tail{max: 64 << 10}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // a terminal's Ctrl-C reaches empties, which passes it on
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = StopWait
	if err := cmd.Start(); err != nil {
		pw.Close()
		return "", fmt.Errorf("rerun: cannot start %s: %w (name the project's Python with --python)", python, err)
	}
	pw.Close()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
		for sc.Scan() {
			var e Event
			if json.Unmarshal(sc.Bytes(), &e) == nil && e.Event != "" {
				onEvent(e)
			}
		}
	}()
	err = cmd.Wait()
	wg.Wait()
	if ctx.Err() != nil {
		return out.String(), ctx.Err()
	}
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) && strings.Contains(out.String(), "No module named empties") {
			return out.String(), fmt.Errorf("rerun: %s has no empties package: install it (pip install ./python, or make pypkg) or name another with --python", python)
		}
		return out.String(), err
	}
	return out.String(), nil
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	buf bytes.Buffer
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf.Write(p)
	if over := t.buf.Len() - t.max; over > 0 {
		t.buf.Next(over)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.buf.String()
}

// Progress prints a run's progress: a line when a group starts, a few as
// its samples finish (at every quarter of a group of 20 records or more),
// and one when it ends.
type Progress struct {
	W      io.Writer
	Groups []Group
	Done   map[int]int // records each group's logs held before this run
	Failed []string    // labels of the groups that did not finish
	last   map[int]int
}

// Event prints one event.
func (p *Progress) Event(e Event) {
	if p.last == nil {
		p.last = map[int]int{}
	}
	if e.Group < 1 || e.Group > len(p.Groups) {
		return
	}
	g := p.Groups[e.Group-1]
	at := fmt.Sprintf("[%d/%d]", e.Group, len(p.Groups))
	switch e.Event {
	case "group_start":
		what := fmt.Sprintf("%d samples × %d epochs", len(g.SampleIDs), g.Epochs)
		if g.Replays() {
			what = fmt.Sprintf("%d replayed replies", len(g.Replay))
		}
		before := ""
		if d := p.Done[e.Group]; d > 0 {
			before = fmt.Sprintf(", %d of %d already in its logs", min(d, g.Planned), g.Planned)
		}
		fmt.Fprintf(p.W, "%s %s: %s%s -> %s\n", at, g.Label, what, before, g.LogDir)
	case "sample":
		todo := max(g.Planned-p.Done[e.Group], 0)
		if todo < 20 {
			return
		}
		q := e.Done * 4 / todo
		if q > p.last[e.Group] && e.Done < todo {
			p.last[e.Group] = q
			fmt.Fprintf(p.W, "%s   %d of %d run\n", at, e.Done, todo)
		}
	case "group_end":
		status := strings.Join(e.Status, ", ")
		if e.OK {
			fmt.Fprintf(p.W, "%s done: %d run now, %d of %d records in the log (%s) in %.1fs\n", at, e.Run, e.Completed, e.Samples, status, e.Seconds)
			return
		}
		why := status
		if e.Error != nil {
			why = *e.Error
		}
		p.Failed = append(p.Failed, g.Label)
		fmt.Fprintf(p.W, "%s NOT finished: %s (%d run now; the next `empties rerun` of the plan retries it)\n", at, oneLine(why), e.Run)
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
