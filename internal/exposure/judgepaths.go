package exposure

import (
	"sort"
	"strings"
	"unicode/utf8"
)

// analyzer holds the package and the memos of one scan.
type analyzer struct {
	pkg         *pkg
	factMemo    map[factKey][]fact
	modelMemo   map[*function]bool
	refMemo     map[*function][]ref
	callerMemo  map[*function]seeds
	wrapperMemo map[*function]bool
}

func newAnalyzer(p *pkg) *analyzer {
	return &analyzer{
		pkg:         p,
		factMemo:    map[factKey][]fact{},
		modelMemo:   map[*function]bool{},
		refMemo:     map[*function][]ref{},
		callerMemo:  map[*function]seeds{},
		wrapperMemo: map[*function]bool{},
	}
}

// Criterion 2 follows every way execution can reach a judge call, upward
// from the call, and asks of each whether something on it keeps an empty or
// refused reply away from the judge: a screen (the pre-registration's
// "guard"; internal/guard, the write safety, is another thing). A way ends
// screened at
//
//   - a test of the completion (or of the model's stop_reason/refusal) that
//     controls the judge call in the same function: an `if` around it, or an
//     `if` before it whose body returns or raises;
//   - a call to a package helper that makes such a test, in the same place;
//   - a screening wrapper (preset_score_on_no_response, or any function that
//     tests the completion and is handed the scorer as an argument).
//
// It ends unscreened (criterion 2's unguarded_judge) where the scorer is handed to the framework (Task(...),
// a list of scorers, a library function) or where no caller is found under
// PATH (a @scorer reached through the registry).

// step is one place a path passes through, from the judge upward.
type step struct {
	fn *function
	at *node
}

// outcome is one way execution reaches a judge call.
type outcome struct {
	screened bool
	how      string   // the screen, or where an unscreened path enters
	weak     []string // checks on the path that do not screen an empty text
	steps    []step
	scorer   bool // the path runs through a scorer
}

const (
	maxDepth    = 12
	maxOutcomes = 64
)

type visitKey struct {
	fn   *function
	kind byte // 'f' for reachFunc, 'r' for reachResult
}

type walker struct {
	a     *analyzer
	stack map[visitKey]bool
}

// reachSite returns the ways execution reaches site in f.
func (w *walker) reachSite(f *function, site *node, depth int) []outcome {
	here := step{f, site}
	if how, ok := w.a.localScreen(f, site); ok {
		return []outcome{{screened: true, how: how, steps: []step{here}, scorer: w.a.isScorer(f)}}
	}
	if name := w.a.wrapperAround(f, site); name != "" {
		return []outcome{{screened: true, how: "wrapped by " + name, steps: []step{here}, scorer: w.a.isScorer(f)}}
	}
	weak := w.a.weakChecks(f, site)
	outs := w.reachFunc(f, depth)
	for i := range outs {
		outs[i].steps = append([]step{here}, outs[i].steps...)
		outs[i].weak = append(append([]string(nil), weak...), outs[i].weak...)
		outs[i].scorer = outs[i].scorer || w.a.isScorer(f)
	}
	return outs
}

// reachFunc returns the ways f's body gets to run.
func (w *walker) reachFunc(f *function, depth int) []outcome {
	if f.isModuleBody() {
		return []outcome{{how: "module-level code in " + f.mod.file}}
	}
	key := visitKey{f, 'f'}
	if w.stack[key] {
		return nil
	}
	if depth > maxDepth {
		return []outcome{{how: "call chain too long to follow from " + f.qual}}
	}
	refs := w.a.refsTo(f)
	if len(refs) == 0 {
		return []outcome{{how: noCaller(f)}}
	}
	w.stack[key] = true
	defer delete(w.stack, key)
	var outs []outcome
	for _, r := range refs {
		outs = appendCapped(outs, w.flowValue(r.mod.enclosing(r.n), r.n, depth+1)...)
	}
	return outs
}

// reachResult returns the ways the value g returns (a scorer) gets to run.
func (w *walker) reachResult(g *function, depth int) []outcome {
	if g.isModuleBody() {
		return nil
	}
	key := visitKey{g, 'r'}
	if w.stack[key] {
		return nil
	}
	if depth > maxDepth {
		return []outcome{{how: "call chain too long to follow from " + g.qual}}
	}
	refs := w.a.refsTo(g)
	if len(refs) == 0 {
		return []outcome{{how: noCaller(g), scorer: w.a.isScorer(g)}}
	}
	w.stack[key] = true
	defer delete(w.stack, key)
	var outs []outcome
	for _, r := range refs {
		k := r.mod.enclosing(r.n)
		p := r.n.parent
		var got []outcome
		switch {
		case p.kind == "call" && r.n.field == "function":
			got = w.flowValue(k, p, depth+1)
		case w.a.wrapperAround(k, r.n) != "":
			got = []outcome{{screened: true, how: "wrapped by " + w.a.wrapperAround(k, r.n), steps: []step{{k, r.n}}}}
		default:
			got = []outcome{{how: g.qual + " used as a value at " + r.mod.file + ":" + itoa(r.n.line()), steps: []step{{k, r.n}}}}
		}
		for i := range got {
			got[i].scorer = got[i].scorer || w.a.isScorer(g)
		}
		outs = appendCapped(outs, got...)
	}
	return outs
}

// flowValue follows a callable value x in k (a scorer, a judge scorer, a
// function) to where it is called, wrapped, returned or handed over.
func (w *walker) flowValue(k *function, x *node, depth int) []outcome {
	src := k.mod.src
	here := step{k, x}
	if name := w.a.wrapperAround(k, x); name != "" {
		return []outcome{{screened: true, how: "wrapped by " + name, steps: []step{here}}}
	}
	if depth > 3*maxDepth { // a = b; b = a
		return []outcome{{how: "value flow too long to follow at " + k.mod.file + ":" + itoa(x.line()), steps: []step{here}}}
	}
	cur := x
climb:
	for cur.parent != nil {
		p := cur.parent
		switch p.kind {
		case "parenthesized_expression", "list", "tuple", "set", "expression_list", "await",
			"conditional_expression", "boolean_operator", "list_splat", "dictionary":
			cur = p
		case "list_comprehension", "generator_expression", "set_comprehension":
			if cur.field != "body" {
				break climb
			}
			cur = p
		case "pair":
			if cur.field != "value" {
				break climb
			}
			cur = p
		default:
			break climb
		}
	}
	p := cur.parent
	switch {
	case p == nil:
	case p.kind == "call" && cur.field == "function":
		return w.reachSite(k, p, depth)
	case p.kind == "assignment" && cur.field == "right":
		left := p.child("left")
		var refs []ref
		switch left.kind {
		case "identifier":
			refs = w.a.varRefs(k, left.text(src), p)
		case "attribute":
			refs = w.a.selfAttrRefs(k, left)
		}
		var outs []outcome
		for _, r := range refs {
			outs = appendCapped(outs, w.flowValue(r.mod.enclosing(r.n), r.n, depth+1)...)
		}
		for i := range outs {
			outs[i].steps = append([]step{here}, outs[i].steps...)
		}
		return outs
	case p.kind == "return_statement":
		outs := w.reachResult(k, depth+1)
		for i := range outs {
			outs[i].steps = append([]step{here}, outs[i].steps...)
		}
		return outs
	case p.kind == "argument_list" || p.kind == "keyword_argument":
		call := p.parent
		if p.kind == "keyword_argument" {
			call = call.parent
		}
		if call != nil && call.kind == "call" {
			callee := call.child("function")
			if g := k.resolveFunc(callee); g != nil {
				if name := w.a.paramFor(k, call, g, cur); name != "" {
					var outs []outcome
					for _, r := range w.a.varRefs(g, name, nil) {
						outs = appendCapped(outs, w.flowValue(r.mod.enclosing(r.n), r.n, depth+1)...)
					}
					for i := range outs {
						outs[i].steps = append([]step{here}, outs[i].steps...)
					}
					return outs
				}
			}
			return []outcome{{how: "handed to " + calleeText(src, callee) + "(...) at " + k.mod.file + ":" + itoa(call.line()), steps: []step{here}}}
		}
	}
	return []outcome{{how: "used as a value at " + k.mod.file + ":" + itoa(x.line()), steps: []step{here}}}
}

func appendCapped(outs []outcome, more ...outcome) []outcome {
	for _, o := range more {
		if len(outs) >= maxOutcomes {
			break
		}
		outs = append(outs, o)
	}
	return outs
}

func noCaller(f *function) string {
	return "no caller under PATH: " + f.qual + " (" + f.where() + ") is run by the framework or through the registry"
}

func calleeText(src []byte, callee *node) string {
	return clip(strings.Join(strings.Fields(callee.text(src)), ""), 40)
}

// clip shortens s to at most n bytes, on a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("...")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

// paramFor names the parameter of g that the argument x (in call, in k)
// binds.
func (a *analyzer) paramFor(k *function, call *node, g *function, x *node) string {
	src := k.mod.src
	params := g.params
	if g.class != nil && len(params) > 0 && (params[0].name == "self" || params[0].name == "cls") {
		params = params[1:]
	}
	i := 0
	for _, arg := range call.child("arguments").namedChildren() {
		switch arg.kind {
		case "keyword_argument":
			if arg.contains(x) {
				name := arg.child("name").text(src)
				if _, ok := g.param(name); ok {
					return name
				}
				return ""
			}
		case "list_splat", "dictionary_splat":
			return ""
		default:
			if arg.contains(x) {
				if i < len(params) {
					return params[i].name
				}
				return ""
			}
			i++
		}
	}
	return ""
}

// ref is an identifier (or self.<attr>) that refers to a function or a
// variable.
type ref struct {
	mod *module
	n   *node
}

// refsTo finds the references to f under PATH: by name in its scope, through
// imports of it by name, as module.f, and as self.f for methods.
func (a *analyzer) refsTo(f *function) []ref {
	if rs, ok := a.refMemo[f]; ok {
		return rs
	}
	modules := []*module{f.mod}
	if f.class == nil && f.parent.isModuleBody() {
		modules = a.pkg.modules
	}
	var out []ref
	add := func(m *module, n *node) {
		if m.enclosing(n).resolveFunc(n) == f {
			out = append(out, ref{mod: m, n: n})
		}
	}
	for _, m := range modules {
		names := []string{f.name}
		for local, imp := range m.imports {
			if local != f.name && imp.name == f.name {
				if g, _ := a.pkg.resolveImport(imp, 0); g == f {
					names = append(names, local)
				}
			}
		}
		for _, name := range names {
			for _, id := range m.idents[name] {
				switch {
				case id.field == "attribute" && id.parent.kind == "attribute":
					if name == f.name && isReference(id.parent) {
						add(m, id.parent)
					}
				case isReference(id):
					add(m, id)
				}
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].mod.file != out[j].mod.file {
			return out[i].mod.file < out[j].mod.file
		}
		return out[i].n.start < out[j].n.start
	})
	a.refMemo[f] = out
	return out
}

// isReference reports whether an identifier (or attribute) is a use of a
// name, not a definition, a parameter, an assignment target or a keyword.
func isReference(n *node) bool {
	p := n.parent
	if p == nil {
		return false
	}
	switch {
	case n.field == "name" && (p.kind == "function_definition" || p.kind == "class_definition" ||
		p.kind == "keyword_argument" || p.kind == "default_parameter" || p.kind == "typed_default_parameter"):
		return false
	case n.field == "left" && (p.kind == "assignment" || p.kind == "augmented_assignment"):
		return false
	case n.field == "attribute" && p.kind == "attribute":
		return false
	case p.kind == "parameters" || p.kind == "typed_parameter" || p.kind == "lambda_parameters":
		return false
	}
	return true
}

// varRefs finds the uses of a variable bound in k (by assignment or as a
// parameter), in k and its nested defs. skip is the binding assignment.
func (a *analyzer) varRefs(k *function, name string, skip *node) []ref {
	var out []ref
	m := k.mod
	body := k.body
	if k.isModuleBody() {
		body = m.root
	}
	for _, id := range m.idents[name] {
		if !body.contains(id) || !isReference(id) || (skip != nil && skip.child("left") == id) {
			continue
		}
		if sc, _, _ := m.enclosing(id).lookup(name); sc == k {
			out = append(out, ref{mod: m, n: id})
		}
	}
	return out
}

// selfAttrRefs finds the reads of self.<attr> in the methods of k's class.
func (a *analyzer) selfAttrRefs(k *function, left *node) []ref {
	src := k.mod.src
	obj := left.child("object")
	if obj.kind != "identifier" || obj.text(src) != "self" || k.enclosingClass() == nil {
		return nil
	}
	c := k.enclosingClass()
	attr := left.child("attribute").text(src)
	var out []ref
	for _, id := range k.mod.idents[attr] {
		p := id.parent
		if id.field != "attribute" || p.kind != "attribute" || p == left || p.field == "left" {
			continue
		}
		if o := p.child("object"); o.kind == "identifier" && o.text(src) == "self" && k.mod.enclosing(p).enclosingClass() == c {
			out = append(out, ref{mod: k.mod, n: p})
		}
	}
	return out
}

// wrapperAround returns the name of a screening wrapper whose arguments contain
// x (within k's own body), or "".
func (a *analyzer) wrapperAround(k *function, x *node) string {
	for n := x; n.parent != nil; n = n.parent {
		p := n.parent
		if isScope(p) {
			return ""
		}
		if p.kind == "call" && n.field == "arguments" {
			callee := p.child("function")
			if name := k.mod.baseName(callee); screenWrappers[name] {
				return name
			}
			if g := k.resolveFunc(callee); g != nil && a.isScreenWrapper(g) {
				return g.qual
			}
		}
	}
	return ""
}

func (a *analyzer) isScreenWrapper(g *function) bool {
	if v, ok := a.wrapperMemo[g]; ok {
		return v
	}
	v := false
	for _, f := range a.wrapperFacts(g) {
		if f.screens() {
			v = true
		}
	}
	a.wrapperMemo[g] = v
	return v
}

// callerSeeds merges the origins that f's callers pass for its parameters:
// a judge helper called with the completion sees it as the completion.
func (a *analyzer) callerSeeds(f *function) seeds {
	if sd, ok := a.callerMemo[f]; ok {
		return sd
	}
	a.callerMemo[f] = nil
	var sd seeds
	if !f.isModuleBody() {
		for _, r := range a.refsTo(f) {
			p := r.n.parent
			if p.kind != "call" || r.n.field != "function" {
				continue
			}
			k := r.mod.enclosing(r.n)
			for name, o := range a.callSeeds(scope{f: k}, p, f) {
				if sd == nil {
					sd = seeds{}
				}
				sd[name] = o
			}
		}
	}
	a.callerMemo[f] = sd
	return sd
}

// localScreen finds, in f's own body, a test that keeps an empty or refused
// reply from reaching site: the completion (or the model's stop_reason or
// refusal flag) tested in a condition that controls site, directly or in a
// helper the condition calls.
func (a *analyzer) localScreen(f *function, site *node) (string, bool) {
	for _, ft := range a.ownFacts(f, a.callerSeeds(f)) {
		if ft.screens() && controls(f, ft.node, site) {
			return ft.describe() + " at " + f.mod.file + ":" + itoa(ft.node.line()), true
		}
	}
	ctx := scope{f: f, sd: a.callerSeeds(f)}
	var how string
	walkOwn(f, func(n *node) {
		if how != "" || n.kind != "call" || n.start >= site.start {
			return
		}
		g := f.resolveFunc(n.child("function"))
		if g == nil || g == f {
			return
		}
		inCondition := controls(f, n, site)
		bare := n.parent.kind == "expression_statement" || n.parent.kind == "await" && n.parent.parent.kind == "expression_statement"
		if !inCondition && !(bare && raises(g)) {
			return
		}
		for _, ft := range a.deepFacts(g, a.callSeeds(ctx, n, g), 0) {
			if ft.screens() {
				how = "helper " + g.qual + " (" + g.where() + ") " + ft.describe() + ", called at " + f.mod.file + ":" + itoa(n.line())
				return
			}
		}
	})
	return how, how != ""
}

// weakChecks lists the checks in f that control site but do not catch an
// empty text: output.empty and always-true tests of the ModelOutput.
func (a *analyzer) weakChecks(f *function, site *node) []string {
	var out []string
	for _, ft := range a.ownFacts(f, a.callerSeeds(f)) {
		if (ft.kind == factNoChoices || ft.kind == factDeadCheck) && controls(f, ft.node, site) {
			out = append(out, "only "+ft.describe()+" ("+f.mod.file+":"+itoa(ft.node.line())+")")
		}
	}
	return out
}

// controls reports whether the test (or call) at t decides whether site runs:
// t is in the condition of an if/elif/while that contains site, or of one
// before site whose branch returns, raises, breaks or continues; in the
// condition of a conditional expression around site; or in an assert
// before site.
func controls(f *function, t, site *node) bool {
	for n := t; n.parent != nil; n = n.parent {
		p := n.parent
		if isScope(p) || p == f.body {
			return false
		}
		switch p.kind {
		case "if_statement", "elif_clause", "while_statement":
			if n.field != "condition" {
				continue
			}
			stmt := p
			if p.kind == "elif_clause" {
				stmt = p.parent
			}
			if stmt.contains(site) && !p.child("condition").contains(site) {
				return true
			}
			return t.start < site.start && exits(p.child("consequence"))
		case "conditional_expression":
			parts := p.namedChildren()
			return len(parts) == 3 && parts[1] == n && p.contains(site)
		case "assert_statement":
			return t.start < site.start
		}
	}
	return false
}

// exits reports whether a block contains a return, raise, break or continue
// (outside nested defs).
func exits(block *node) bool {
	found := false
	if block == nil {
		return false
	}
	walk(block, func(n *node) bool {
		switch n.kind {
		case "return_statement", "raise_statement", "break_statement", "continue_statement":
			found = true
		}
		return !found && !isScope(n)
	})
	return found
}

// raises reports whether g's own body raises.
func raises(g *function) bool {
	found := false
	walkOwn(g, func(n *node) {
		if n.kind == "raise_statement" {
			found = true
		}
	})
	return found
}
