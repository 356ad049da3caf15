package report

import (
	"database/sql"
	"fmt"
	"html"
	"math"
	"sort"
	"strings"

	"empties/internal/duck"
	"empties/schema"
)

// A table as people read it: each column headed by its declared label and
// its values in its declared format (columns.go), intervals as [a, b] in
// their estimate's cell, the columns that carry no information in this
// dataset left out (named in a note), rows sorted by the rate that matters.
// The same view renders as a Markdown table and as an HTML table whose
// columns sort on a click and whose rows a filter box narrows (page.js); a
// table wider than the page scrolls in its own box, its first column
// staying in view. The CSV and Parquet files keep every column at full
// precision.

// column is one shown column.
type column struct {
	label  string
	format string // schema.Format*
	src    int    // index of the source column (an interval of its own: its low end)
	lo, hi int    // the interval shown after the value, or of its own: its ends (-1: none)
	pair   string // an interval of its own: the format of its estimate
}

// interval reports whether the column is an interval of its own.
func (c column) interval() bool { return c.format == schema.FormatLow }

// numeric reports whether the column reads as a number (right-aligned).
func (c column) numeric() bool {
	switch c.format {
	case schema.FormatCount, schema.FormatNumber, schema.FormatPercent, schema.FormatPP, schema.FormatLow:
		return true
	}
	return false
}

// view is a table prepared for reading.
type view struct {
	id      string // HTML id, unique on the page
	cols    []column
	rows    [][]any
	notes   []string // what every row shares, rows left out
	csv     string   // tables/<name>: links to its files, "" for none
	filter  bool     // a filter box above the table (HTML)
	caption string
}

// scanRows reads every row of a query's result.
func scanRows(rows *sql.Rows) ([]string, [][]any, error) {
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, nil, err
	}
	out, err := duck.ScanRows(rows)
	if err != nil {
		return nil, nil, err
	}
	return cols, out, nil
}

// viewOptions adjust the view of a table.
type viewOptions struct {
	keepConstant bool            // show columns whose value is the same in every row
	sortBy       string          // source column to sort by, descending; "" for the first share
	keepOrder    bool            // keep the query's order
	omit         map[string]bool // source columns the page shows elsewhere (a decision's finding, above its table)
	// shown is the query file whose rows a table's view shows, when they are
	// not its files' (decisions: a share as a share, D3's points as points);
	// "" for the same rows.
	shown string
}

// autoView lays out a query result by its columns' declarations: columns
// shown never (and study-only columns outside a study) left out, each
// interval end pair in its estimate's cell where the estimate is shown (else
// a column of its own), constant columns of tables of two or more rows named
// in a note instead of repeated, rows sorted by the first share, highest
// first.
func autoView(id string, desc []schema.Column, rows [][]any, study bool, o viewOptions) *view {
	v := &view{id: id, rows: rows}
	index := map[string]int{}
	for i, c := range desc {
		index[c.Name] = i
	}
	hidden := func(c schema.Column) bool {
		return c.Show == schema.ShowNever || (c.Show == schema.ShowStudy && !study)
	}
	var all []column
	for i, d := range desc {
		if hidden(d) || d.Format == schema.FormatHigh || o.omit[d.Name] {
			continue
		}
		if d.Format != schema.FormatLow {
			all = append(all, column{label: d.Label, format: d.Format, src: i, lo: -1, hi: -1})
			continue
		}
		hi := -1
		for j, e := range desc {
			if e.Format == schema.FormatHigh && e.Of == d.Of {
				hi = j
			}
		}
		if hi < 0 {
			continue // an end without its other end is in the files only
		}
		est, ok := index[d.Of]
		if ok && !hidden(desc[est]) {
			continue // shown in its estimate's cell, below
		}
		pair := schema.FormatNumber
		if ok {
			pair = desc[est].Format
		}
		all = append(all, column{label: strings.TrimSuffix(d.Label, ", low end"), format: schema.FormatLow, src: i, lo: i, hi: hi, pair: pair})
	}
	for k := range all {
		c := &all[k]
		if c.interval() {
			continue
		}
		for i, d := range desc {
			if d.Format == schema.FormatLow && d.Of == desc[c.src].Name {
				for j, e := range desc {
					if e.Format == schema.FormatHigh && e.Of == d.Of {
						c.lo, c.hi = i, j
					}
				}
			}
		}
	}
	var constants []string
	for _, c := range all {
		if isConstant(c, rows, o) {
			constants = append(constants, fmt.Sprintf("%s %s", c.label, orDash(cellText(c, rows[0]))))
			continue
		}
		v.cols = append(v.cols, c)
	}
	if len(constants) > 0 {
		v.notes = append(v.notes, "Every row has "+strings.Join(constants, ", ")+".")
	}
	if !o.keepOrder {
		key := -1
		if o.sortBy != "" {
			key = index[o.sortBy]
		} else {
			for _, c := range v.cols {
				if c.format == schema.FormatPercent {
					key = c.src
					break
				}
			}
		}
		if key >= 0 {
			sort.SliceStable(v.rows, func(a, b int) bool {
				x, okx := asFloat(v.rows[a][key])
				y, oky := asFloat(v.rows[b][key])
				if !okx || !oky {
					return okx && !oky
				}
				return x > y
			})
		}
	}
	return v
}

// isConstant reports whether a column reads the same in every row of a
// table of two or more rows.
func isConstant(c column, rows [][]any, o viewOptions) bool {
	if o.keepConstant || len(rows) < 2 {
		return false
	}
	first := cellText(c, rows[0])
	for _, r := range rows[1:] {
		if cellText(c, r) != first {
			return false
		}
	}
	return true
}

func indexOf(cols []string, name string) int {
	for i, c := range cols {
		if c == name {
			return i
		}
	}
	return -1
}

func orDash(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// cellText is a cell as read: its value, and its interval after it.
func cellText(c column, r []any) string {
	s := valueText(c, r)
	if ci := ciText(c, r); ci != "" {
		s += " " + ci
	}
	return s
}

// ciText is the interval shown after a value, "" for none.
func ciText(c column, r []any) string {
	if c.lo < 0 || c.interval() || r[c.lo] == nil || r[c.hi] == nil {
		return ""
	}
	return intervalText(c.format, r[c.lo], r[c.hi])
}

// intervalText renders [low, high] in the estimate's format.
func intervalText(format string, lo, hi any) string {
	return interval(formatValue(format, lo, false), formatValue(format, hi, false))
}

func valueText(c column, r []any) string {
	if c.interval() {
		if r[c.lo] == nil || r[c.hi] == nil {
			return ""
		}
		return intervalText(c.pair, r[c.lo], r[c.hi])
	}
	return formatValue(c.format, r[c.src], true)
}

// formatValue renders one value in a format; signed puts a + before a
// positive difference in points.
func formatValue(format string, v any, signed bool) string {
	if v == nil {
		return ""
	}
	switch format {
	case schema.FormatPercent:
		if x, ok := asFloat(v); ok {
			return pct(x)
		}
	case schema.FormatCount:
		if n, ok := asInt(v); ok {
			return count(n)
		}
		if x, ok := asFloat(v); ok {
			return number(x)
		}
	case schema.FormatNumber:
		if x, ok := asFloat(v); ok {
			return number(x)
		}
	case schema.FormatPP:
		if x, ok := asFloat(v); ok {
			if signed {
				return ppSigned(x)
			}
			return pp(x)
		}
	case schema.FormatBoolean:
		if b, ok := v.(bool); ok {
			if b {
				return "yes"
			}
			return "no"
		}
	}
	return text(v)
}

// sortKey is what a column sorts by in the HTML table: the number, the
// low end of an interval, or the text.
func sortKey(c column, r []any) (string, bool) {
	if !c.numeric() {
		return "", false
	}
	x, ok := asFloat(r[c.src])
	if !ok {
		return "", false
	}
	if math.IsNaN(x) {
		return "", true
	}
	return fmt.Sprint(x), true
}

// mdLimit is the longest cell of a Markdown table on the index page; the
// table's own page (tables/<name>.md) and its files keep every character.
const mdLimit = 160

func (v *view) md(b *strings.Builder) {
	if v.caption != "" {
		b.WriteString(v.caption + "\n\n")
	}
	for _, n := range v.notes {
		b.WriteString(n + "\n\n")
	}
	if len(v.rows) == 0 {
		b.WriteString("(no rows)\n\n")
		return
	}
	b.WriteString(v.markdownRows(mdLimit))
	if v.csv != "" {
		fmt.Fprintf(b, "\nFiles: [%[1]s.csv](tables/%[1]s.csv), [%[1]s.parquet](tables/%[1]s.parquet), [%[1]s.md](tables/%[1]s.md).\n", v.csv)
	}
	b.WriteString("\n")
}

// markdownRows is the pipe table, cells cut at limit characters (0: none).
func (v *view) markdownRows(limit int) string {
	var b strings.Builder
	labels := make([]string, len(v.cols))
	for i, c := range v.cols {
		labels[i] = mdCell(c.label, 0)
	}
	b.WriteString("| " + strings.Join(labels, " | ") + " |\n|")
	for _, c := range v.cols {
		if c.numeric() {
			b.WriteString("--:|")
		} else {
			b.WriteString("---|")
		}
	}
	b.WriteString("\n")
	for _, r := range v.rows {
		cells := make([]string, len(v.cols))
		for i, c := range v.cols {
			cells[i] = mdCell(cellText(c, r), limit)
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	return b.String()
}

// identifierPieces splits a word of a name after each slash and after each
// dot between two ASCII letters.
func identifierPieces(word string) []string {
	var parts []string
	start := 0
	for i := 0; i < len(word); i++ {
		if word[i] == '/' || word[i] == '.' && i > 0 && i+1 < len(word) && isLetter(word[i-1]) && isLetter(word[i+1]) {
			parts = append(parts, word[start:i+1])
			start = i + 1
		}
	}
	return append(parts, word[start:])
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func mdCell(s string, limit int) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	s = strings.ReplaceAll(s, "\r", "")
	s = strings.ReplaceAll(s, "\n", " ")
	if limit > 0 && len([]rune(s)) > limit {
		s = string([]rune(s)[:limit-1]) + "…"
	}
	return s
}

// foldAt is the length past which a text cell is folded in HTML.
const foldAt = 240

func (v *view) html(b *strings.Builder) {
	if v.caption != "" {
		fmt.Fprintf(b, "<p>%s</p>\n", inline(v.caption))
	}
	for _, n := range v.notes {
		fmt.Fprintf(b, "<p class=\"note\">%s</p>\n", inline(n))
	}
	if len(v.rows) == 0 {
		b.WriteString("<p class=\"note\">(no rows)</p>\n")
		return
	}
	fmt.Fprintf(b, "<div class=\"table\" id=\"%s\">\n", html.EscapeString(v.id))
	if v.filter || len(v.rows) > 10 {
		fmt.Fprintf(b, "<input type=\"search\" class=\"filter\" placeholder=\"filter %s\" aria-label=\"filter rows\">\n", plural(int64(len(v.rows)), "row", "rows"))
	}
	// The table takes the width its words need: headers break only between
	// words, identifiers only after a slash or a space, numbers and
	// intervals never; a table wider than the page scrolls in this box.
	b.WriteString("<div class=\"scroll\">\n<table class=\"data\">\n<thead><tr>")
	for i, c := range v.cols {
		cls := ""
		if c.numeric() {
			cls = " class=\"num\""
		}
		fmt.Fprintf(b, "<th%s data-col=\"%d\" title=\"sort\">%s</th>", cls, i, identifierHTML(c.label))
	}
	b.WriteString("</tr></thead>\n<tbody>\n")
	for _, r := range v.rows {
		b.WriteString("<tr>")
		for _, c := range v.cols {
			s := cellText(c, r)
			attr := ""
			if k, ok := sortKey(c, r); ok {
				attr = fmt.Sprintf(" data-v=\"%s\"", k)
			}
			switch {
			case c.numeric():
				if ci := ciText(c, r); ci != "" {
					fmt.Fprintf(b, "<td%s class=\"num\"><span class=\"v\">%s</span> <span class=\"ci\">%s</span></td>", attr,
						html.EscapeString(valueText(c, r)), html.EscapeString(ci))
				} else {
					fmt.Fprintf(b, "<td%s class=\"num\">%s</td>", attr, html.EscapeString(s))
				}
			case c.format == schema.FormatText && len(s) > foldAt:
				fmt.Fprintf(b, "<td%s class=\"text\"><details><summary>%s…</summary><div class=\"long\">%s</div></details></td>",
					attr, html.EscapeString(string([]rune(s)[:120])), html.EscapeString(s))
			case c.format == schema.FormatText:
				fmt.Fprintf(b, "<td%s class=\"text\"><div>%s</div></td>", attr, html.EscapeString(s))
			default:
				fmt.Fprintf(b, "<td%s>%s</td>", attr, identifierHTML(s))
			}
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody>\n</table>\n</div>\n")
	if v.csv != "" {
		fmt.Fprintf(b, "<p class=\"files\">%s · download <a href=\"tables/%[2]s.csv\">CSV</a> · <a href=\"tables/%[2]s.parquet\">Parquet</a></p>\n", plural(int64(len(v.rows)), "row", "rows"), html.EscapeString(v.csv))
	}
	b.WriteString("</div>\n")
}

// identifierHTML escapes a name so that it breaks only between its words,
// after a slash and after a dot between two letters (a provider's
// namespace), never inside a word: inspect_evals/gpqa_diamond may wrap as
// inspect_evals/ | gpqa_diamond and
// bedrock/us.anthropic.claude-sonnet-4-20250514-v1:0 as bedrock/ | us. |
// anthropic. | claude-sonnet-4-20250514-v1:0, never at underscores,
// hyphens or a version's dot (gpt-3.5-turbo). Each piece is a span the
// stylesheet keeps on one line.
func identifierHTML(s string) string {
	if s == "" {
		return ""
	}
	var b strings.Builder
	for i, word := range strings.Split(s, " ") {
		if i > 0 {
			b.WriteString(" ")
		}
		if word == "" {
			continue
		}
		parts := identifierPieces(word)
		for j, p := range parts {
			if p == "" {
				continue
			}
			if j > 0 {
				b.WriteString("<wbr>")
			}
			b.WriteString("<span class=\"w\">" + html.EscapeString(p) + "</span>")
		}
	}
	return b.String()
}
