package exposure

import (
	"sort"
	"strings"
)

// origin says what an expression holds, as far as the scan can tell.
type origin int

const (
	originNone       origin = iota
	originOutput            // the model under test's ModelOutput (state.output)
	originCompletion        // its text: output.completion, output.message.text
	originJudge             // a judge's reply: await <model>.generate(...)
)

func (o origin) String() string {
	switch o {
	case originOutput:
		return "the model under test's output"
	case originCompletion:
		return "the model under test's completion"
	case originJudge:
		return "a judge's reply"
	}
	return "an untraced value"
}

// seeds gives the origin of a function's parameters when it is analysed for
// one call (a helper called with the completion). A nil map means none.
type seeds map[string]origin

func (s seeds) key() string {
	if len(s) == 0 {
		return ""
	}
	var parts []string
	for k, v := range s {
		parts = append(parts, k+"="+string(rune('0'+v)))
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

type factKind int

const (
	factEmptyText      factKind = iota + 1 // tests the completion text for emptiness
	factNoChoices                          // reads output.empty (no choices, not empty text)
	factDeadCheck                          // tests a ModelOutput's truthiness: always true
	factRefusalRead                        // reads stop_reason / stop_details / refusal
	factRefusalSetting                     // fail_on_refusal= / retry_refusals=
)

// fact is one thing criterion 1 or 4 looks for, found in a function's own
// body.
type fact struct {
	kind   factKind
	fn     *function
	node   *node
	origin origin // of the value read (refusal reads)
	what   string // the attribute or keyword
}

// screens reports whether the fact, placed before a judge call, keeps an
// empty or refused reply away from the judge.
func (f fact) screens() bool {
	return f.kind == factEmptyText || f.kind == factRefusalRead && f.origin == originOutput
}

func (f fact) describe() string {
	src := f.fn.mod.src
	code := clip(strings.Join(strings.Fields(f.node.text(src)), " "), 80)
	switch f.kind {
	case factEmptyText:
		return "tests the completion for emptiness: `" + code + "`"
	case factNoChoices:
		return "reads output.empty, which is true only when there are no choices, not for an empty text: `" + code + "`"
	case factDeadCheck:
		return "tests a ModelOutput's truthiness, which is always true, so the check never fires: `" + code + "`"
	case factRefusalRead:
		return refusalAttrs[f.what] + " of " + f.originText() + ": `" + code + "`"
	case factRefusalSetting:
		return refusalKeywords[f.what] + ": `" + code + "`"
	}
	return code
}

// summary is the detail of a finding made of the fact itself; the code
// column already shows the line.
func (f fact) summary() string {
	switch f.kind {
	case factEmptyText:
		return "tests the completion for emptiness"
	case factNoChoices:
		return "reads output.empty, which is true only when there are no choices: an empty text is not caught"
	case factDeadCheck:
		return "tests a ModelOutput's truthiness, which is always true: the check never fires"
	case factRefusalRead:
		return refusalAttrs[f.what] + " of " + f.originText()
	case factRefusalSetting:
		return refusalKeywords[f.what] + ": " + strings.Join(strings.Fields(f.node.text(f.fn.mod.src)), " ")
	}
	return ""
}

// originText says whose output a refusal read looks at.
func (f fact) originText() string {
	if f.origin != originNone {
		return f.origin.String()
	}
	obj := f.node.child("object")
	return "`" + strings.Join(strings.Fields(obj.text(f.fn.mod.src)), " ") + "` (not traced to the model under test or a judge)"
}

type factKey struct {
	fn    *function
	seeds string
}

// ownFacts finds the facts in f's own body (nested defs are functions of
// their own). sd gives the origin of f's parameters.
func (a *analyzer) ownFacts(f *function, sd seeds) []fact {
	key := factKey{f, sd.key()}
	if fs, ok := a.factMemo[key]; ok {
		return fs
	}
	ctx := scope{f: f, sd: sd}
	src := f.mod.src
	var out []fact
	add := func(kind factKind, n *node, o origin, what string) {
		out = append(out, fact{kind: kind, fn: f, node: n, origin: o, what: what})
	}
	truth := func(e, at *node) {
		e = unparen(e)
		if e.kind == "call" {
			if name := src2(src, e.child("function")); name == "len" || name == "bool" {
				if args := e.child("arguments").namedChildren(); len(args) == 1 {
					e = unparen(args[0])
				}
			}
		}
		switch a.origin(ctx, e, 0) {
		case originCompletion:
			add(factEmptyText, at, originCompletion, "")
		case originOutput:
			add(factDeadCheck, at, originOutput, "")
		}
	}
	walkOwn(f, func(n *node) {
		switch n.kind {
		case "not_operator":
			truth(n.child("argument"), n)
		case "if_statement", "elif_clause", "while_statement":
			for _, op := range truthOperands(n.child("condition")) {
				truth(op, op)
			}
		case "conditional_expression":
			if parts := n.namedChildren(); len(parts) == 3 {
				for _, op := range truthOperands(parts[1]) {
					truth(op, op)
				}
			}
		case "assert_statement":
			if parts := n.namedChildren(); len(parts) > 0 {
				for _, op := range truthOperands(parts[0]) {
					truth(op, op)
				}
			}
		case "comparison_operator":
			if a.comparesEmpty(ctx, n) {
				add(factEmptyText, n, originCompletion, "")
			}
		case "attribute":
			if n.field == "left" {
				break
			}
			attr := n.child("attribute").text(src)
			if attr == "empty" && a.origin(ctx, n.child("object"), 0) == originOutput {
				add(factNoChoices, n, originOutput, attr)
			}
			if _, ok := refusalAttrs[attr]; ok {
				add(factRefusalRead, n, a.origin(ctx, n.child("object"), 0), attr)
			}
		case "keyword_argument":
			name := n.child("name").text(src)
			if _, ok := refusalKeywords[name]; ok {
				add(factRefusalSetting, n, originNone, name)
			}
		}
	})
	a.factMemo[key] = out
	return out
}

// truthOperands splits a condition into the operands whose truthiness it
// tests; `not x` operands are left to the not_operator case.
func truthOperands(cond *node) []*node {
	cond = unparen(cond)
	if cond == nil {
		return nil
	}
	switch cond.kind {
	case "boolean_operator":
		return append(truthOperands(cond.child("left")), truthOperands(cond.child("right"))...)
	case "not_operator":
		return nil
	}
	return []*node{cond}
}

// comparesEmpty matches `completion == ""`, `"" != text.strip()`,
// `len(completion) == 0` and the like.
func (a *analyzer) comparesEmpty(ctx scope, n *node) bool {
	src := ctx.f.mod.src
	var ops []*node
	var operators []string
	for _, c := range n.children {
		if c.named {
			ops = append(ops, c)
		} else {
			operators = append(operators, c.text(src))
		}
	}
	for i := 0; i+1 < len(ops) && i < len(operators); i++ {
		l, r := unparen(ops[i]), unparen(ops[i+1])
		switch operators[i] {
		case "==", "!=", "is", "is not":
			if isEmptyString(src, r) && a.origin(ctx, l, 0) == originCompletion ||
				isEmptyString(src, l) && a.origin(ctx, r, 0) == originCompletion {
				return true
			}
		}
		op := operators[i]
		if a.isLenOfCompletion(ctx, r) {
			l, r, op = r, l, mirror[op]
		}
		if a.isLenOfCompletion(ctx, l) && r.kind == "integer" && lenEmptyTests[op+" "+r.text(src)] {
			return true
		}
	}
	return false
}

func (a *analyzer) isLenOfCompletion(ctx scope, e *node) bool {
	if e.kind != "call" || src2(ctx.f.mod.src, e.child("function")) != "len" {
		return false
	}
	args := e.child("arguments").namedChildren()
	return len(args) == 1 && a.origin(ctx, args[0], 0) == originCompletion
}

func isEmptyString(src []byte, e *node) bool {
	if e.kind != "string" {
		return false
	}
	t := e.text(src)
	return t == `""` || t == `''`
}

// lenEmptyTests are the comparisons of len(x) with a constant that tell an
// empty x from a non-empty one.
var lenEmptyTests = set("== 0", "!= 0", "> 0", "<= 0", "< 1", ">= 1")

var mirror = map[string]string{"==": "==", "!=": "!=", "<": ">", ">": "<", "<=": ">=", ">=": "<=", "is": "is", "is not": "is not", "in": "", "not in": ""}

// src2 is the text of an identifier node, or "" for anything else.
func src2(src []byte, e *node) string {
	if e == nil || e.kind != "identifier" {
		return ""
	}
	return e.text(src)
}

// walkOwn visits the nodes of f's own body in source order, skipping nested
// defs and classes.
func walkOwn(f *function, fn func(*node)) {
	var visit func(n *node)
	visit = func(n *node) {
		for _, c := range n.children {
			if isScope(c) {
				continue
			}
			fn(c)
			visit(c)
		}
	}
	if f.isModuleBody() {
		visit(f.mod.root)
		return
	}
	visit(f.body)
}

// scope is a function being analysed together with the origins of its
// parameters.
type scope struct {
	f  *function
	sd seeds
}

// origin tells what e holds in ctx: the model under test's output, its
// completion text, or a judge's reply.
func (a *analyzer) origin(ctx scope, e *node, depth int) origin {
	e = unparen(e)
	if e == nil || depth > 8 {
		return originNone
	}
	f, src := ctx.f, ctx.f.mod.src
	switch e.kind {
	case "attribute":
		obj := e.child("object")
		switch e.child("attribute").text(src) {
		case "output":
			if a.isState(f, obj, depth+1) {
				return originOutput
			}
		case "completion":
			if a.origin(ctx, obj, depth+1) == originOutput {
				return originCompletion
			}
		case "text", "content":
			if o := unparen(obj); o.kind == "attribute" && o.child("attribute").text(src) == "message" &&
				a.origin(ctx, o.child("object"), depth+1) == originOutput {
				return originCompletion
			}
		}
	case "call":
		callee := unparen(e.child("function"))
		switch callee.kind {
		case "attribute":
			name := callee.child("attribute").text(src)
			if textMethods[name] && a.origin(ctx, callee.child("object"), depth+1) == originCompletion {
				return originCompletion
			}
			if name == "generate" && a.isModel(f, callee.child("object"), depth+1) {
				return originJudge
			}
		case "identifier":
			if callee.text(src) == "str" {
				if args := e.child("arguments").namedChildren(); len(args) == 1 {
					return a.origin(ctx, args[0], depth+1)
				}
			}
		}
	case "subscript":
		// completion.split("ANSWER:")[-1], completion[:100]
		if a.origin(ctx, e.child("value"), depth+1) == originCompletion {
			return originCompletion
		}
	case "await":
		if inner := e.namedChildren(); len(inner) == 1 {
			return a.origin(ctx, inner[0], depth+1)
		}
	case "boolean_operator":
		if o := a.origin(ctx, e.child("left"), depth+1); o != originNone {
			return o
		}
		return a.origin(ctx, e.child("right"), depth+1)
	case "conditional_expression":
		parts := e.namedChildren()
		if len(parts) == 3 {
			if o := a.origin(ctx, parts[0], depth+1); o != originNone {
				return o
			}
			return a.origin(ctx, parts[2], depth+1)
		}
	case "identifier":
		name := e.text(src)
		sc, p, values := f.lookup(name)
		if p != nil {
			if sc == ctx.f {
				return ctx.sd[name]
			}
			return originNone
		}
		for _, v := range values {
			if o := a.origin(scope{f: sc, sd: ctx.sdFor(sc)}, v, depth+1); o != originNone {
				return o
			}
		}
	}
	return originNone
}

// isState reports whether e holds a TaskState (or AgentState): a name
// `state`, a parameter annotated with one, or a name assigned one.
func (a *analyzer) isState(f *function, e *node, depth int) bool {
	e = unparen(e)
	if e == nil || e.kind != "identifier" || depth > 8 {
		return false
	}
	name := e.text(f.mod.src)
	if name == "state" {
		return true
	}
	sc, p, values := f.lookup(name)
	if p != nil {
		return p.ann != nil && mentions(sc.mod.src, p.ann, stateTypes)
	}
	for _, v := range values {
		if a.isState(sc, v, depth+1) {
			return true
		}
	}
	return false
}

// sdFor keeps the seeds when a lookup lands in the same function.
func (s scope) sdFor(f *function) seeds {
	if f == s.f {
		return s.sd
	}
	return nil
}

// isModel reports whether e holds a Model: get_model(...), a function of the
// package that returns one, a parameter annotated Model, or a name or
// self.<attr> assigned one of those.
func (a *analyzer) isModel(f *function, e *node, depth int) bool {
	e = unparen(e)
	if e == nil || depth > 8 {
		return false
	}
	src := f.mod.src
	switch e.kind {
	case "call":
		callee := e.child("function")
		if modelFactories[f.mod.baseName(callee)] {
			return true
		}
		if g := f.resolveFunc(callee); g != nil {
			return a.returnsModel(g, depth+1)
		}
	case "identifier":
		sc, p, values := f.lookup(e.text(src))
		if p != nil {
			return p.ann != nil && mentions(sc.mod.src, p.ann, modelTypes)
		}
		for _, v := range values {
			if a.isModel(sc, v, depth+1) {
				return true
			}
		}
	case "attribute":
		obj := unparen(e.child("object"))
		if obj.kind == "identifier" && obj.text(src) == "self" {
			if c := f.enclosingClass(); c != nil {
				for _, v := range c.attrs[e.child("attribute").text(src)] {
					if a.isModel(f, v, depth+1) {
						return true
					}
				}
			}
		}
	case "await":
		for _, c := range e.namedChildren() {
			return a.isModel(f, c, depth+1)
		}
	case "conditional_expression", "boolean_operator":
		for _, c := range e.namedChildren() {
			if a.isModel(f, c, depth+1) {
				return true
			}
		}
	}
	return false
}

// returnsModel reports whether some return statement of g returns a Model.
func (a *analyzer) returnsModel(g *function, depth int) bool {
	if v, ok := a.modelMemo[g]; ok {
		return v
	}
	a.modelMemo[g] = false // cuts recursion
	found := false
	walkOwn(g, func(n *node) {
		if found || n.kind != "return_statement" {
			return
		}
		for _, e := range n.namedChildren() {
			if a.isModel(g, e, depth) {
				found = true
			}
		}
	})
	a.modelMemo[g] = found
	return found
}

// mentions reports whether an annotation names one of the types.
func mentions(src []byte, ann *node, types map[string]bool) bool {
	found := false
	walk(ann, func(n *node) bool {
		if n.kind == "identifier" && types[n.text(src)] {
			found = true
		}
		return !found
	})
	return found
}

// isScorer reports whether f is, or is nested in, a scorer: decorated
// @scorer, annotated `-> Scorer`, or taking (state, target).
func (a *analyzer) isScorer(f *function) bool {
	for s := f; s != nil && !s.isModuleBody(); s = s.parent {
		for _, d := range s.decorators {
			if scorerDecorators[d] {
				return true
			}
		}
		if s.returns != nil && mentions(s.mod.src, s.returns, scorerTypes) {
			return true
		}
		_, hasState := s.param("state")
		_, hasTarget := s.param("target")
		if hasState && hasTarget {
			return true
		}
	}
	return false
}

// callSeeds maps the arguments of call (in ctx) to the parameters of g and
// keeps those whose origin is known.
func (a *analyzer) callSeeds(ctx scope, call *node, g *function) seeds {
	src := ctx.f.mod.src
	params := g.params
	if g.class != nil && len(params) > 0 && (params[0].name == "self" || params[0].name == "cls") {
		params = params[1:]
	}
	var sd seeds
	set := func(name string, e *node) {
		if o := a.origin(ctx, e, 0); o != originNone {
			if sd == nil {
				sd = seeds{}
			}
			sd[name] = o
		}
	}
	i := 0
	for _, arg := range call.child("arguments").namedChildren() {
		switch arg.kind {
		case "keyword_argument":
			name := arg.child("name").text(src)
			if _, ok := g.param(name); ok {
				set(name, arg.child("value"))
			}
		case "list_splat", "dictionary_splat":
			i = len(params)
		default:
			if i < len(params) {
				set(params[i].name, arg)
			}
			i++
		}
	}
	return sd
}

// deepFacts is ownFacts of g plus the facts of its nested defs and of the
// package functions it calls, to a small depth, each analysed with the
// origins its call passes in. It answers "does this helper test the
// completion" for a call site.
func (a *analyzer) deepFacts(g *function, sd seeds, depth int) []fact {
	if depth > 3 {
		return nil
	}
	out := append([]fact(nil), a.ownFacts(g, sd)...)
	ctx := scope{f: g, sd: sd}
	for _, n := range g.nested {
		out = append(out, a.deepFacts(n, nil, depth+1)...)
	}
	walkOwn(g, func(n *node) {
		if n.kind != "call" {
			return
		}
		if h := g.resolveFunc(n.child("function")); h != nil && h != g {
			out = append(out, a.deepFacts(h, a.callSeeds(ctx, n, h), depth+1)...)
		}
	})
	return out
}

// wrapperFacts is ownFacts of g and of its nested defs: what a wrapper like
// preset_score_on_no_response does before calling the scorer it was given.
func (a *analyzer) wrapperFacts(g *function) []fact {
	out := append([]fact(nil), a.ownFacts(g, nil)...)
	for _, n := range g.nested {
		out = append(out, a.wrapperFacts(n)...)
	}
	return out
}
