package exposure

import (
	"errors"
	"strings"

	ts "github.com/tree-sitter/go-tree-sitter"
	tspython "github.com/tree-sitter/tree-sitter-python/bindings/go"
)

// node is one node of a Python syntax tree, copied out of tree-sitter once
// per file so that the analysis walks plain Go values instead of making a cgo
// call for every step. Anonymous nodes (operators, keywords, punctuation) are
// kept: comparisons need their operators.
type node struct {
	kind     string
	field    string // the field name under which the parent holds this node, or ""
	named    bool
	start    uint32 // byte offsets into the file
	end      uint32
	row      uint32 // 0-based line of start
	parent   *node
	children []*node
}

// newParser returns a tree-sitter parser for Python. Close it after use.
func newParser() (*ts.Parser, error) {
	p := ts.NewParser()
	if err := p.SetLanguage(ts.NewLanguage(tspython.Language())); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

// parsePython parses src and reports whether tree-sitter had to recover from
// syntax errors (the tree is still complete enough to scan).
func parsePython(p *ts.Parser, src []byte) (root *node, hasError bool, err error) {
	tree := p.Parse(src, nil)
	if tree == nil {
		return nil, false, errors.New("tree-sitter returned no tree")
	}
	defer tree.Close()
	c := tree.Walk()
	defer c.Close()
	kinds := map[uint16]string{}
	return copyTree(c, kinds), tree.RootNode().HasError(), nil
}

func copyTree(c *ts.TreeCursor, kinds map[uint16]string) *node {
	n := c.Node()
	id := n.KindId()
	kind, ok := kinds[id]
	if !ok {
		kind = n.Kind()
		kinds[id] = kind
	}
	out := &node{
		kind:  kind,
		named: n.IsNamed(),
		start: uint32(n.StartByte()),
		end:   uint32(n.EndByte()),
		row:   uint32(n.StartPosition().Row),
	}
	if c.GotoFirstChild() {
		for {
			ch := copyTree(c, kinds)
			ch.field = c.FieldName()
			ch.parent = out
			out.children = append(out.children, ch)
			if !c.GotoNextSibling() {
				break
			}
		}
		c.GotoParent()
	}
	return out
}

// text is the node's source text ("" for a missing node, which a tree
// recovered from syntax errors can have).
func (n *node) text(src []byte) string {
	if n == nil {
		return ""
	}
	return string(src[n.start:n.end])
}

// line is the 1-based line number of the node's start.
func (n *node) line() int {
	if n == nil {
		return 0
	}
	return int(n.row) + 1
}

// missing stands for a child a tree recovered from syntax errors lacks, so
// that callers can read .kind and .text without nil checks. Never modify it.
var missing = &node{kind: "MISSING"}

// child returns the first child held under field, or missing.
func (n *node) child(field string) *node {
	if n == nil {
		return missing
	}
	for _, c := range n.children {
		if c.field == field {
			return c
		}
	}
	return missing
}

// has reports whether n has a child under field.
func (n *node) has(field string) bool { return n.child(field) != missing }

// namedChildren returns the named children, comments left out.
func (n *node) namedChildren() []*node {
	if n == nil {
		return nil
	}
	var out []*node
	for _, c := range n.children {
		if c.named && c.kind != "comment" {
			out = append(out, c)
		}
	}
	return out
}

// contains reports whether m lies inside n (or is n).
func (n *node) contains(m *node) bool {
	return n != nil && m != nil && n.start <= m.start && m.end <= n.end
}

// unparen strips parentheses around an expression.
func unparen(n *node) *node {
	for n != nil && n.kind == "parenthesized_expression" {
		inner := n.namedChildren()
		if len(inner) != 1 {
			return n
		}
		n = inner[0]
	}
	return n
}

// walk calls fn for n and its descendants in source order; fn returns false
// to skip a node's children.
func walk(n *node, fn func(*node) bool) {
	if n == nil || !fn(n) {
		return
	}
	for _, c := range n.children {
		walk(c, fn)
	}
}

// isScope reports whether n opens a scope whose body the analysis of the
// enclosing function must not enter (its statements run elsewhere).
func isScope(n *node) bool {
	return n.kind == "function_definition" || n.kind == "class_definition"
}

// sourceLine is the trimmed source line on which n starts, for the code
// column.
func sourceLine(src []byte, n *node) string {
	lo := int(n.start)
	for lo > 0 && src[lo-1] != '\n' {
		lo--
	}
	hi := int(n.start)
	for hi < len(src) && src[hi] != '\n' {
		hi++
	}
	return strings.TrimSpace(string(src[lo:hi]))
}
