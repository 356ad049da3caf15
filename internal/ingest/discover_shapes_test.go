package ingest

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"empties/internal/store"
	"empties/internal/testutil"
)

// listing is what a discovery gives for some paths: the files it would
// read, those it skips with why, the links to folders outside the folders
// named it did not follow, and, when it refuses the paths, why.
// Paths are relative to the folder the tree is in (or the working folder
// the paths were named from).
type listing struct {
	Files      []string
	Skipped    []Skipped
	Unfollowed []string
	Refused    string
}

func (l listing) String() string {
	var b strings.Builder
	for _, f := range l.Files {
		fmt.Fprintf(&b, "  read    %q\n", f)
	}
	for _, s := range l.Skipped {
		fmt.Fprintf(&b, "  skipped %q: %s\n", s.Path, s.Reason)
	}
	for _, l := range l.Unfollowed {
		fmt.Fprintf(&b, "  not followed %q\n", l)
	}
	if l.Refused != "" {
		fmt.Fprintf(&b, "  refused: %s\n", l.Refused)
	}
	return b.String()
}

// wire is a listing as a child process prints it: every string hex-encoded,
// since a path is bytes (a name need not be UTF-8) and JSON strings are not.
type wire struct {
	Files      []string    `json:"files"`
	Skipped    [][2]string `json:"skipped"`
	Unfollowed []string    `json:"unfollowed"`
	Refused    string      `json:"refused"`
}

func (w wire) decode(t *testing.T, base string) listing {
	t.Helper()
	unhex := func(s string) string {
		b, err := hex.DecodeString(s)
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		return string(b)
	}
	rel := func(p string) string {
		r, err := filepath.Rel(base, unhex(p))
		if err != nil || strings.HasPrefix(r, "..") {
			return unhex(p) // outside the tree (/dev/null): as it is
		}
		return r
	}
	l := listing{Refused: unhex(w.Refused)}
	for _, f := range w.Files {
		l.Files = append(l.Files, rel(f))
	}
	for _, s := range w.Skipped {
		l.Skipped = append(l.Skipped, Skipped{rel(s[0]), unhex(s[1])})
	}
	for _, u := range w.Unfollowed {
		l.Unfollowed = append(l.Unfollowed, rel(u))
	}
	return l
}

const childEnv = "EMPTIES_DISCOVER_CHILD"

// TestMain runs the test binary as a child that prints Discover's listing of
// the hex-encoded paths in $EMPTIES_DISCOVER_CHILD (goListing runs it so, as
// root, to list without the capabilities that let root read any folder).
func TestMain(m *testing.M) {
	if v := os.Getenv(childEnv); v != "" {
		os.Exit(discoverChild(v))
	}
	os.Exit(m.Run())
}

func discoverChild(arg string) int {
	var hexPaths []string
	if err := json.Unmarshal([]byte(arg), &hexPaths); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	var paths []string
	for _, h := range hexPaths {
		b, err := hex.DecodeString(h)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		paths = append(paths, string(b))
	}
	w := discoverWire(paths)
	if err := json.NewEncoder(os.Stdout).Encode(w); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	return 0
}

// discoverWire is discover's listing of paths, on the wire.
func discoverWire(paths []string) wire {
	files, skipped, unfollowed, err := discover(paths)
	w := wire{Files: hexArgs(files), Skipped: [][2]string{}, Unfollowed: hexArgs(unfollowed)}
	for _, s := range skipped {
		w.Skipped = append(w.Skipped, [2]string{hex.EncodeToString([]byte(s.Path)), hex.EncodeToString([]byte(s.Reason))})
	}
	if err != nil {
		w.Refused = hex.EncodeToString([]byte(err.Error()))
	}
	return w
}

// hexArgs is paths as the children read them.
func hexArgs(paths []string) []string {
	h := make([]string, len(paths))
	for i, p := range paths {
		h[i] = hex.EncodeToString([]byte(p))
	}
	return h
}

// unprivileged is the command prefix under which permissions bite: none
// when they do for this process; as root (or with CAP_DAC_OVERRIDE), where
// a folder of mode 000 reads like any other, setpriv (util-linux) dropping
// the capabilities that let it. Without setpriv the test fails: an
// unreadable folder would go untested.
func unprivileged(t *testing.T) []string {
	t.Helper()
	dir := t.TempDir()
	locked := filepath.Join(dir, "locked")
	if err := os.Mkdir(locked, 0); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(locked, 0o755)
	if _, err := os.ReadDir(locked); err != nil {
		return nil // permissions bite
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Fatalf("this test runs with the privilege to read any folder (uid %d), so a folder of mode 000 is read, and setpriv (util-linux) is not there to list without it: install util-linux, or run the test as another user", os.Geteuid())
	}
	return []string{setpriv, "--bounding-set", "-dac_override,-dac_read_search", "--"}
}

// runChild runs a child listing paths from the folder cwd (and $PWD naming it as
// given, as a shell sets it), within a minute: a listing that opens a FIFO
// waits forever.
func runChild(t *testing.T, cwd string, argv []string, env []string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = cwd
	cmd.Env = append(append(os.Environ(), env...), "PWD="+cwd)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("%s did not end in a minute (did it open a FIFO?)\n%s", argv, stderr.String())
	}
	if err != nil {
		t.Fatalf("%s: %v\n%s\n%s", argv, err, stdout.String(), stderr.String())
	}
	return stdout.Bytes()
}

// goListing is Discover's listing of paths named from the folder cwd, in a
// child under the prefix drop when there is one.
func goListing(t *testing.T, cwd string, drop []string, paths []string) listing {
	t.Helper()
	var w wire
	if drop == nil {
		t.Chdir(cwd)
		w = discoverWire(paths)
	} else {
		arg, err := json.Marshal(hexArgs(paths))
		if err != nil {
			t.Fatal(err)
		}
		out := runChild(t, cwd, append(slices.Clone(drop), os.Args[0], "-test.run=^$"), []string{childEnv + "=" + string(arg)})
		if err := json.Unmarshal(out, &w); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
	}
	return w.decode(t, cwd)
}

// shapesTree makes, in a new folder, a tree of every shape a listing meets,
// and returns the folder. Its short name leaves room for a socket's path.
// Each file's bytes are what its discovery reads of it (a .json's head); the
// .eval files are never opened by discovery.
func shapesTree(t *testing.T) string {
	t.Helper()
	root, err := os.MkdirTemp("", "shapes")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
			if e != nil && e.IsDir() {
				os.Chmod(p, 0o755)
			}
			return nil
		})
		os.RemoveAll(root)
	})
	at := func(rel string) string { return filepath.Join(root, rel) }
	write := func(rel, body string) {
		if err := os.MkdirAll(filepath.Dir(at(rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(at(rel), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(rel, to string) {
		if err := os.Symlink(to, at(rel)); err != nil {
			t.Fatal(err)
		}
	}
	chmod := func(rel string, mode os.FileMode) {
		if err := os.Chmod(at(rel), mode); err != nil {
			t.Fatal(err)
		}
	}
	const log = `{"version": 2, "status": "success", "eval": {}}`
	const eval = "PK\x03\x04"
	// logs, by name and by their first bytes
	write("a.eval", eval)
	write("a.eval.bak", eval)
	write(".dot.eval", eval) // a dot file is read; only dot folders are not
	write("caf\xe9.eval", eval)
	write("2026-01-01T00-00-00-00-00_task_abc.json", log)
	write("bom.json", "\xef\xbb\xbf \n\t{ \"eval\": {}}")
	// .json files that are not logs
	write("notes.json", `{"hello": 1}`)
	write("list.json", `[{"version": 2}]`)
	write("empty.json", "")
	write("odd-bom.json", "\xbb\xef{\"version\": 2}") // not a BOM: bytes of one, out of order
	for _, n := range []string{"logs.json", "listing.json", "eval-set.json"} {
		write(n, log) // inspect_ai's own files: never read, whatever they hold
	}
	write("readme.txt", "hello")
	// folders: read, and left out
	write("sub/b.eval", eval)
	write("sub/deeper/c.json", log)
	write("sub/ds2/y.eval", eval)
	write("sub/ds2/"+store.MarkerFile, "{}")
	write("ds/x.eval", eval)
	write("ds/generation.json", `{"generation": 1}`)
	write("ds/"+store.MarkerFile, "{}")
	write(".buffer/x.eval", eval)
	write(".checkpoints/y.eval", eval)
	write("task.checkpoints/z.eval", eval)
	write("checkpoints/w.eval", eval)
	write("task.shards/0/s.eval", eval)
	write("folder.eval/inner.eval", eval)
	// not regular files
	for _, n := range []string{"fifo.eval", "fifo.json", "fifo.txt"} {
		if err := syscall.Mkfifo(at(n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: at("sock.eval"), Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	l.SetUnlinkOnClose(false)
	l.Close()
	// links
	link("link.eval", "a.eval")
	link("link.json", "2026-01-01T00-00-00-00-00_task_abc.json")
	link("link-notes.json", "notes.json")
	link("fifolink.eval", "fifo.eval")
	link("dev.eval", "/dev/null")
	link("broken.eval", "nowhere")
	link("broken.json", "nowhere")
	link("broken.txt", "nowhere")
	link("loop.eval", "loop2.eval")
	link("loop2.eval", "loop.eval")
	link("d.eval", "sub")
	link("linkdir", "sub")
	// links to folders, not followed: named where the folder is outside the
	// folders named (outdir; sub/up where sub is named alone), not where it
	// is inside (linkdir, sub/up in the tree walked) or the name is left out
	link("outdir", "/")
	link(".outdir", "/")
	link("sub/up", "..")
	link("through.eval", "locked/x.eval")
	// permissions: a folder that cannot be read; one that can be listed but
	// not entered (its files are found, and fail when read); a .json that
	// cannot be opened (taken, for the reader to report) or is empty
	write("locked/x.eval", eval)
	chmod("locked", 0)
	write("noexec/n.eval", eval)
	write("noexec/n.json", log)
	chmod("noexec", 0o644)
	write("secret.json", log)
	chmod("secret.json", 0)
	write("secret-empty.json", "")
	chmod("secret-empty.json", 0)
	return root
}

// The cases every listing is held to: the tree walked, paths named from
// inside it, and paths each refused on their own. want is Discover's
// listing, checked by TestDiscoverEveryShape; the Python package's listing
// is held to the same by TestDiscoveryEqualsPython.
type shapeCase struct {
	name  string
	paths func(root string) []string
	// fromLink names the paths from a link to the tree ($PWD naming the
	// link), not from the tree itself
	fromLink bool
	want     listing
}

const (
	notALogWhy = "a .json file that is not an Inspect log (it does not open like one)"
	emptyWhy   = "an empty .json file, not an Inspect log"
)

var shapeCases = []shapeCase{
	{
		name:  "the tree walked",
		paths: func(root string) []string { return []string{root} },
		want: listing{
			Files: []string{".dot.eval", "2026-01-01T00-00-00-00-00_task_abc.json", "a.eval", "bom.json",
				"caf\xe9.eval", "checkpoints/w.eval", "folder.eval/inner.eval", "link.eval", "link.json",
				"noexec/n.eval", "noexec/n.json", "secret.json", "sub/b.eval", "sub/deeper/c.json", "task.shards/0/s.eval"},
			Skipped: []Skipped{
				{"broken.eval", "a symbolic link that cannot be followed (no such file or directory)"},
				{"broken.json", "a symbolic link that cannot be followed (no such file or directory)"},
				{"d.eval", "not a regular file (a folder)"},
				{"dev.eval", "not a regular file (a character device)"},
				{"empty.json", emptyWhy},
				{"fifo.eval", "not a regular file (a named pipe)"},
				{"fifo.json", "not a regular file (a named pipe)"},
				{"fifolink.eval", "not a regular file (a named pipe)"},
				{"link-notes.json", notALogWhy},
				{"list.json", notALogWhy},
				{"locked", "a folder that cannot be read (permission denied)"},
				{"loop.eval", "a symbolic link that cannot be followed (too many levels of symbolic links)"},
				{"loop2.eval", "a symbolic link that cannot be followed (too many levels of symbolic links)"},
				{"notes.json", notALogWhy},
				{"odd-bom.json", notALogWhy},
				{"secret-empty.json", emptyWhy},
				{"sock.eval", "not a regular file (a socket)"},
				{"through.eval", "a symbolic link that cannot be followed (permission denied)"},
			},
			Unfollowed: []string{"outdir"},
		},
	},
	{
		name: "paths named",
		paths: func(root string) []string {
			return []string{"a.eval", "./a.eval", filepath.Join(root, "sub"), "readme.txt", "a.eval.bak",
				"fifo.eval", "sock.eval", "/dev/null", "d.eval", "linkdir", "link.eval",
				"2026-01-01T00-00-00-00-00_task_abc.json", "logs.json", ".buffer", "task.checkpoints",
				"locked", "secret.json", "sub/b.eval"}
		},
		want: listing{
			Files: []string{".buffer/x.eval", "2026-01-01T00-00-00-00-00_task_abc.json", "a.eval", "a.eval.bak",
				"d.eval/b.eval", "d.eval/deeper/c.json", "link.eval", "linkdir/b.eval", "linkdir/deeper/c.json",
				"logs.json", "readme.txt", "secret.json", "sub/b.eval", "sub/deeper/c.json", "task.checkpoints/z.eval"},
			Skipped: []Skipped{
				{"/dev/null", "not a regular file (a character device)"},
				{"fifo.eval", "not a regular file (a named pipe)"},
				{"locked", "a folder that cannot be read (permission denied)"},
				{"sock.eval", "not a regular file (a socket)"},
			},
			Unfollowed: []string{"d.eval/up", "linkdir/up", "sub/up"},
		},
	},
	{
		// relative paths are made absolute from the working folder as the
		// shell names it ($PWD), a link to the tree, not the folder it
		// resolves to: the paths the logs table keeps are the user's
		name:     "paths named from a link to the folder",
		paths:    func(string) []string { return []string{"a.eval", "sub", "locked"} },
		fromLink: true,
		want: listing{
			Files:      []string{"a.eval", "sub/b.eval", "sub/deeper/c.json"},
			Skipped:    []Skipped{{"locked", "a folder that cannot be read (permission denied)"}},
			Unfollowed: []string{"sub/up"},
		},
	},
	refusal("a .json named that is not a log", []string{"a.eval", "notes.json"}, "notes.json: "+notALogWhy),
	refusal("an empty .json named", []string{"empty.json"}, "empty.json: "+emptyWhy),
	refusal("a link to a .json that is not a log", []string{"link-notes.json"}, "link-notes.json: "+notALogWhy),
	refusal("a dataset named", []string{"sub", "ds"}, "ds is an empties dataset, not a folder of logs"),
	refusal("a path missing", []string{"nope.eval"}, "nope.eval: no such file or folder"),
	refusal("a broken link named", []string{"broken.eval"}, "broken.eval: no such file or folder"),
	refusal("a link loop named", []string{"loop.eval"}, "loop.eval: cannot be read (too many levels of symbolic links)"),
	refusal("a path through a file", []string{"a.eval/x.eval"}, "a.eval/x.eval: cannot be read (not a directory)"),
}

func refusal(name string, paths []string, why string) shapeCase {
	return shapeCase{name: name, paths: func(string) []string { return paths }, want: listing{Refused: why}}
}

// refusedAs is the part of a refusal both languages word the same: without
// the command's name before it and its hint after the ";" (ingest's names
// LOGS, python -m empties classify's PATH).
func refusedAs(msg string) string {
	msg = strings.TrimPrefix(msg, "ingest: ")
	msg, _, _ = strings.Cut(msg, ";")
	return msg
}

// Discovery on a tree of every shape: the files it reads, those it skips
// and why (every one named), and the paths it refuses. The cases a user's
// folders hold: dot and .checkpoints folders, empties datasets, FIFOs and
// sockets (never opened), links (to files, folders, nothing, themselves, a
// device, past a locked folder), folders that cannot be read, .json files
// that are not logs, names that are not UTF-8; and paths named directly.
func TestDiscoverEveryShape(t *testing.T) {
	eachShape(t, func(t *testing.T, c shapeCase, cwd string, drop, paths []string) {
		got := goListing(t, cwd, drop, paths)
		got.Refused = refusedAs(got.Refused)
		if !equalListings(got, c.want) {
			t.Errorf("Discover:\n%swant:\n%s", got, c.want)
		}
	})
}

// eachShape runs run for each of shapeCases on a tree of every shape: from
// the folder the case lists from (the tree, or a link to it), with the
// privileges to drop and the paths the case names.
func eachShape(t *testing.T, run func(t *testing.T, c shapeCase, cwd string, drop, paths []string)) {
	root := shapesTree(t)
	via := linkTo(t, root)
	drop := unprivileged(t)
	for _, c := range shapeCases {
		t.Run(c.name, func(t *testing.T) {
			cwd := root
			if c.fromLink {
				cwd = via
			}
			run(t, c, cwd, drop, c.paths(root))
		})
	}
}

// The Python package's listing (empties.discover.list_logs, which python
// -m empties classify reads logs by) is Discover's on every shape: the same
// files read, the same files skipped with the same words, the same paths
// refused. A listing that opens a FIFO fails it (in a minute) rather than
// hanging. As root, both list without the privilege to read any folder.
func TestDiscoveryEqualsPython(t *testing.T) {
	eachShape(t, func(t *testing.T, c shapeCase, cwd string, drop, paths []string) {
		goes, py := goListing(t, cwd, drop, paths), pyListing(t, cwd, drop, paths)
		goes.Refused, py.Refused = refusedAs(goes.Refused), refusedAs(py.Refused)
		if !equalListings(goes, py) {
			t.Errorf("Go's Discover:\n%sPython's list_logs:\n%s", goes, py)
		}
		if !equalListings(py, c.want) {
			t.Errorf("Python's list_logs:\n%swant:\n%s", py, c.want)
		}
	})
}

// linkTo makes a link to dir, in a folder of its own.
func linkTo(t *testing.T, dir string) string {
	t.Helper()
	via := filepath.Join(t.TempDir(), "via")
	if err := os.Symlink(dir, via); err != nil {
		t.Fatal(err)
	}
	return via
}

// pyListing is the Python package's listing of paths named from the folder
// cwd: this checkout's python/src, in the project's venv.
func pyListing(t *testing.T, cwd string, drop []string, paths []string) listing {
	t.Helper()
	const script = `
import json, os, sys
from empties.discover import ListingError, list_logs_and_links
h = lambda s: os.fsencode(s).hex()
paths = [os.fsdecode(bytes.fromhex(p)) for p in json.loads(sys.argv[1])]
try:
    (files, skipped), links = list_logs_and_links(paths)
    out = {"files": [h(f) for f in files], "skipped": [[h(p), h(w)] for p, w in skipped], "unfollowed": [h(l) for l in links], "refused": ""}
except ListingError as e:
    out = {"files": [], "skipped": [], "unfollowed": [], "refused": h(str(e))}
print(json.dumps(out))
`
	py, env := testutil.Python(t)
	arg, err := json.Marshal(hexArgs(paths))
	if err != nil {
		t.Fatal(err)
	}
	out := runChild(t, cwd, append(slices.Clone(drop), py, "-c", script, string(arg)), env)
	var w wire
	if err := json.Unmarshal(out, &w); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return w.decode(t, cwd)
}

func equalListings(a, b listing) bool {
	return slices.Equal(a.Files, b.Files) && slices.Equal(a.Skipped, b.Skipped) && slices.Equal(a.Unfollowed, b.Unfollowed) && a.Refused == b.Refused
}
