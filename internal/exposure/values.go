package exposure

import (
	"strconv"
	"strings"
)

func itoa(i int) string { return strconv.Itoa(i) }

// constValue resolves e (in f) to a literal: directly, through a local or
// module constant, a parameter default, a constant imported from another
// module of the package, or `module.CONST`. trail says how, step by step.
func (a *analyzer) constValue(f *function, e *node, depth int) (val string, trail []string, ok bool) {
	e = unparen(e)
	if e == nil || depth > 6 {
		return "", nil, false
	}
	src := f.mod.src
	switch e.kind {
	case "integer", "float", "string", "true", "false", "none":
		return e.text(src), nil, true
	case "unary_operator":
		if v, t, ok := a.constValue(f, e.child("argument"), depth+1); ok {
			return strings.TrimSpace(e.text(src)[:len(e.text(src))-len(e.child("argument").text(src))]) + v, t, true
		}
	case "binary_operator":
		l, lt, lok := a.constValue(f, e.child("left"), depth+1)
		r, rt, rok := a.constValue(f, e.child("right"), depth+1)
		if lok && rok {
			if v, ok := intArith(l, e.child("operator").text(src), r); ok {
				return v, append(lt, rt...), true
			}
		}
	case "identifier":
		name := e.text(src)
		sc, p, values := f.lookup(name)
		switch {
		case p != nil && p.def != nil:
			v, t, ok := a.constValue(sc, p.def, depth+1)
			return v, append([]string{"default of parameter " + name + " of " + sc.qual + " (" + sc.mod.file + ":" + itoa(p.def.line()) + ")"}, t...), ok
		case p != nil:
			return "", []string{"parameter " + name + " of " + sc.qual + " has no default"}, false
		case len(values) > 0:
			v := lastBefore(values, e, sc == f)
			val, t, ok := a.constValue(sc, v, depth+1)
			return val, append([]string{name + " (" + sc.mod.file + ":" + itoa(v.line()) + ")"}, t...), ok
		}
	case "attribute":
		obj := unparen(e.child("object"))
		if obj.kind == "identifier" {
			if mod := f.importedModule(obj.text(src)); mod != nil {
				name := e.child("attribute").text(src)
				if vs := mod.top.assigns[name]; len(vs) > 0 {
					v := vs[len(vs)-1]
					val, t, ok := a.constValue(mod.top, v, depth+1)
					return val, append([]string{e.text(src) + " (" + mod.file + ":" + itoa(v.line()) + ")"}, t...), ok
				}
			}
		}
	}
	return "", nil, false
}

// lastBefore picks the assignment that holds at use: the last one before it
// in the same function, else the last one.
func lastBefore(values []*node, use *node, sameScope bool) *node {
	if sameScope {
		var best *node
		for _, v := range values {
			if v.start < use.start {
				best = v
			}
		}
		if best != nil {
			return best
		}
	}
	return values[len(values)-1]
}

func intArith(l, op, r string) (string, bool) {
	x, err1 := strconv.ParseInt(strings.ReplaceAll(l, "_", ""), 0, 64)
	y, err2 := strconv.ParseInt(strings.ReplaceAll(r, "_", ""), 0, 64)
	if err1 != nil || err2 != nil {
		return "", false
	}
	switch op {
	case "+":
		return strconv.FormatInt(x+y, 10), true
	case "-":
		return strconv.FormatInt(x-y, 10), true
	case "*":
		return strconv.FormatInt(x*y, 10), true
	case "//":
		if y != 0 {
			return strconv.FormatInt(x/y, 10), true
		}
	}
	return "", false
}

// tokensTarget says which model a max_tokens keyword configures, from the
// calls around it: the model under test (Task config, the generate solver),
// a judge (get_model config, a scorer), or something the scan cannot tell. A
// GenerateConfig assigned to a name is followed to where the name is used.
func (a *analyzer) tokensTarget(f *function, kw *node) string {
	if t := a.targetOf(f, kw, 0); t != "" {
		return t
	}
	if a.isScorer(f) {
		return "the judge (inside a scorer)"
	}
	if calls := a.callsAround(f, kw); len(calls) > 0 {
		var names []string
		for _, c := range calls {
			names = append(names, c.name)
		}
		return "a target the scan cannot tell (argument of " + strings.Join(names, " in ") + ")"
	}
	return "a target the scan cannot tell"
}

// targetOf classifies x (in f) by the calls it is an argument of, following
// an assignment of the outermost value to a name once or twice.
func (a *analyzer) targetOf(f *function, x *node, depth int) string {
	inScorer := a.isScorer(f)
	for _, c := range a.callsAround(f, x) {
		if c.fn != nil {
			// A function of the package: a scorer factory takes the judge's
			// config; other helpers are looked through.
			if a.isScorer(c.fn) {
				return "the judge (config handed to scorer " + c.fn.qual + ")"
			}
			continue
		}
		switch c.name {
		case "Task":
			return "the model under test (Task config)"
		case "get_model":
			if inScorer {
				return "the judge (get_model config in a scorer)"
			}
			return "a model from get_model (a judge or helper model)"
		case "<model>.generate":
			if inScorer {
				return "the judge (generate call in a scorer)"
			}
			return "a model from get_model (generate call)"
		case "generate":
			return "the model under test (generate solver)"
		case "GenerateConfig", "dict":
			continue
		default:
			if isSolverName(c.name) {
				return "the model under test (" + c.name + " solver)"
			}
			// An unknown call stands between the value and any Task(...)
			// further out.
			return ""
		}
	}
	if depth >= 2 {
		return ""
	}
	// config = GenerateConfig(max_tokens=...) ... Task(config=config)
	top := x
	for top.parent != nil && !isScope(top.parent) && top.parent.kind != "assignment" &&
		top.parent.kind != "expression_statement" && top.parent.kind != "return_statement" && top.parent.kind != "block" {
		top = top.parent
	}
	if p := top.parent; p != nil && p.kind == "assignment" && top.field == "right" {
		if left := p.child("left"); left.kind == "identifier" {
			for _, r := range a.varRefs(f, left.text(f.mod.src), p) {
				if t := a.targetOf(r.mod.enclosing(r.n), r.n, depth+1); t != "" {
					return t
				}
			}
		}
	}
	return ""
}

// around is a call that an expression is an argument of.
type around struct {
	name string    // GenerateConfig, Task, get_model, generate; <model>.generate for generate on a model
	fn   *function // the package function called, if it is one
}

// callsAround lists the calls x is an argument of, innermost first, within
// its function.
func (a *analyzer) callsAround(f *function, x *node) []around {
	var calls []around
	for n := x; n.parent != nil && !isScope(n.parent); n = n.parent {
		p := n.parent
		if p.kind != "call" || n.field != "arguments" {
			continue
		}
		callee := unparen(p.child("function"))
		name := f.mod.baseName(callee)
		if callee.kind == "attribute" && name == "generate" && a.isModel(f, callee.child("object"), 0) {
			name = "<model>.generate"
		} else if callee.kind == "attribute" {
			name = calleeText(f.mod.src, callee)
		}
		if name != "" {
			calls = append(calls, around{name: name, fn: f.resolveFunc(callee)})
		}
	}
	return calls
}

// isSolverName lists inspect_ai solvers that take max_tokens for the model
// under test.
func isSolverName(name string) bool {
	switch name {
	case "multiple_choice", "chain_of_thought", "self_critique", "react", "basic_agent":
		return true
	}
	return false
}
