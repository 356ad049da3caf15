package report

import (
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// The HTML page is index.md rendered: the same text, tables and links, with
// every plot inline as SVG, so one file opens anywhere with no network. The
// renderer knows only the Markdown the index writes (headings, paragraphs,
// lists, pipe tables, images of plots/, links and code spans); what it does
// not know it shows as text. The Content-Security-Policy forbids every load
// (scripts, styles from files, images, fonts), so a page that renders here
// needs nothing else.

var (
	imageRe = regexp.MustCompile(`^!\[([^\]]*)\]\(plots/([a-z0-9_]+)\.png\)$`)
	linkRe  = regexp.MustCompile(`\[([^\]]+)\]\(([^)\s]+)\)`)
	slugRe  = regexp.MustCompile(`[^a-z0-9]+`)
)

const pageStyle = `body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:80rem;padding:0 1rem;color:#222;line-height:1.4}
table{border-collapse:collapse;margin:0.5rem 0 1rem;font-size:0.85rem;display:block;overflow-x:auto}
th,td{border:1px solid #ccc;padding:0.2rem 0.4rem;text-align:left;vertical-align:top}
th{background:#f2f2f2}
code{background:#f4f4f4;padding:0 0.2rem;font-size:0.85em;word-break:break-all}
figure{margin:0.5rem 0 1rem}
svg.plot{max-width:100%;height:auto}
li{margin-bottom:0.4rem}`

// writeHTML renders md (the index) as DIR/index.html.
func (b *builder) writeHTML(md string) error {
	page, err := markdownToHTML(md, func(name string) (string, error) {
		data, err := os.ReadFile(filepath.Join(b.dir, "plots", name+".svg"))
		if err != nil {
			return "", err
		}
		svg := string(data)
		i := strings.Index(svg, "<svg")
		if i < 0 {
			return "", fmt.Errorf("plots/%s.svg: no <svg> element", name)
		}
		return `<svg class="plot" role="img" data-plot="` + name + `"` + svg[i+len("<svg"):], nil
	})
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(b.dir, "index.html"), []byte(page), 0o644)
}

// markdownToHTML renders the index's Markdown; svg returns a plot's inline
// SVG by name.
func markdownToHTML(md string, svg func(name string) (string, error)) (string, error) {
	lines := strings.Split(md, "\n")
	var body strings.Builder
	title := "empties report"
	open := false // inside a <section> of an h2
	for i := 0; i < len(lines); {
		line := lines[i]
		switch {
		case strings.TrimSpace(line) == "":
			i++
		case strings.HasPrefix(line, "#"):
			level := len(line) - len(strings.TrimLeft(line, "#"))
			text := strings.TrimSpace(line[level:])
			if level == 1 {
				title = text
			}
			if level == 2 {
				if open {
					body.WriteString("</section>\n")
				}
				fmt.Fprintf(&body, "<section id=\"%s\">\n", slug(text))
				open = true
			}
			fmt.Fprintf(&body, "<h%d>%s</h%d>\n", level, inline(text), level)
			i++
		case strings.HasPrefix(line, "|"):
			j := i
			for j < len(lines) && strings.HasPrefix(lines[j], "|") {
				j++
			}
			body.WriteString(table(lines[i:j]))
			i = j
		case strings.HasPrefix(line, "- "):
			body.WriteString("<ul>\n")
			for i < len(lines) && (strings.HasPrefix(lines[i], "- ") || strings.HasPrefix(lines[i], "  ") && strings.TrimSpace(lines[i]) != "") {
				item := strings.TrimPrefix(lines[i], "- ")
				i++
				for i < len(lines) && strings.HasPrefix(lines[i], "  ") && strings.TrimSpace(lines[i]) != "" {
					item += "<br>\n" + inline(strings.TrimSpace(lines[i]))
					i++
				}
				if k := strings.Index(item, "<br>\n"); k >= 0 {
					item = inline(item[:k]) + item[k:]
				} else {
					item = inline(item)
				}
				fmt.Fprintf(&body, "<li>%s</li>\n", item)
			}
			body.WriteString("</ul>\n")
		case imageRe.MatchString(line):
			m := imageRe.FindStringSubmatch(line)
			s, err := svg(m[2])
			if err != nil {
				return "", err
			}
			fmt.Fprintf(&body, "<figure>\n%s\n<figcaption>%s</figcaption>\n</figure>\n", s, html.EscapeString(m[1]))
			i++
		default:
			var para []string
			for i < len(lines) && strings.TrimSpace(lines[i]) != "" && !strings.HasPrefix(lines[i], "#") &&
				!strings.HasPrefix(lines[i], "|") && !strings.HasPrefix(lines[i], "- ") && !imageRe.MatchString(lines[i]) {
				para = append(para, inline(lines[i]))
				i++
			}
			fmt.Fprintf(&body, "<p>%s</p>\n", strings.Join(para, "\n"))
		}
	}
	if open {
		body.WriteString("</section>\n")
	}
	return fmt.Sprintf(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>%s</title>
<style>
%s
</style>
</head>
<body>
%s</body>
</html>
`, html.EscapeString(title), pageStyle, body.String()), nil
}

func slug(s string) string {
	return strings.Trim(slugRe.ReplaceAllString(strings.ToLower(s), "-"), "-")
}

// table renders a pipe table: a header row, the --- row, body rows.
func table(rows []string) string {
	var b strings.Builder
	b.WriteString("<table>\n")
	for i, r := range rows {
		if i == 1 && strings.Trim(r, "|-: ") == "" {
			continue
		}
		tag := "td"
		if i == 0 {
			tag = "th"
		}
		b.WriteString("<tr>")
		for _, c := range cells(r) {
			fmt.Fprintf(&b, "<%s>%s</%s>", tag, inline(c), tag)
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</table>\n")
	return b.String()
}

// cells splits a pipe-table row at the pipes that are not escaped.
func cells(row string) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimPrefix(row, "|")
	row = strings.TrimSuffix(row, "|")
	var out []string
	var cur strings.Builder
	for i := 0; i < len(row); i++ {
		switch {
		case row[i] == '\\' && i+1 < len(row) && row[i+1] == '|':
			cur.WriteByte('|')
			i++
		case row[i] == '|':
			out = append(out, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(row[i])
		}
	}
	return append(out, strings.TrimSpace(cur.String()))
}

// inline renders code spans and links; everything else is escaped text.
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
		b.WriteString(linkRe.ReplaceAllString(html.EscapeString(p), `<a href="$2">$1</a>`))
	}
	return b.String()
}
