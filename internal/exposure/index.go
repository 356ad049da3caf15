package exposure

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	ts "github.com/tree-sitter/go-tree-sitter"
	"golang.org/x/sync/errgroup"

	"empties/internal/cliutil"
)

// pkg is the parsed inspect_evals package found under PATH.
type pkg struct {
	base      string             // PATH as given
	root      string             // the package folder itself (…/inspect_evals)
	name      string             // its import name
	modules   []*module          // sorted by file
	byName    map[string]*module // dotted module name → module
	evals     []string           // eval folders, sorted
	badSyntax []string           // files tree-sitter had to recover from syntax errors
}

// module is one parsed Python file.
type module struct {
	pkg       *pkg
	file      string // relative to PATH, slash-separated
	rel       string // relative to the package root, slash-separated
	syntaxErr bool
	name      string // dotted import name
	isInit    bool
	eval      string // the eval folder it belongs to, or "" for a shared helper
	src       []byte
	root      *node
	top       *function // the module body, as a pseudo-function
	imports   map[string]importRef
	idents    map[string][]*node // every identifier by its text
	fnOf      map[*node]*function
	classes   map[string]*class
}

// class collects what the analysis needs of a class: its methods and the
// values assigned to self.<attr> in any of them.
type class struct {
	name    string
	methods map[string]*function
	attrs   map[string][]*node
}

// importRef is what an import binds a local name to.
type importRef struct {
	module string // absolute dotted module name
	name   string // the imported name, or "" when the module itself is bound
}

// function is a def (or the module body, with def == nil).
type function struct {
	mod        *module
	def        *node
	body       *node
	name       string
	qual       string // dotted path of enclosing defs and classes
	parent     *function
	class      *class // set for methods
	params     []param
	decorators []string // base names (scorer, task, ...)
	returns    *node    // the return annotation
	nested     map[string]*function
	assigns    map[string][]*node // local name → values assigned in the own body
}

type param struct {
	name string
	ann  *node // annotation, or nil
	def  *node // default value, or nil
}

// loadPackage finds the package under path, parses every .py file and
// indexes functions, imports and identifiers.
func loadPackage(ctx context.Context, base string) (*pkg, error) {
	root, err := packageRoot(base)
	if err != nil {
		return nil, err
	}
	p := &pkg{base: base, root: root, name: filepath.Base(root), byName: map[string]*module{}}
	var files []string
	err = filepath.WalkDir(root, func(file string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if file != root && (d.Name() == "__pycache__" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(d.Name(), ".py") {
			files = append(files, file)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", base, err)
	}
	if len(files) == 0 {
		return nil, cliutil.Usagef("%s: no Python files in %s", base, root)
	}
	sort.Strings(files)

	p.modules = make([]*module, len(files))
	g, ctx := errgroup.WithContext(ctx)
	next := make(chan int)
	g.Go(func() error {
		defer close(next)
		for i := range files {
			select {
			case next <- i:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return nil
	})
	for range runtime.GOMAXPROCS(0) {
		g.Go(func() error {
			parser, err := newParser()
			if err != nil {
				return fmt.Errorf("tree-sitter python grammar: %w", err)
			}
			defer parser.Close()
			for i := range next {
				m, err := p.parseModule(parser, files[i])
				if err != nil {
					return err
				}
				p.modules[i] = m
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}

	evals := map[string]bool{}
	for _, m := range p.modules {
		p.byName[m.name] = m
		if m.hasSyntaxError() {
			p.badSyntax = append(p.badSyntax, m.file)
		}
		if dir := m.topFolder(); dir != "" && m.definesTask() {
			evals[dir] = true
		}
	}
	for e := range evals {
		p.evals = append(p.evals, e)
	}
	sort.Strings(p.evals)
	for _, m := range p.modules {
		if dir := m.topFolder(); evals[dir] {
			m.eval = dir
		}
	}
	return p, nil
}

// packageRoot accepts a source tree (src/inspect_evals inside it), a folder
// holding the package (site-packages), or the package folder itself.
func packageRoot(base string) (string, error) {
	info, err := os.Stat(base)
	if errors.Is(err, fs.ErrNotExist) {
		return "", cliutil.Usagef("%s: no such folder", base)
	}
	if err != nil {
		return "", err
	}
	if !info.IsDir() {
		return "", cliutil.Usagef("%s: not a folder; give an inspect_evals source tree or package folder", base)
	}
	for _, sub := range []string{filepath.Join("src", "inspect_evals"), "inspect_evals"} {
		if fi, err := os.Stat(filepath.Join(base, sub)); err == nil && fi.IsDir() {
			return filepath.Join(base, sub), nil
		}
	}
	if _, err := os.Stat(filepath.Join(base, "__init__.py")); err == nil {
		return base, nil
	}
	return "", cliutil.Usagef("%s: no inspect_evals package here (looked for src/inspect_evals/, inspect_evals/ and __init__.py)", base)
}

// parseModule reads, parses and indexes one file.
func (p *pkg) parseModule(parser *ts.Parser, file string) (*module, error) {
	src, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	rel, err := filepath.Rel(p.root, file)
	if err != nil {
		return nil, err
	}
	relBase, err := filepath.Rel(p.base, file)
	if err != nil {
		return nil, err
	}
	root, hasErr, err := parsePython(parser, src)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", relBase, err)
	}
	m := &module{
		pkg:       p,
		file:      filepath.ToSlash(relBase),
		rel:       filepath.ToSlash(rel),
		src:       src,
		root:      root,
		syntaxErr: hasErr,
		imports:   map[string]importRef{},
		idents:    map[string][]*node{},
		fnOf:      map[*node]*function{},
		classes:   map[string]*class{},
	}
	m.name, m.isInit = moduleName(p.name, rel)
	m.index()
	return m, nil
}

// topFolder is the module's first folder below the package root, or "" for
// a module at the root.
func (m *module) topFolder() string {
	if i := strings.IndexByte(m.rel, '/'); i >= 0 {
		return m.rel[:i]
	}
	return ""
}

func (m *module) hasSyntaxError() bool { return m.syntaxErr }

// definesTask reports whether a function in the module is decorated @task.
func (m *module) definesTask() bool {
	for _, f := range m.fnOf {
		for _, d := range f.decorators {
			if taskDecorators[d] {
				return true
			}
		}
	}
	return false
}

// moduleName turns a file path below the package root into a dotted name.
func moduleName(pkgName, rel string) (name string, isInit bool) {
	rel = strings.TrimSuffix(filepath.ToSlash(rel), ".py")
	if path.Base(rel) == "__init__" {
		isInit = true
		rel = path.Dir(rel)
	}
	if rel == "." {
		return pkgName, isInit
	}
	return pkgName + "." + strings.ReplaceAll(rel, "/", "."), isInit
}
