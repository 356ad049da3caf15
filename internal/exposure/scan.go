package exposure

import (
	"context"
	"sort"
	"strings"
)

// Result is what one scan found.
type Result struct {
	Path      string    // PATH as given
	Root      string    // the package folder scanned
	Files     int       // Python files parsed
	Evals     []string  // eval folders (those with a @task), sorted
	BadSyntax []string  // files parsed with error recovery
	Findings  []Finding // sorted by eval, criterion, file, line
}

// Scan loads the package under path and applies the four criteria.
func Scan(ctx context.Context, path string) (*Result, error) {
	p, err := loadPackage(ctx, path)
	if err != nil {
		return nil, err
	}
	a := newAnalyzer(p)
	r := &report{index: map[rowKey]int{}}
	for _, m := range p.modules {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for _, f := range m.functions() {
			if m.eval != "" {
				a.scanFacts(r, f)
				a.scanMaxTokens(r, f)
				a.scanHelperCalls(r, f)
			}
			a.scanJudges(r, f)
		}
	}
	sort.SliceStable(r.rows, func(i, j int) bool {
		x, y := r.rows[i], r.rows[j]
		if x.Eval != y.Eval {
			return x.Eval < y.Eval
		}
		if x.Criterion != y.Criterion {
			return x.Criterion < y.Criterion
		}
		if x.File != y.File {
			return x.File < y.File
		}
		return x.Line < y.Line
	})
	return &Result{
		Path: path, Root: p.root, Files: len(p.modules), Evals: p.evals,
		BadSyntax: p.badSyntax, Findings: r.rows,
	}, nil
}

// functions lists the module body and every def, in source order.
func (m *module) functions() []*function {
	fs := []*function{m.top}
	var defs []*function
	for _, f := range m.fnOf {
		defs = append(defs, f)
	}
	sort.Slice(defs, func(i, j int) bool { return defs[i].def.start < defs[j].def.start })
	return append(fs, defs...)
}

// report collects findings, one row per eval × criterion × file × line.
type report struct {
	rows  []Finding
	index map[rowKey]int
}

type rowKey struct {
	eval string
	crit int32
	file string
	line int32
}

func (r *report) add(eval string, crit int32, f *function, n *node, detail string, value *string) {
	k := rowKey{eval, crit, f.mod.file, int32(n.line())}
	if i, ok := r.index[k]; ok {
		if detail = strings.ToValidUTF8(detail, "\uFFFD"); !strings.Contains(r.rows[i].Detail, detail) {
			r.rows[i].Detail += "; " + detail
		}
		if r.rows[i].Value == nil {
			r.rows[i].Value = value
		}
		return
	}
	r.index[k] = len(r.rows)
	r.rows = append(r.rows, Finding{
		Eval: eval, Criterion: crit, CriterionName: criterionName(crit),
		File: f.mod.file, Line: int32(n.line()), Function: f.qual,
		// Python source is UTF-8 by definition, but a stray byte must not
		// make the Parquet unreadable for DuckDB.
		Code: strings.ToValidUTF8(sourceLine(f.mod.src, n), "\uFFFD"), Detail: strings.ToValidUTF8(detail, "\uFFFD"), Value: value,
	})
}

// scanFacts reports criterion 1 and 4 facts in f's own body.
func (a *analyzer) scanFacts(r *report, f *function) {
	for _, ft := range a.ownFacts(f, a.callerSeeds(f)) {
		crit := int32(critEmptyCheck)
		if ft.kind == factRefusalRead || ft.kind == factRefusalSetting {
			crit = critRefusalSignal
		}
		r.add(f.mod.eval, crit, f, ft.node, ft.summary(), nil)
	}
}

// scanHelperCalls reports criterion 1 and 4 at calls into helpers outside
// the eval that make the test themselves: a shared helper such as
// preset_score_on_no_response, or a helper of another eval. (A helper of the
// same eval is reported where its test is.)
func (a *analyzer) scanHelperCalls(r *report, f *function) {
	m := f.mod
	ctx := scope{f: f}
	walkOwn(f, func(n *node) {
		if n.kind != "call" {
			return
		}
		callee := n.child("function")
		g := f.resolveFunc(callee)
		if g == nil {
			if name := m.baseName(callee); screenWrappers[name] {
				r.add(m.eval, critEmptyCheck, f, n, "calls "+name+" (its definition is not under PATH)"+presetValue(m.src, n, nil), nil)
			}
			return
		}
		if g.mod.eval == m.eval {
			return // reported where the test is (scanFacts)
		}
		facts := a.deepFacts(g, a.callSeeds(ctx, n, g), 0)
		done := map[int32]bool{}
		for _, ft := range facts {
			crit := int32(critEmptyCheck)
			if ft.kind == factRefusalRead || ft.kind == factRefusalSetting {
				crit = critRefusalSignal
			}
			if done[crit] {
				continue
			}
			done[crit] = true
			where := ft.fn.mod.file + ":" + itoa(ft.node.line())
			detail := "calls " + g.qual + " (" + g.where() + "), which " + ft.describe() + " at " + where + presetValue(m.src, n, g)
			r.add(m.eval, crit, f, n, detail, nil)
		}
	})
}

// presetValue names the value a preset_score_on_no_response call assigns
// to an empty reply.
func presetValue(src []byte, call *node, g *function) string {
	args := call.child("arguments").namedChildren()
	for _, arg := range args {
		if arg.kind == "keyword_argument" && arg.child("name").text(src) == "no_response_value" {
			return "; no_response_value=" + arg.child("value").text(src)
		}
	}
	var positional []*node
	for _, arg := range args {
		if arg.kind != "keyword_argument" {
			positional = append(positional, arg)
		}
	}
	if g == nil {
		if len(positional) > 1 {
			return "; no_response_value=" + positional[1].text(src)
		}
		return ""
	}
	for i, p := range g.params {
		if p.name != "no_response_value" {
			continue
		}
		if i < len(positional) {
			return "; no_response_value=" + positional[i].text(src)
		}
		if p.def != nil {
			return "; no_response_value=" + p.def.text(g.mod.src) + " (default)"
		}
	}
	return ""
}

// scanMaxTokens reports criterion 3: every max_tokens= keyword, with its
// value resolved where it is a constant.
func (a *analyzer) scanMaxTokens(r *report, f *function) {
	src := f.mod.src
	walkOwn(f, func(n *node) {
		if n.kind != "keyword_argument" || n.child("name").text(src) != "max_tokens" {
			return
		}
		e := n.child("value")
		val, trail, ok := a.constValue(f, e, 0)
		var detail string
		var value *string
		expr := strings.Join(strings.Fields(e.text(src)), " ")
		switch {
		case ok && len(trail) == 0:
			detail = "max_tokens=" + val
		case ok:
			detail = "max_tokens=" + val + " via " + strings.Join(trail, " ← ")
		case len(trail) > 0:
			detail = "max_tokens=" + expr + ", not a constant: " + strings.Join(trail, " ← ")
		default:
			detail = "max_tokens=" + expr + ", not a constant"
		}
		if ok {
			value = &val
			if val == "None" {
				detail += " (None leaves the provider's default)"
			}
		}
		detail += "; for " + a.tokensTarget(f, n)
		r.add(f.mod.eval, critMaxTokens, f, n, detail, value)
	})
}

// scanJudges reports criterion 2 for each judge call in f: model_graded_qa
// or model_graded_fact (they grade with a model), or <model>.generate on a
// model reached from a scorer. A judge in a shared helper is reported at the
// eval's call into the helper.
func (a *analyzer) scanJudges(r *report, f *function) {
	src := f.mod.src
	walkOwn(f, func(n *node) {
		if n.kind != "call" {
			return
		}
		callee := unparen(n.child("function"))
		w := &walker{a: a, stack: map[visitKey]bool{}}
		var outs []outcome
		var judge string
		switch {
		case callee.kind != "call" && judgeScorers[f.mod.baseName(callee)] && f.resolveFunc(callee) == nil:
			judge = f.mod.baseName(callee) + "(...)"
			outs = w.flowValue(f, n, 0)
			for i := range outs {
				outs[i].scorer = true
			}
		case callee.kind == "attribute" && callee.child("attribute").text(src) == "generate" &&
			a.isModel(f, callee.child("object"), 0):
			judge = "call " + calleeText(src, callee) + "(...)"
			outs = w.reachSite(f, n, 0)
		default:
			return
		}
		judgeAt := f.mod.file + ":" + itoa(n.line())
		type group struct {
			fn   *function
			at   *node
			hows []string
			path string
		}
		var groups []*group
		byKey := map[string]*group{}
		for _, o := range outs {
			if o.screened || !o.scorer {
				continue
			}
			steps := append([]step{{f, n}}, o.steps...)
			seen := map[string]bool{}
			for _, s := range steps {
				eval := s.fn.mod.eval
				if eval == "" || seen[eval] {
					continue
				}
				seen[eval] = true
				key := eval + "\x00" + s.fn.mod.file + ":" + itoa(s.at.line())
				g := byKey[key]
				if g == nil {
					g = &group{fn: s.fn, at: s.at, path: pathText(steps)}
					byKey[key] = g
					groups = append(groups, g)
				}
				how := o.how
				if len(o.weak) > 0 {
					how += "; " + strings.Join(o.weak, "; ")
				}
				if !contains(g.hows, how) {
					g.hows = append(g.hows, how)
				}
			}
		}
		for _, g := range groups {
			sort.Strings(g.hows) // "handed to ..." before "no caller ..." before "used as a value ..."
			detail := "judge " + judge
			if g.fn != f || g.at != n {
				detail += " in " + f.qual + " (" + judgeAt + "), reached from here"
			}
			detail += "; no emptiness or refusal check on the path (" + g.path + "); enters: " + g.hows[0]
			if len(g.hows) > 1 {
				detail += " (+" + itoa(len(g.hows)-1) + " more unguarded paths)"
			}
			r.add(g.fn.mod.eval, critUnguardedJudge, g.fn, g.at, detail, nil)
		}
	})
}

// pathText names the functions a path runs through, from the judge up.
func pathText(steps []step) string {
	var names []string
	for _, s := range steps {
		q := s.fn.qual
		if len(names) == 0 || names[len(names)-1] != q {
			names = append(names, q)
		}
	}
	return strings.Join(names, " ← ")
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
