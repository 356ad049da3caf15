package exposure

import (
	"strings"
)

// index records the module's functions, classes, imports, assignments and
// identifiers in one walk.
func (m *module) index() {
	m.top = &function{
		mod: m, body: m.root, name: "<module>", qual: "<module>",
		nested: map[string]*function{}, assigns: map[string][]*node{},
	}
	for _, c := range m.root.children {
		m.indexNode(c, m.top, nil)
	}
}

// indexNode indexes n inside function fn; cls is set while directly inside a
// class body.
func (m *module) indexNode(n *node, fn *function, cls *class) {
	switch n.kind {
	case "function_definition":
		f := m.newFunction(n, fn, cls)
		for _, c := range n.children {
			m.indexNode(c, f, nil)
		}
		return
	case "class_definition":
		name := n.child("name").text(m.src)
		if name == "" {
			break
		}
		c := m.classes[name]
		if c == nil {
			c = &class{name: name, methods: map[string]*function{}, attrs: map[string][]*node{}}
			m.classes[name] = c
		}
		for _, ch := range n.children {
			m.indexNode(ch, fn, c)
		}
		return
	case "assignment", "named_expression":
		left, right := n.child("left"), n.child("right")
		if n.kind == "named_expression" {
			left, right = n.child("name"), n.child("value")
		}
		if right != nil && left != nil && cls == nil {
			switch left.kind {
			case "identifier":
				name := left.text(m.src)
				fn.assigns[name] = append(fn.assigns[name], right)
			case "attribute":
				if obj := left.child("object"); obj.kind == "identifier" && obj.text(m.src) == "self" {
					if c := fn.enclosingClass(); c != nil {
						attr := left.child("attribute").text(m.src)
						c.attrs[attr] = append(c.attrs[attr], right)
					}
				}
			}
		}
	case "import_statement", "import_from_statement":
		m.indexImport(n)
		return
	case "identifier":
		t := n.text(m.src)
		m.idents[t] = append(m.idents[t], n)
	}
	for _, c := range n.children {
		m.indexNode(c, fn, cls)
	}
}

func (m *module) newFunction(def *node, parent *function, cls *class) *function {
	f := &function{
		mod:     m,
		def:     def,
		body:    def.child("body"),
		name:    def.child("name").text(m.src),
		parent:  parent,
		class:   cls,
		nested:  map[string]*function{},
		assigns: map[string][]*node{},
	}
	switch {
	case cls != nil && parent.def == nil:
		f.qual = cls.name + "." + f.name
	case cls != nil:
		f.qual = parent.qual + "." + cls.name + "." + f.name
	case parent.def == nil:
		f.qual = f.name
	default:
		f.qual = parent.qual + "." + f.name
	}
	if def.has("return_type") {
		f.returns = def.child("return_type")
	}
	if cls != nil {
		cls.methods[f.name] = f
	} else {
		parent.nested[f.name] = f
	}
	if dd := def.parent; dd != nil && dd.kind == "decorated_definition" {
		for _, d := range dd.children {
			if d.kind == "decorator" {
				if e := d.namedChildren(); len(e) > 0 {
					f.decorators = append(f.decorators, m.baseName(e[0]))
				}
			}
		}
	}
	for _, p := range def.child("parameters").namedChildren() {
		var pr param
		switch p.kind {
		case "identifier":
			pr.name = p.text(m.src)
		case "typed_parameter":
			for _, c := range p.namedChildren() {
				if c.kind == "identifier" && c.field == "" {
					pr.name = c.text(m.src)
				}
			}
			pr.ann = p.child("type")
		case "default_parameter", "typed_default_parameter":
			pr.name = p.child("name").text(m.src)
			pr.def = p.child("value")
			if p.has("type") {
				pr.ann = p.child("type")
			}
		}
		if pr.name != "" {
			f.params = append(f.params, pr)
		}
	}
	m.fnOf[def] = f
	return f
}

// indexImport binds the names an import statement introduces.
func (m *module) indexImport(n *node) {
	if n.kind == "import_statement" {
		for _, c := range n.children {
			if c.field == "name" && c.kind == "aliased_import" {
				m.imports[c.child("alias").text(m.src)] = importRef{module: c.child("name").text(m.src)}
			}
		}
		return
	}
	from := m.absModule(n.child("module_name"))
	if from == "" {
		return
	}
	for _, c := range n.children {
		if c.field != "name" {
			continue
		}
		switch c.kind {
		case "dotted_name":
			name := c.text(m.src)
			m.imports[name] = importRef{module: from, name: name}
		case "aliased_import":
			m.imports[c.child("alias").text(m.src)] = importRef{module: from, name: c.child("name").text(m.src)}
		}
	}
}

// absModule resolves the module of a from-import, relative ones included.
func (m *module) absModule(n *node) string {
	if n.kind == "dotted_name" {
		return n.text(m.src)
	}
	if n.kind != "relative_import" {
		return ""
	}
	// relative_import: import_prefix ("." or "..") and an optional dotted_name.
	pkgName := m.name
	if !m.isInit {
		pkgName = parentModule(pkgName)
	}
	var rest string
	for _, c := range n.children {
		switch c.kind {
		case "import_prefix":
			for range len(strings.TrimSpace(c.text(m.src))) - 1 {
				pkgName = parentModule(pkgName)
			}
		case "dotted_name":
			rest = c.text(m.src)
		}
	}
	if rest == "" {
		return pkgName
	}
	return pkgName + "." + rest
}

func parentModule(name string) string {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		return name[:i]
	}
	return ""
}

// baseName is the name a callee or decorator expression ends in, through
// import aliases: `mgqa` imported as `model_graded_qa as mgqa` gives
// model_graded_qa, `inspect_model.get_model` gives get_model, and a call
// `scorer(metrics=...)` gives scorer.
func (m *module) baseName(e *node) string {
	e = unparen(e)
	switch e.kind {
	case "identifier":
		name := e.text(m.src)
		if ref, ok := m.imports[name]; ok && ref.name != "" {
			return ref.name
		}
		return name
	case "attribute":
		return e.child("attribute").text(m.src)
	case "call":
		return m.baseName(e.child("function"))
	}
	return ""
}

func (f *function) param(name string) (param, bool) {
	for _, p := range f.params {
		if p.name == name {
			return p, true
		}
	}
	return param{}, false
}

func (f *function) enclosingClass() *class {
	for s := f; s != nil; s = s.parent {
		if s.class != nil {
			return s.class
		}
	}
	return nil
}

// isModuleBody reports whether f stands for module-level code.
func (f *function) isModuleBody() bool { return f.def == nil }

// where is "file:line" of the function's def.
func (f *function) where() string {
	if f.def == nil {
		return f.mod.file
	}
	return f.mod.file + ":" + itoa(f.def.line())
}

// enclosing returns the innermost function whose own code contains n.
func (m *module) enclosing(n *node) *function {
	for p := n.parent; p != nil; p = p.parent {
		if p.kind == "function_definition" && p.child("body").contains(n) {
			return m.fnOf[p]
		}
	}
	return m.top
}

// resolveImport follows an import to a function or module of the package,
// through re-exports in __init__ files.
func (p *pkg) resolveImport(ref importRef, depth int) (*function, *module) {
	tm := p.byName[ref.module]
	if ref.name == "" || depth > 5 {
		return nil, tm
	}
	if tm != nil {
		if f := tm.top.nested[ref.name]; f != nil {
			return f, nil
		}
		if r, ok := tm.imports[ref.name]; ok {
			return p.resolveImport(r, depth+1)
		}
	}
	if sub := p.byName[ref.module+"."+ref.name]; sub != nil {
		return nil, sub
	}
	return nil, nil
}

// resolveFunc resolves a callee expression in f to a function of the
// package: a def in an enclosing scope or at module level, a name imported
// from another module of the package, `module.name` for an imported module,
// or `self.name` for a method of the enclosing class. It returns nil for
// anything else (a variable, a library function, a method of another object).
func (f *function) resolveFunc(e *node) *function {
	m := f.mod
	e = unparen(e)
	switch e.kind {
	case "identifier":
		name := e.text(m.src)
		for s := f; s != nil; s = s.parent {
			if g := s.nested[name]; g != nil {
				return g
			}
			if _, ok := s.param(name); ok {
				return nil
			}
			if _, ok := s.assigns[name]; ok {
				return nil
			}
		}
		if ref, ok := m.imports[name]; ok {
			g, _ := m.pkg.resolveImport(ref, 0)
			return g
		}
	case "attribute":
		obj, attr := unparen(e.child("object")), e.child("attribute").text(m.src)
		if obj.kind != "identifier" {
			return nil
		}
		if name := obj.text(m.src); name == "self" || name == "cls" {
			if c := f.enclosingClass(); c != nil {
				return c.methods[attr]
			}
			return nil
		}
		if mod := f.importedModule(obj.text(m.src)); mod != nil {
			if g := mod.top.nested[attr]; g != nil {
				return g
			}
			if r, ok := mod.imports[attr]; ok {
				g, _ := m.pkg.resolveImport(r, 1)
				return g
			}
		}
	}
	return nil
}

// importedModule returns the package module a local name is bound to by an
// import, or nil.
func (f *function) importedModule(name string) *module {
	ref, ok := f.mod.imports[name]
	if !ok {
		return nil
	}
	_, mod := f.mod.pkg.resolveImport(ref, 0)
	return mod
}

// lookup finds the values assigned to name as seen from f: the innermost
// scope that binds it as a parameter (returned as the param) or by
// assignment. Module-level names imported from another package module are
// followed to that module.
func (f *function) lookup(name string) (scope *function, p *param, values []*node) {
	return f.lookupDepth(name, 0)
}

func (f *function) lookupDepth(name string, depth int) (scope *function, p *param, values []*node) {
	for s := f; s != nil; s = s.parent {
		if pr, ok := s.param(name); ok {
			return s, &pr, nil
		}
		if vs, ok := s.assigns[name]; ok {
			return s, nil, vs
		}
	}
	if ref, ok := f.mod.imports[name]; ok && ref.name != "" && depth < 5 {
		if tm := f.mod.pkg.byName[ref.module]; tm != nil {
			if vs, ok := tm.top.assigns[ref.name]; ok {
				return tm.top, nil, vs
			}
			if r2, ok := tm.imports[ref.name]; ok && r2.name != "" {
				return tm.top.lookupDepth(ref.name, depth+1)
			}
		}
	}
	return nil, nil, nil
}
