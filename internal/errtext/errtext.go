// Package errtext lays out an error message for a page (the report's
// examples, empties serve's sample and replies pages): its first lines in
// view and the rest behind a toggle, a message written on one line with
// literal \n escapes (a Python repr, a provider's JSON body) shown as the
// lines it holds, a traceback as monospace lines. The tables keep the
// message exactly as the log holds it; only its display changes.
package errtext

import (
	"strings"
	"unicode/utf8"
)

// Shown is an error message laid out: Head is in view, Rest folded.
type Shown struct {
	Head, Rest string
	Lines      int  // lines of the whole message, escapes rendered
	Mono       bool // several lines (a traceback, a body): monospace, as written
}

// headLines and headChars bound what is in view before the toggle.
const headLines, headChars = 4, 480

// escapes renders the escapes a message written on one line carries.
var escapes = strings.NewReplacer(`\r\n`, "\n", `\n`, "\n", `\t`, "\t")

// Text is the whole message as a page shows it: a message of (almost) one
// line with its escapes rendered as line breaks; one that already holds
// line breaks shows its backslashes as written.
func Text(s string) string {
	s = strings.TrimRight(s, "\n")
	if strings.Count(s, "\n") < 2 && strings.Contains(s, `\n`) {
		s = escapes.Replace(s)
	}
	return s
}

// Layout lays out an error message.
func Layout(s string) Shown {
	s = Text(s)
	lines := strings.Split(s, "\n")
	out := Shown{Lines: len(lines), Mono: len(lines) > 1}
	head := strings.Join(lines[:min(len(lines), headLines)], "\n")
	if utf8.RuneCountInString(head) > headChars {
		cut := 0
		for i := range head {
			if cut == headChars {
				head = head[:i]
				break
			}
			cut++
		}
	}
	out.Head, out.Rest = head, s[len(head):]
	out.Rest = strings.TrimPrefix(out.Rest, "\n")
	if strings.TrimSpace(out.Rest) == "" {
		out.Head, out.Rest = s, ""
	}
	return out
}

// FirstLine is the message's first line, escapes rendered: what a list of
// replies shows of it.
func FirstLine(s string) string {
	l := Layout(s)
	first, _, _ := strings.Cut(l.Head, "\n")
	return first
}
