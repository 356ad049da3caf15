package duck

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Limits bound what one reader's statements may take (`empties sql`, the
// SQL box of `empties serve`): DuckDB's memory_limit, max_temp_directory_size
// (what it may spill to its private folder once memory is full) and threads,
// set by LockReader before the configuration is locked, so no statement can
// raise them; and a time per statement, which DuckDB has no setting for:
// the statement runs under a context with that deadline (Context), and
// duckdb-go interrupts a query whose context ends (an ORDER BY over two
// billion rows included). A zero field leaves DuckDB's default (memory 80%
// of RAM, spill 90% of the free disk, every core) or sets no time limit.
type Limits struct {
	Memory  int64 // bytes
	Spill   int64 // bytes
	Threads int
	Timeout time.Duration
	// The flags that raise each limit, which the messages name.
	MemoryFlag, SpillFlag, TimeoutFlag string
}

// Or is l with each zero field taken from d (a command's defaults).
func (l Limits) Or(d Limits) Limits {
	if l.Memory == 0 {
		l.Memory = d.Memory
	}
	if l.Spill == 0 {
		l.Spill = d.Spill
	}
	if l.Threads == 0 {
		l.Threads = d.Threads
	}
	if l.Timeout == 0 {
		l.Timeout = d.Timeout
	}
	return l
}

// Context is ctx with the statement's deadline, if there is one.
func (l Limits) Context(ctx context.Context) (context.Context, context.CancelFunc) {
	if l.Timeout <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, l.Timeout)
}

// settings are the SET statements of the limits.
func (l Limits) settings() []string {
	var out []string
	if l.Memory > 0 {
		out = append(out, fmt.Sprintf("SET GLOBAL memory_limit = '%dB'", l.Memory))
	}
	if l.Spill > 0 {
		out = append(out, fmt.Sprintf("SET GLOBAL max_temp_directory_size = '%dB'", l.Spill))
	}
	if l.Threads > 0 {
		out = append(out, fmt.Sprintf("SET GLOBAL threads = %d", l.Threads))
	}
	return out
}

// LimitError is a statement stopped by one of its limits; the message
// names the flag that raises it. It does not unwrap to DuckDB's error: the
// interrupt a time limit makes is a failure (exit code 1), not the user's
// Ctrl-C (130).
type LimitError struct {
	msg string
	err error
}

func (e *LimitError) Error() string { return e.msg }

// Cause is DuckDB's own error.
func (e *LimitError) Cause() error { return e.err }

// Explain turns the error of a statement run under ctx (from Context) into
// a *LimitError when a limit stopped it; other errors are returned as they
// are. DuckDB's own advice (SET memory_limit, ...) is left out: the reader
// cannot change a setting.
func (l Limits) Explain(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	var le *LimitError
	if errors.As(err, &le) {
		return err
	}
	msg := err.Error()
	if l.Timeout > 0 && errors.Is(ctx.Err(), context.DeadlineExceeded) && (errors.Is(err, context.DeadlineExceeded) || strings.Contains(msg, "INTERRUPT Error")) {
		return &LimitError{msg: fmt.Sprintf("the query ran for %s, its time limit, and was stopped%s", l.Timeout, raise(l.TimeoutFlag, "0 for none")), err: err}
	}
	if !strings.Contains(msg, "Out of Memory Error") {
		return err
	}
	if strings.Contains(msg, "max_temp_directory_size") {
		return &LimitError{msg: fmt.Sprintf("the query needs more than its memory (%s) and the disk it may spill to (%s)%s%s", Bytes(l.Memory), Bytes(l.Spill),
			raise(l.SpillFlag, ""), raise(l.MemoryFlag, "")), err: err}
	}
	return &LimitError{msg: fmt.Sprintf("the query needs more memory than its limit (%s)%s", Bytes(l.Memory), raise(l.MemoryFlag, "")), err: err}
}

func raise(flag, note string) string {
	if flag == "" {
		return ""
	}
	if note != "" {
		return fmt.Sprintf("; %s raises it (%s)", flag, note)
	}
	return fmt.Sprintf("; %s raises it", flag)
}

// Bytes prints a size as the flags take it.
func Bytes(n int64) string {
	if n <= 0 {
		return "DuckDB's default"
	}
	for _, u := range []struct {
		name string
		size int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.size {
			return strings.TrimSuffix(strconv.FormatFloat(float64(n)/float64(u.size), 'f', 1, 64), ".0") + " " + u.name
		}
	}
	return strconv.FormatInt(n, 10) + " B"
}

// ParseBytes reads a size flag: a number and an optional unit (B, KB, MB,
// GB, TB in powers of 1000; KiB, MiB, GiB, TiB in powers of 1024), or a
// share of the machine's memory such as "25%"; "0" is the default.
func ParseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if strings.HasSuffix(t, "%") {
		f, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(t, "%")), 64)
		if err != nil || f <= 0 || f > 100 {
			return 0, fmt.Errorf("%q is not a share of memory between 0 and 100%%", s)
		}
		return int64(float64(TotalMemory()) * f / 100), nil
	}
	i := strings.IndexFunc(t, func(r rune) bool { return !(r >= '0' && r <= '9' || r == '.') })
	num, unit := t, ""
	if i >= 0 {
		num, unit = t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	}
	f, err := strconv.ParseFloat(num, 64)
	mult, ok := map[string]float64{"": 1, "b": 1, "kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
		"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40}[unit]
	if err != nil || !ok || f < 0 || f*mult > math.MaxInt64/2 {
		return 0, fmt.Errorf("%q is not a size (e.g. 4GiB, 512MB, 25%%)", s)
	}
	return int64(f * mult), nil
}

// TotalMemory is the memory this process may use: the machine's, or its
// control group's limit when that is smaller (a container).
func TotalMemory() int64 {
	var si syscall.Sysinfo_t
	total := int64(0)
	if syscall.Sysinfo(&si) == nil {
		total = int64(si.Totalram) * int64(si.Unit)
	}
	for _, f := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		if b, err := os.ReadFile(f); err == nil {
			if n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && n > 0 && (total == 0 || n < total) {
				total = n
			}
		}
	}
	if total <= 0 {
		total = 4 << 30 // unknown: as if 4 GiB
	}
	return total
}

// FreeSpill is what a reader may spill by default: half the free space of
// the file system of dir (the system's temporary folder, which may be
// memory: tmpfs), at most max.
func FreeSpill(dir string, max int64) int64 {
	var st syscall.Statfs_t
	if syscall.Statfs(dir, &st) != nil {
		return max
	}
	return min(max, int64(st.Bavail)*int64(st.Bsize)/2)
}

// HalfTheCores is a reader's share of the CPUs that leaves the rest to other
// work (at least one).
func HalfTheCores() int { return max(1, runtime.NumCPU()/2) }
