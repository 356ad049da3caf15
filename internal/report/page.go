package report

import (
	"fmt"
	"html"
	"regexp"
	"strings"
	"unicode"
)

// The page is built once as a list of blocks and rendered twice: as
// index.md (Markdown, for a repository or a terminal) and as index.html
// (one self-contained file for a browser: sortable tables, folded fields,
// charts). Both carry the same text, numbers and tables. Inline text is a
// small Markdown subset: `code` spans and [links](target).

// block is one piece of the page.
type block interface {
	md(b *strings.Builder)
	html(b *strings.Builder)
}

// page is the whole report.
type page struct {
	title  string
	blocks []block
}

func (p *page) add(bs ...block) { p.blocks = append(p.blocks, bs...) }

func (p *page) markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", p.title)
	for _, bl := range p.blocks {
		bl.md(&b)
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// heading opens a section (level 2) or a subsection (3, 4).
type heading struct {
	level int
	id    string
	text  string
}

func (h heading) md(b *strings.Builder) {
	fmt.Fprintf(b, "%s %s\n\n", strings.Repeat("#", h.level), h.text)
}

func (h heading) html(b *strings.Builder) {
	fmt.Fprintf(b, "<h%d id=\"%s\">%s</h%d>\n", h.level, html.EscapeString(h.id), inline(h.text), h.level)
}

// para is a paragraph of inline text; class styles it in HTML.
type para struct {
	text  string
	class string
}

func (p para) md(b *strings.Builder) { b.WriteString(p.text + "\n\n") }

func (p para) html(b *strings.Builder) {
	if p.class != "" {
		fmt.Fprintf(b, "<p class=\"%s\">%s</p>\n", p.class, inline(p.text))
		return
	}
	fmt.Fprintf(b, "<p>%s</p>\n", inline(p.text))
}

// list is a bulleted list of inline texts.
type list []string

func (l list) md(b *strings.Builder) {
	for _, it := range l {
		b.WriteString("- " + it + "\n")
	}
	b.WriteString("\n")
}

func (l list) html(b *strings.Builder) {
	b.WriteString("<ul>\n")
	for _, it := range l {
		fmt.Fprintf(b, "<li>%s</li>\n", inline(it))
	}
	b.WriteString("</ul>\n")
}

// section wraps blocks in an HTML <section> (Markdown: the blocks).
type section struct {
	id     string
	class  string
	blocks []block
}

func (s section) md(b *strings.Builder) {
	for _, bl := range s.blocks {
		bl.md(b)
	}
}

func (s section) html(b *strings.Builder) {
	fmt.Fprintf(b, "<section id=\"%s\"", html.EscapeString(s.id))
	if s.class != "" {
		fmt.Fprintf(b, " class=\"%s\"", s.class)
	}
	b.WriteString(">\n")
	for _, bl := range s.blocks {
		bl.html(b)
	}
	b.WriteString("</section>\n")
}

// folded shows its blocks behind a summary line in HTML (<details>); in
// Markdown the summary is a bold line above them.
type folded struct {
	summary string
	open    bool
	blocks  []block
}

func (f folded) md(b *strings.Builder) {
	fmt.Fprintf(b, "**%s**\n\n", f.summary)
	for _, bl := range f.blocks {
		bl.md(b)
	}
}

func (f folded) html(b *strings.Builder) {
	b.WriteString("<details")
	if f.open {
		b.WriteString(" open")
	}
	fmt.Fprintf(b, "><summary>%s</summary>\n", inline(f.summary))
	for _, bl := range f.blocks {
		bl.html(b)
	}
	b.WriteString("</details>\n")
}

// rawHTML is HTML with a Markdown rendering of its own.
type rawHTML struct {
	markdown, markup string
}

func (r rawHTML) md(b *strings.Builder)   { b.WriteString(r.markdown) }
func (r rawHTML) html(b *strings.Builder) { b.WriteString(r.markup) }

var (
	linkRe = regexp.MustCompile(`\[([^\]]+)\]\(([^)\s]+)\)`)
	boldRe = regexp.MustCompile(`\*\*([^*]+)\*\*`)
	slugRe = regexp.MustCompile(`[^a-z0-9]+`)
)

func slug(s string) string {
	return strings.Trim(slugRe.ReplaceAllString(strings.ToLower(s), "-"), "-")
}

// anchor is a heading's id as GitHub makes it from the heading's text
// (lower case; letters, digits, _ and - kept, spaces made -, the rest
// dropped), so the page's links work in index.html and in index.md alike.
func anchor(text string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case unicode.IsLetter(r) || unicode.IsNumber(r) || r == '_' || r == '-':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// inline renders code spans, links and **bold**; everything else is
// escaped text.
func inline(s string) string {
	parts := strings.Split(s, "`")
	var b strings.Builder
	for i, p := range parts {
		if i%2 == 1 && i < len(parts)-1 {
			b.WriteString("<code>" + html.EscapeString(p) + "</code>")
			continue
		}
		if i%2 == 1 {
			b.WriteString("`")
		}
		b.WriteString(boldRe.ReplaceAllString(linkRe.ReplaceAllString(html.EscapeString(p), `<a href="$2">$1</a>`), `<strong>$1</strong>`))
	}
	return b.String()
}

// code quotes s as a Markdown code span that survives any backtick in it.
func code(s string) string {
	s = strings.ReplaceAll(s, "`", "'")
	s = strings.ReplaceAll(s, "\n", " ")
	if strings.TrimSpace(s) == "" {
		return `""`
	}
	return "`" + s + "`"
}
