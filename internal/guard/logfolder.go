package guard

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// LogFolderMarker marks a folder of logs that a program empties runs writes
// (inspect_ai's eval_set, run by `empties rerun`): the folder is empties'
// to give that program, and the files in it are that program's. The name
// has no .json or .eval ending, so neither inspect_ai nor ingest takes it
// for a log.
const LogFolderMarker = ".empties-logs"

const logFolderFormat = "empties log folder"

// logFolderMark is the content of LogFolderMarker.
type logFolderMark struct {
	Format  string `json:"format"`  // "empties log folder"
	Command string `json:"command"` // the empties command that runs the writer, e.g. "rerun"
	Writer  string `json:"writer"`  // the program that writes the logs
}

// LogFolder is a log folder opened for a run (OpenLogFolder): marked as
// empties', and locked for as long as it is open.
type LogFolder struct {
	real string
	lock *os.File
}

// CheckLogFolder checks, changing nothing, that path may be the log folder
// command hands to writer: a folder that does not exist yet, an empty one,
// or one it marked before (LogFolderMarker, written by the same command). It
// must not be a file, a dataset or lie inside one (a folder of its own at a
// dataset's top is fine), nor meet a path of r.Avoid. A folder holding files
// and no marker is a user's and is refused. It returns the resolved path
// and whether the folder exists.
func CheckLogFolder(path, command string, r Rules) (real string, exists bool, err error) {
	if path == "" {
		return "", false, fmt.Errorf("%s: no log folder given", command)
	}
	if real, err = resolve(path); err != nil {
		return "", false, err
	}
	if err := r.check(path, real, false); err != nil {
		return "", false, err
	}
	fi, err := os.Stat(real)
	switch {
	case os.IsNotExist(err):
		return real, false, nil
	case err != nil:
		return "", false, err
	case !fi.IsDir():
		return "", false, refuse(path, "is a file, not a folder")
	}
	b, err := os.ReadFile(filepath.Join(real, LogFolderMarker))
	if os.IsNotExist(err) {
		entries, err := os.ReadDir(real)
		if err != nil {
			return "", false, err
		}
		if len(entries) == 0 {
			return real, true, nil
		}
		var names []string
		for _, e := range entries[:min(3, len(entries))] {
			names = append(names, e.Name())
		}
		if len(entries) > 3 {
			names = append(names, "...")
		}
		return "", false, refuse(path, "holds files empties did not put there (%s; no %s); give empties %s a new or empty folder", strings.Join(names, ", "), LogFolderMarker, command)
	}
	if err != nil {
		return "", false, err
	}
	var m logFolderMark
	if err := json.Unmarshal(b, &m); err != nil || m.Format != logFolderFormat {
		return "", false, refuse(path, "%s is not an empties log folder marker", LogFolderMarker)
	}
	if m.Command != command {
		return "", false, refuse(path, "holds the logs of `empties %s`, not of %s; give it another folder", m.Command, command)
	}
	return real, true, nil
}

// OpenLogFolder checks path as CheckLogFolder does, makes it if it is new,
// marks it for command and writer (a new or empty folder), and locks it:
// another empties process opening it is refused until Close. The logs are
// the writer's: empties itself writes only the marker there.
func OpenLogFolder(path, command, writer string, r Rules) (*LogFolder, error) {
	real, exists, err := CheckLogFolder(path, command, r)
	if err != nil {
		return nil, err
	}
	if !exists {
		if err := os.MkdirAll(real, 0o755); err != nil {
			return nil, err
		}
	}
	lock, err := os.Open(real)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		lock.Close()
		return nil, busy(path, real)
	}
	if !regular(filepath.Join(real, LogFolderMarker)) {
		// checked again under the lock: a folder another process filled meanwhile is not taken
		if _, _, err := CheckLogFolder(path, command, r); err != nil {
			lock.Close()
			return nil, err
		}
		b, _ := json.MarshalIndent(logFolderMark{Format: logFolderFormat, Command: command, Writer: writer}, "", "  ")
		if err := writeNew(filepath.Join(real, LogFolderMarker), append(b, '\n')); err != nil {
			lock.Close()
			return nil, err
		}
	}
	return &LogFolder{real: real, lock: lock}, nil
}

// Path is the log folder, resolved.
func (f *LogFolder) Path() string { return f.real }

// LockFile is the descriptor that holds the folder's lock (a flock on the
// folder). A child process that inherits it holds the lock with it: the
// lock is released only when every process holding the descriptor has
// closed it or ended, so a writer that outlives empties keeps the folder
// taken. Announce the child with Hold.
func (f *LogFolder) LockFile() *os.File { return f.lock }

// Holder says who holds a log folder's lock, for the refusal of another
// process (LogFolderHolder).
type Holder struct {
	Command    string `json:"command"`              // the empties command, e.g. "rerun"
	EmptiesPID int    `json:"empties_pid"`          // the empties process that took the lock
	WriterPID  int    `json:"writer_pid,omitempty"` // the program it started, which holds the lock too (LockFile)
	Writer     string `json:"writer,omitempty"`
	Started    string `json:"started"` // RFC 3339
}

// LogFolderHolder is the file in a log folder that names its lock's
// holders while they run (Hold); stale once they are gone, and then
// ignored: the lock, not this file, decides.
const LogFolderHolder = ".empties-logs-holder"

// Hold records the holders of the lock (LogFolderHolder), whole or not at
// all.
func (f *LogFolder) Hold(h Holder) error {
	b, err := json.MarshalIndent(h, "", "  ")
	if err != nil {
		return err
	}
	return WriteFile(filepath.Join(f.real, LogFolderHolder), false, func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	})
}

// CheckLogFolderFree refuses the log folder real (resolved by
// CheckLogFolder) while another process holds its lock, naming the holders
// as LogFolderHolder records them; a folder that does not exist yet or
// whose lock is free passes. It takes the lock for an instant and changes
// nothing.
func CheckLogFolderFree(path, real string) error {
	lock, err := os.Open(real)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return busy(path, real)
	}
	return nil
}

// busy is the refusal of a folder whose lock another process holds.
func busy(path, real string) error {
	var h Holder
	b, err := os.ReadFile(filepath.Join(real, LogFolderHolder))
	if err != nil || json.Unmarshal(b, &h) != nil || (!alive(h.EmptiesPID) && !alive(h.WriterPID)) {
		return refuse(path, "is being written by another empties process (its lock is taken); wait for it to end")
	}
	who := fmt.Sprintf("empties %s (pid %d, %s", h.Command, h.EmptiesPID, state(h.EmptiesPID))
	if h.WriterPID > 0 {
		who += fmt.Sprintf("; its %s, pid %d, %s", h.Writer, h.WriterPID, state(h.WriterPID))
	}
	who += ", since " + h.Started + ")"
	stop := h.EmptiesPID
	if h.WriterPID > 0 && alive(h.WriterPID) {
		stop = h.WriterPID
	}
	return refuse(path, "is being written by %s; wait for it to end, or stop it (kill -INT %d) and run again", who, stop)
}

// alive reports whether a process pid exists (it may be another's, if the
// pid was reused: the lock decides, this only names).
func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}

func state(pid int) string {
	if alive(pid) {
		return "running"
	}
	return "gone"
}

// Close releases the lock. It may be called more than once.
func (f *LogFolder) Close() error {
	if f == nil || f.lock == nil {
		return nil
	}
	err := f.lock.Close()
	f.lock = nil
	return err
}

// IsLogFolder reports whether dir is a log folder command marked (a real
// folder holding LogFolderMarker).
func IsLogFolder(dir, command string) bool {
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() {
		return false
	}
	b, err := os.ReadFile(filepath.Join(dir, LogFolderMarker))
	if err != nil || !regular(filepath.Join(dir, LogFolderMarker)) {
		return false
	}
	var m logFolderMark
	return json.Unmarshal(b, &m) == nil && m.Format == logFolderFormat && m.Command == command
}
