package serve

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"empties/internal/guard"
	"empties/internal/planfile"
	"empties/internal/store"
)

// ReportFunc writes the report page of the tables of a generation (the
// folder root) into the new folder out, as `empties report` writes it:
// stages/servecmd passes internal/report.Write, the code `empties report` builds
// its page with, so the page served is the page the command writes.
type ReportFunc func(ctx context.Context, root, out string, more ...string) error

// MeasuresFunc computes the exploration measures of the dataset at root
// (which it only reads) into the new folder out, a folder of tables:
// stages/servecmd passes internal/measures.Explore.
type MeasuresFunc func(ctx context.Context, root, out string) error

// reportState is a generation's report, written once into the server's
// scratch folder (never into the dataset) when the generation opens.
type reportState struct {
	once sync.Once
	done chan struct{}
	dir  string
	tmp  *guard.Temp // the folder dir is in
	err  error
	// computed: the measures were computed by the server, not read from
	// the dataset.
	computed bool
}

// start writes the report in the background.
//
// A dataset without an overview table (analyze has not run) gets its
// exploration measures computed by mf into the scratch folder first, and the
// report reads them beside the dataset's tables.
func (r *reportState) start(fn ReportFunc, mf MeasuresFunc, root, scratch string, n int) {
	r.once.Do(func() {
		r.done = make(chan struct{})
		go func() {
			defer close(r.done)
			if fn == nil {
				r.err = fmt.Errorf("this server was started without the report")
				return
			}
			tmp, err := guard.TempDir(scratch, fmt.Sprintf("report-%06d.", n))
			if err != nil {
				r.err = err
				return
			}
			r.tmp = tmp
			out := filepath.Join(tmp.Path, "report")
			var more []string
			if mf != nil && !store.HasTable(root, "overview") {
				dir := filepath.Join(tmp.Path, "measures")
				if err := mf(context.Background(), root, dir); err != nil {
					r.err = fmt.Errorf("computing the measures (the dataset has no overview table): %w", err)
					return
				}
				more, r.computed = []string{dir}, true
			}
			if err := fn(context.Background(), root, out, more...); err != nil {
				r.err = err
				return
			}
			r.dir = out
		}()
	})
}

// wait returns the report's folder once it is written.
func (r *reportState) wait(ctx context.Context) (string, error) {
	if r.done == nil {
		return "", fmt.Errorf("no report")
	}
	select {
	case <-r.done:
		return r.dir, r.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// remove deletes the report's scratch folder.
func (r *reportState) remove() {
	if r.done == nil {
		return
	}
	<-r.done
	r.tmp.Close() // also a report that failed half-written; a nil Temp is fine
}

// serveReport serves the generation's report folder: index.html with the
// server's bar put in at the top of its body, every other file as it is.
func (s *Server) serveReport(w http.ResponseWriter, r *http.Request, g *generation) {
	dir, err := g.report.wait(r.Context())
	if err != nil {
		s.errorPage(w, r, g, http.StatusInternalServerError, fmt.Errorf("the report could not be written: %w", err))
		return
	}
	rel := strings.TrimPrefix(path.Clean("/"+strings.TrimPrefix(r.URL.Path, "/report")), "/")
	if rel == "" || rel == "index.html" {
		page, err := os.ReadFile(filepath.Join(dir, "index.html"))
		if err != nil {
			s.errorPage(w, r, g, http.StatusInternalServerError, err)
			return
		}
		var bar bytes.Buffer
		if err := s.tmpl.ExecuteTemplate(&bar, "reportbar", s.pageData(r, g, "report", "")); err != nil {
			s.errorPage(w, r, g, http.StatusInternalServerError, err)
			return
		}
		if g.report.computed { // the note of frame.html: the command that stores the measures
			if err := s.tmpl.ExecuteTemplate(&bar, "computednote", "empties analyze --data "+planfile.ShellQuote(s.dir)); err != nil {
				s.errorPage(w, r, g, http.StatusInternalServerError, err)
				return
			}
		}
		page = injectBar(page, bar.Bytes())
		// The page brings its own policy (its scripts by hash, in a meta
		// element); the server's, which allows no inline script, would
		// stop them: only what a meta element cannot say is kept.
		w.Header().Set("Content-Security-Policy", "frame-ancestors 'none'; form-action 'self'")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(page)
		return
	}
	if strings.HasSuffix(rel, ".md") {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	}
	http.ServeFile(w, r, filepath.Join(dir, filepath.FromSlash(rel)))
}

// injectBar puts the server's bar (its style and its markup) at the top of
// the page's body; a page without a body gets it first.
func injectBar(page, bar []byte) []byte {
	i := bytes.Index(page, []byte("<body"))
	if i >= 0 {
		if j := bytes.IndexByte(page[i:], '>'); j >= 0 {
			i += j + 1
			return append(append(append([]byte{}, page[:i]...), bar...), page[i:]...)
		}
	}
	return append(append([]byte{}, bar...), page...)
}
