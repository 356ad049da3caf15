package errtext

import (
	"strings"
	"testing"
)

// A message on one line with \n escapes reads as its lines, its first lines
// in view and the rest folded; a short one stays whole; a message with real
// line breaks keeps its backslashes.
func TestLayout(t *testing.T) {
	tb := `RuntimeError('Traceback (most recent call last):\n  File "x.py", line 1, in <module>\n    f()\n  File "x.py", line 2, in f\n    raise ValueError(\'boom\')\nValueError: boom')`
	l := Layout(tb)
	if !l.Mono || l.Lines != 6 || strings.Contains(l.Head, `\n`) || !strings.HasPrefix(l.Head, "RuntimeError('Traceback (most recent call last):\n  File") {
		t.Errorf("traceback: %+v", l)
	}
	if strings.Count(l.Head, "\n") != headLines-1 || !strings.HasPrefix(l.Rest, "    raise ValueError") {
		t.Errorf("head %q, rest %q", l.Head, l.Rest)
	}
	if s := Layout("Connection reset by peer"); s.Head != "Connection reset by peer" || s.Rest != "" || s.Mono {
		t.Errorf("one line: %+v", s)
	}
	long := strings.Repeat("x", 6000)
	if s := Layout(long); len([]rune(s.Head)) != headChars || len(s.Head)+len(s.Rest) != 6000 {
		t.Errorf("a 6,000-character line: head %d, rest %d", len(s.Head), len(s.Rest))
	}
	kept := "a\nb\nc path C:\\new"
	if s := Layout(kept); s.Head != kept {
		t.Errorf("real lines: %q", s.Head)
	}
	if got := FirstLine(tb); got != "RuntimeError('Traceback (most recent call last):" {
		t.Errorf("first line %q", got)
	}
}
