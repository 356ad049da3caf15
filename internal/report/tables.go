package report

import (
	"database/sql"
	"fmt"
	"html"
	"math"
	"regexp"
	"sort"
	"strings"

	"empties/internal/duck"
)

// A table as people read it: formatted numbers, intervals as [a, b], the
// columns that carry no information in this dataset left out (named in a
// note), rows sorted by the rate that matters. The same view renders as a
// Markdown table and as an HTML table whose columns sort on a click and whose
// rows a filter box narrows (page.js). The CSV and Parquet files keep every
// column at full precision.

// format is how a column's values read.
type format int

const (
	fText format = iota
	fCount
	fNumber
	fPct
	fInterval // two source columns: low, high, in the format of pair
	fBool
)

// column is one shown column.
type column struct {
	label  string
	src    int    // index of the source column (fInterval: its low end)
	lo, hi int    // an interval after the value: its ends (-1: none); fInterval: hi only
	f      format // fInterval: pair's format for the ends
	pair   format
	wide   bool // long text: folded in HTML past a length, may break anywhere
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

// scanTyped reads every row of a query's result and returns the columns,
// their DuckDB types and rows.
func scanTyped(rows *sql.Rows) ([]string, []string, [][]any, error) {
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, nil, nil, err
	}
	cts, err := rows.ColumnTypes()
	if err != nil {
		return nil, nil, nil, err
	}
	types := make([]string, len(cts))
	for i, ct := range cts {
		types[i] = ct.DatabaseTypeName()
	}
	out, err := duck.ScanRows(rows)
	if err != nil {
		return nil, nil, nil, err
	}
	return cols, types, out, nil
}

var (
	pctName  = regexp.MustCompile(`^(rate|share|repeat_disagreement)$|_rate$|^share_`)
	lowName  = regexp.MustCompile(`^(.*?)(ci_low|low)$`)
	wideName = regexp.MustCompile(`^(text|question|recommendation|cells|threshold|detail|code|measure|grain|path|file|view_command|view_url|how|sample_error|output_error|call_error|reasoning_text|prompt_text|first_attempt_error|explanation)$`)
)

// viewOptions adjust the automatic view of a table.
type viewOptions struct {
	keepConstant bool            // show columns whose value is the same in every row
	hide         map[string]bool // source columns never shown
	labels       map[string]string
	sortBy       string // source column to sort by, descending; "" for the first share
	keepOrder    bool   // keep the query's order
	// shown is the query file whose rows a table's view shows, when they are
	// not its files' (decisions: a share as a share, D3's points as points);
	// "" for the same rows.
	shown string
}

// autoView formats a query result: shares as percentages, each *low/*high
// pair shown as [low, high] after its estimate (in the estimate's cell when
// it follows it), counts with separators, Wilson x sums (x_*) hidden (they
// are in the files), constant columns of tables of two or more rows named
// in a note instead of repeated, and rows sorted by the first share,
// highest first.
func autoView(id string, cols, types []string, rows [][]any, o viewOptions) *view {
	v := &view{id: id, rows: rows}
	formatOf := func(i int) format {
		name, typ := cols[i], strings.ToUpper(types[i])
		switch {
		case pctName.MatchString(name) && isFloatType(typ):
			return fPct
		case strings.Contains(typ, "INT"):
			return fCount
		case isFloatType(typ) || strings.HasPrefix(typ, "DECIMAL"):
			return fNumber
		case typ == "BOOLEAN":
			return fBool
		}
		return fText
	}
	var all []column
	for i := 0; i < len(cols); i++ {
		name := cols[i]
		if o.hide[name] || strings.HasPrefix(name, "x_") {
			continue
		}
		if m := lowName.FindStringSubmatch(name); m != nil {
			if hi := indexOf(cols, m[1]+strings.Replace(m[2], "low", "high", 1)); hi > i {
				if n := len(all); n > 0 && all[n-1].src == i-1 && all[n-1].f != fInterval && all[n-1].f != fText && all[n-1].lo < 0 && hi == i+1 {
					all[n-1].lo, all[n-1].hi = i, hi // the estimate's cell: 12.3% [4.1%, 30.2%]
					i = hi
					continue
				}
				pair := fNumber
				if i > 0 {
					pair = formatOf(i - 1)
				}
				label := "interval"
				if m[1] != "" {
					label = strings.TrimSuffix(m[1], "_") + " interval"
				}
				if l, ok := o.labels[name]; ok {
					label = l
				}
				all = append(all, column{label: label, src: i, lo: -1, hi: hi, f: fInterval, pair: pair})
				if hi == i+1 {
					i = hi
				}
				continue
			}
		}
		c := column{label: name, src: i, lo: -1, hi: -1, f: formatOf(i), wide: wideName.MatchString(name)}
		if l, ok := o.labels[name]; ok {
			c.label = l
		}
		all = append(all, c)
	}
	var constants []string
	for _, c := range all {
		if c.src >= 0 && isConstant(c, rows, o) {
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
			key = indexOf(cols, o.sortBy)
		} else {
			for _, c := range v.cols {
				if c.f == fPct {
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

func isFloatType(t string) bool {
	return t == "DOUBLE" || t == "FLOAT" || t == "REAL"
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

// cellText is a cell as read.
func cellText(c column, r []any) string {
	s := valueText(c, r)
	if ci := ciText(c, r); ci != "" {
		s += " " + ci
	}
	return s
}

// ciText is the interval shown after a value, "" for none.
func ciText(c column, r []any) string {
	if c.lo < 0 || c.f == fInterval || r[c.lo] == nil || r[c.hi] == nil {
		return ""
	}
	return valueText(column{f: fInterval, src: c.lo, hi: c.hi, lo: -1, pair: c.f}, r)
}

func valueText(c column, r []any) string {
	v := r[c.src]
	if v == nil && c.f != fInterval {
		return ""
	}
	switch c.f {
	case fPct:
		if x, ok := asFloat(v); ok {
			return pct(x)
		}
	case fCount:
		if n, ok := asInt(v); ok {
			return count(n)
		}
	case fNumber:
		if x, ok := asFloat(v); ok {
			return number(x)
		}
	case fInterval:
		if r[c.src] == nil || r[c.hi] == nil {
			return ""
		}
		lo, hi := column{f: c.pair, src: c.src, lo: -1}, column{f: c.pair, src: c.hi, lo: -1}
		if c.pair != fPct {
			lo.f, hi.f = fNumber, fNumber
		}
		return interval(cellText(lo, r), cellText(hi, r))
	case fBool:
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
	v := r[c.src]
	if x, ok := asFloat(v); ok && c.f != fText {
		if math.IsNaN(x) {
			return "", true
		}
		return fmt.Sprint(x), true
	}
	return "", false
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
		if c.f == fText || c.f == fBool {
			b.WriteString("---|")
		} else {
			b.WriteString("--:|")
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

func mdCell(s string, limit int) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	s = strings.ReplaceAll(s, "\r", "")
	s = strings.ReplaceAll(s, "\n", " ")
	if limit > 0 && len([]rune(s)) > limit {
		s = string([]rune(s)[:limit-1]) + "…"
	}
	return s
}

// manyColumns is the most columns a table has before it is laid out in a
// fixed grid of the page's width.
const manyColumns = 12

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
		fmt.Fprintf(b, "<input type=\"search\" class=\"filter\" placeholder=\"filter %d rows\" aria-label=\"filter rows\">\n", len(v.rows))
	}
	// A table of many columns is laid out in the page's width, its cells
	// wrapping where they must, rather than running off the page.
	if len(v.cols) > manyColumns {
		b.WriteString("<table class=\"data many\">\n<thead><tr>")
	} else {
		b.WriteString("<table class=\"data\">\n<thead><tr>")
	}
	for i, c := range v.cols {
		num := c.f != fText && c.f != fBool
		cls := ""
		if num {
			cls = " class=\"num\""
		}
		fmt.Fprintf(b, "<th%s data-col=\"%d\" title=\"sort\">%s</th>", cls, i, breakable(c.label))
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
			if c.f != fText && c.f != fBool {
				attr += " class=\"num\""
			}
			if c.wide && len(s) > foldAt {
				fmt.Fprintf(b, "<td%s><details><summary>%s…</summary><div class=\"long\">%s</div></details></td>",
					attr, html.EscapeString(string([]rune(s)[:120])), html.EscapeString(s))
				continue
			}
			if c.wide {
				attr += " class=\"wide\""
			}
			if ci := ciText(c, r); ci != "" {
				// value and interval each stay whole; the cell may wrap between them
				fmt.Fprintf(b, "<td%s><span class=\"v\">%s</span> <span class=\"ci\">%s</span></td>", attr,
					html.EscapeString(valueText(c, r)), html.EscapeString(ci))
				continue
			}
			fmt.Fprintf(b, "<td%s>%s</td>", attr, breakable(s))
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody>\n</table>\n")
	if v.csv != "" {
		fmt.Fprintf(b, "<p class=\"files\">%d rows · download <a href=\"tables/%[2]s.csv\">CSV</a> · <a href=\"tables/%[2]s.parquet\">Parquet</a></p>\n", len(v.rows), html.EscapeString(v.csv))
	}
	b.WriteString("</div>\n")
}

// breakable escapes s and lets it break after its underscores and slashes,
// so names like inspect_evals/commonsense_qa wrap at their parts.
func breakable(s string) string {
	return wbr.Replace(html.EscapeString(s))
}

var wbr = strings.NewReplacer("_", "_<wbr>", "/", "/<wbr>")
