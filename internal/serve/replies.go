package serve

import (
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"empties/internal/classify"
)

// The replies page: serveReplies asks browse for one page of rows and their
// facet counts, and newRepliesView turns them into what the template shows,
// part by part (shares, paging, rows with their badges, facets, chips, sort
// and page-size links).

func (s *Server) serveReplies(w http.ResponseWriter, r *http.Request, g *generation) {
	start := time.Now()
	fs := activeFacets(g.tables)
	f := parseFilter(r.URL.Query(), fs)
	res, err := browse(r.Context(), g, f)
	if err != nil {
		s.errorPage(w, r, g, http.StatusInternalServerError, err)
		return
	}
	p := s.pageData(r, g, "replies", "replies")
	p.Body = newRepliesView(g, fs, f, res)
	p.Elapsed = time.Since(start).Round(time.Millisecond).String()
	s.render(w, "replies", p)
}

// repliesView is the browser page.
type repliesView struct {
	Filter   filter
	Total    int64
	From, To int64
	Rows     []rowView
	Facets   []facetView
	Prev     string
	Next     string
	Pages    int64
	Sorts    []sortLink
	Clear    string
	Chips    []chip
	Hidden   url.Values // the filter as hidden form fields, but q and id
	PerPage  []perPageLink
	// Of the rows matching, when the facets say (their own filter unset):
	NonAnswers, NoReply int64
	Shares              bool
}

// facetView is a facet as the page lists it.
type facetView struct {
	Key, Label, Help string
	Items            []facetItem // shown
	More             []facetItem // folded
	Selected         int
}

type facetItem struct {
	Label    string
	Title    string
	Count    int64
	Selected bool
	Href     string
	Null     bool
}

type chip struct{ Label, Href string }

type perPageLink struct {
	N      int
	Href   string
	Active bool
}

type sortLink struct {
	Key, Label, Href string
	Active, Desc     bool
}

type rowView struct {
	replyRow
	Href     string
	LogName  string
	Snippet  string
	Cut      bool
	Badges   []string
	Attempts string
}

// facetShown is how many values a facet lists before folding the rest.
const facetShown = 8

// perPages are the page sizes the page links to.
var perPages = []int{25, 50, 100, 200}

// repliesPage is what every part of the view reads: the generation, its
// facets, the filter of the URL and browse's result.
type repliesPage struct {
	g   *generation
	fs  []facet
	f   filter
	res *browseResult
}

func newRepliesView(g *generation, fs []facet, f filter, res *browseResult) *repliesView {
	p := repliesPage{g: g, fs: fs, f: f, res: res}
	v := &repliesView{Filter: f, Total: res.Total}
	v.Shares, v.NonAnswers, v.NoReply = p.shares()
	v.Pages, v.From, v.To, v.Prev, v.Next = p.paging()
	v.Rows = p.rows()
	v.Facets = p.facets()
	v.Chips = p.chips()
	v.Clear = p.clearHref()
	v.Sorts = p.sortLinks()
	v.PerPage = p.perPageLinks()
	v.Hidden = p.hidden()
	return v
}

// href is the page's URL for filter f.
func (p repliesPage) href(f filter) string {
	if q := f.values(p.fs).Encode(); q != "" {
		return "/replies?" + q
	}
	return "/replies"
}

// shares are the non-answers and the rows with no reply among the rows
// matching, when the page can tell: neither facet is filtered, so both
// facets are counted under exactly the page's filters.
func (p repliesPage) shares() (ok bool, nonAnswers, noReply int64) {
	if len(p.f.sel["non_answer"]) != 0 || len(p.f.sel["class"]) != 0 || p.res.Total == 0 {
		return false, 0, 0
	}
	for _, c := range p.res.Facets["non_answer"] {
		if c.Value != nil && *c.Value == "true" {
			nonAnswers = c.Count
		}
	}
	for _, c := range p.res.Facets["class"] {
		if c.Value != nil && !classify.IsReply(*c.Value) {
			noReply += c.Count
		}
	}
	return true, nonAnswers, noReply
}

// paging is the number of pages, the rows shown (from 1) and the links to
// the previous and next pages ("" when none).
func (p repliesPage) paging() (pages, from, to int64, prev, next string) {
	f := p.f
	pages = max(1, (p.res.Total+int64(f.PerPage)-1)/int64(f.PerPage))
	from = int64((f.Page-1)*f.PerPage) + 1
	to = from + int64(len(p.res.Rows)) - 1
	if f.Page > 1 {
		pf := f.clone()
		pf.Page = min(f.Page-1, int(pages))
		prev = p.href(pf)
	}
	if int64(f.Page) < pages {
		nf := f.clone()
		nf.Page++
		next = p.href(nf)
	}
	return pages, from, to, prev, next
}

// rows are the table's rows, each linking to its sample page (and back).
func (p repliesPage) rows() []rowView {
	here := p.href(p.f)
	var out []rowView
	for _, row := range p.res.Rows {
		if l := p.g.logs[row.LogID]; l != nil {
			row.LogPath = l.Path
		}
		rv := rowView{replyRow: row, LogName: filepath.Base(row.LogPath)}
		rv.Href = "/sample?" + url.Values{"log": {row.LogID}, "id": {row.SampleID}, "epoch": {strconv.FormatInt(row.Epoch, 10)}, "from": {here}}.Encode()
		rv.Snippet, rv.Cut = row.Text, row.TextChars > int64(utf8.RuneCountInString(row.Text))
		rv.Badges = badges(row)
		rv.Attempts = attempts(row)
		out = append(out, rv)
	}
	return out
}

// badges are the marks of a row beside its class.
func badges(row replyRow) []string {
	var b []string
	if row.Refusal {
		b = append(b, "refusal flag")
	}
	if row.ReasoningChars > 0 {
		b = append(b, fmt.Sprintf("reasoning %s chars", thousands(row.ReasoningChars)))
	}
	if len(row.ToolFunctions) > 0 {
		b = append(b, "tools: "+strings.Join(row.ToolFunctions, ", "))
	}
	return b
}

// attempts says which calls before the reply were skipped.
func attempts(row replyRow) string {
	var atts []string
	if row.FailedAttempts > 0 {
		atts = append(atts, fmt.Sprintf("%d retried", row.FailedAttempts))
	}
	if row.Placeholders > 0 {
		atts = append(atts, fmt.Sprintf("%d placeholder", row.Placeholders))
	}
	return strings.Join(atts, ", ")
}

func (p repliesPage) facets() []facetView {
	out := make([]facetView, 0, len(p.fs))
	for _, fc := range p.fs {
		out = append(out, p.facet(fc))
	}
	return out
}

// facet lists a facet's values with their counts, classes in rule order,
// the values chosen that match no row now at the end, and those chosen
// first among the folded ones, so none hides.
func (p repliesPage) facet(fc facet) facetView {
	fv := facetView{Key: fc.Key, Label: fc.Label, Help: fc.Help}
	counts := p.res.Facets[fc.Key]
	if fc.Key == "class" {
		order := classify.Classes()
		slices.SortStableFunc(counts, func(a, b facetCount) int {
			return slices.Index(order, deref(a.Value)) - slices.Index(order, deref(b.Value))
		})
	}
	sel := p.f.sel[fc.Key]
	seen := map[string]bool{}
	add := func(val *string, n int64) {
		it := facetItem{Count: n, Href: p.href(p.f.toggle(fc.Key, val)), Null: val == nil}
		it.Selected = slices.ContainsFunc(sel, func(s *string) bool { return (s == nil) == (val == nil) && (s == nil || *s == *val) })
		switch {
		case val == nil:
			it.Label = "(none)"
		case fc.Key == "log":
			it.Label, it.Title = *val, *val
			if l := p.g.logs[*val]; l != nil {
				it.Label, it.Title = filepath.Base(l.Path), l.Path
			}
		default:
			it.Label = *val
		}
		if it.Selected {
			fv.Selected++
		}
		fv.Items = append(fv.Items, it)
	}
	for _, c := range counts {
		seen[deref(c.Value)+boolKey(c.Value == nil)] = true
		add(c.Value, c.Count)
	}
	for _, s := range sel {
		if !seen[deref(s)+boolKey(s == nil)] {
			add(s, 0)
		}
	}
	slices.SortStableFunc(fv.Items, func(a, b facetItem) int {
		if a.Selected != b.Selected && len(fv.Items) > facetShown {
			if a.Selected {
				return -1
			}
			return 1
		}
		return 0
	})
	if len(fv.Items) > facetShown+2 {
		fv.Items, fv.More = fv.Items[:facetShown], fv.Items[facetShown:]
	}
	return fv
}

// chips are the filters chosen, each with the link that removes it: the
// facets' values but their defaults, then the text and the sample id.
func (p repliesPage) chips() []chip {
	f := p.f
	var out []chip
	for _, fc := range p.fs {
		sel := f.sel[fc.Key]
		if len(sel) == 0 || isDefault(fc, sel) {
			continue
		}
		for _, s := range sel {
			label := "(none)"
			if s != nil {
				label = *s
				if fc.Key == "log" {
					if l := p.g.logs[*s]; l != nil {
						label = filepath.Base(l.Path)
					}
				}
			}
			out = append(out, chip{Label: fc.Label + ": " + label, Href: p.href(f.toggle(fc.Key, s))})
		}
	}
	if f.Q != "" {
		nf := f.clone()
		nf.Q, nf.Page = "", 1
		out = append(out, chip{Label: "text: " + f.Q, Href: p.href(nf)})
	}
	if f.ID != "" {
		nf := f.clone()
		nf.ID, nf.Page = "", 1
		out = append(out, chip{Label: "sample id: " + f.ID, Href: p.href(nf)})
	}
	return out
}

// clearHref is the page with every facet at its default, at this page size.
func (p repliesPage) clearHref() string {
	clear := filter{sel: map[string][]*string{}, Page: 1, PerPage: p.f.PerPage}
	for _, fc := range p.fs {
		for _, d := range fc.def {
			clear.sel[fc.Key] = append(clear.sel[fc.Key], &d)
		}
	}
	return p.href(clear)
}

// sortLinks are the orders, each on page 1; the active one's link turns its
// direction. Without a sort the page is in class order, and its class link
// sorts by class descending.
func (p repliesPage) sortLinks() []sortLink {
	f := p.f
	out := make([]sortLink, 0, len(sortKeys))
	for _, k := range sortKeys {
		sf := f.clone()
		sf.Page = 1
		active := f.Sort == k.Key || (f.Sort == "" && k.Key == "class")
		sf.Sort, sf.Desc = k.Key, active && !f.Desc && f.Sort != ""
		if f.Sort == "" && k.Key == "class" {
			sf.Desc = true
		}
		out = append(out, sortLink{Key: k.Key, Label: k.Label, Href: p.href(sf), Active: active, Desc: active && f.Desc})
	}
	return out
}

func (p repliesPage) perPageLinks() []perPageLink {
	out := make([]perPageLink, 0, len(perPages))
	for _, n := range perPages {
		pf := p.f.clone()
		pf.PerPage, pf.Page = n, 1
		out = append(out, perPageLink{N: n, Href: p.href(pf), Active: n == p.f.PerPage})
	}
	return out
}

// hidden is the filter as the search form's hidden fields: all but the
// text, the sample id (the form's own fields) and the page.
func (p repliesPage) hidden() url.Values {
	h := p.f.values(p.fs)
	h.Del("q")
	h.Del("id")
	h.Del("page")
	return h
}
