// Package serve is the server behind `empties serve`: a local web server
// over one dataset with the report, a browser of every reply (faceted,
// sorted and paged in DuckDB), a page per sample that tells its whole story
// from the log (decoded on demand, one sample member), and a read-only SQL
// box. It reads one pinned generation through a DuckDB locked read-only and
// writes nothing into the dataset: its only files (the report page it
// regenerates, DuckDB's spill files) are in a scratch folder of its own
// outside it, removed when it stops.
package serve

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"empties/internal/duck"
	"empties/internal/guard"
)

// Options configure a server.
type Options struct {
	// Data is the dataset folder (or a folder of tables).
	Data string
	// Loopback says the server listens on a loopback address only; then no
	// token is asked for, and requests must name a loopback host (so a page
	// of another site cannot reach the server through a DNS name bound to
	// 127.0.0.1).
	Loopback bool
	// Token, when not empty, must come with every request: ?token= once
	// (it is then kept in a cookie) or the cookie itself.
	Token string
	// SQL turns the SQL box on.
	SQL bool
	// SQLLimits bound each statement of the SQL box: its memory, spill,
	// threads and time (zero fields: DuckDB's defaults, no time limit;
	// `empties serve` sets its own).
	SQLLimits duck.Limits
	// Report writes a generation's report page (nil: no report).
	Report ReportFunc
	// Measures computes the exploration measures of a generation without
	// an overview table into the scratch, for its report (nil: the report
	// shows what the dataset holds).
	Measures MeasuresFunc
	// Poll is how often the server looks for a newer generation (0: 2s).
	Poll time.Duration
	// LogTimeout is the longest a request waits for a read of a log
	// (0: DefaultLogTimeout).
	LogTimeout time.Duration
}

// Server serves one dataset.
type Server struct {
	opts    Options
	dir     string // Data, absolute
	scratch string
	tmp     *guard.Temp // holds scratch
	tmpl    *template.Template
	logs    *logCache

	mu     sync.Mutex
	cur    *generation
	newest int // the newest generation seen on disk

	stop     chan struct{}
	wg       sync.WaitGroup
	releases sync.WaitGroup // generations released and not yet closed (generation.release)
}

//go:embed templates/*.html
var templateFS embed.FS

//go:embed assets
var assetFS embed.FS

// New opens the dataset's current generation and returns its server.
func New(ctx context.Context, opts Options) (*Server, error) {
	dir, err := filepath.Abs(opts.Data)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("%s: %w", opts.Data, err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("%s is a file, not a dataset folder", opts.Data)
	}
	// Scratch space outside the dataset, for the report page and DuckDB's
	// spill files: a marked temporary folder of the guard's, removed by
	// Close, or by the next server if this one is killed.
	tmp, err := guard.TempDir(os.TempDir(), "empties-serve.")
	if err != nil {
		return nil, err
	}
	scratch := tmp.Path
	s := &Server{opts: opts, dir: dir, scratch: scratch, tmp: tmp, logs: newLogCache(8, opts.LogTimeout), stop: make(chan struct{})}
	if s.opts.Poll <= 0 {
		s.opts.Poll = 2 * time.Second
	}
	if s.tmpl, err = parseTemplates(); err != nil {
		tmp.Close()
		return nil, err
	}
	g, err := openGeneration(ctx, dir, scratch, s.opts.Report, s.opts.Measures)
	if err != nil {
		tmp.Close()
		return nil, err
	}
	s.cur, s.newest = g, g.Number
	s.wg.Add(1)
	go s.watch()
	return s, nil
}

// Generation is the number of the generation the server shows.
func (s *Server) Generation() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cur.Number
}

// ObjectStats are the GETs the server made of logs in object storage and
// the bytes they returned.
func (s *Server) ObjectStats() (requests, bytes int64) {
	if s.logs.s3 == nil {
		return 0, 0
	}
	st := s.logs.s3.Stats()
	return st.Requests, st.Bytes
}

// Close stops the server's watcher, closes its database and removes its
// scratch folder.
func (s *Server) Close() error {
	close(s.stop)
	s.wg.Wait()
	s.mu.Lock()
	g := s.cur
	s.mu.Unlock()
	g.release(s.dir, &s.releases)
	s.releases.Wait() // every generation's database closed, its pin and report gone
	s.logs.close()
	return s.tmp.Close()
}

// watch notices a newer generation of the dataset; pages then offer it.
func (s *Server) watch() {
	defer s.wg.Done()
	t := time.NewTicker(s.opts.Poll)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			if n := currentNumber(s.dir); n > 0 {
				s.mu.Lock()
				if n > s.newest {
					s.newest = n
				}
				s.mu.Unlock()
			}
		}
	}
}

// acquire returns the generation a request reads; release it with done.
func (s *Server) acquire() *generation {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.cur
	g.refs.Add(1)
	return g
}

// switchGeneration opens the dataset's current generation and makes it the
// one pages show; the previous one closes once its requests are done.
func (s *Server) switchGeneration(ctx context.Context) error {
	if n := currentNumber(s.dir); n > 0 && n <= s.Generation() {
		return nil // nothing newer
	}
	g, err := openGeneration(ctx, s.dir, s.scratch, s.opts.Report, s.opts.Measures)
	if err != nil {
		return err
	}
	s.mu.Lock()
	old := s.cur
	if g.Number <= old.Number {
		s.mu.Unlock()
		if g.root != old.root {
			g.release(s.dir, &s.releases)
		} else { // the same generation: keep the one open, and its pin
			g.db.Close()
			g.report.remove()
		}
		return nil
	}
	s.cur = g
	s.newest = max(s.newest, g.Number)
	s.mu.Unlock()
	old.release(s.dir, &s.releases)
	return nil
}

// Handler is the server's HTTP handler.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	assets, _ := fs.Sub(assetFS, "assets")
	mux.Handle("GET /assets/", http.StripPrefix("/assets/", http.FileServerFS(assets)))
	// Every page reads the generation it acquired, until it is done.
	for pattern, page := range map[string]func(http.ResponseWriter, *http.Request, *generation){
		"GET /{$}": s.serveReport, "GET /report/": s.serveReport, "GET /replies": s.serveReplies,
		"GET /sample": s.serveSample, "GET /sample.json": s.serveSampleJSON, "GET /sql": s.serveSQL, "GET /sql.csv": s.serveSQLCSV,
	} {
		mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) { s.withGeneration(w, r, page) })
	}
	mux.HandleFunc("POST /switch", s.serveSwitch)
	return s.guard(mux)
}

func (s *Server) withGeneration(w http.ResponseWriter, r *http.Request, h func(http.ResponseWriter, *http.Request, *generation)) {
	g := s.acquire()
	defer g.refs.Done()
	h(w, r, g)
}

// serveSwitch moves the server to the dataset's current generation and
// sends the reader back to the page they were on.
func (s *Server) serveSwitch(w http.ResponseWriter, r *http.Request) {
	if err := s.switchGeneration(r.Context()); err != nil {
		g := s.acquire()
		defer g.refs.Done()
		s.errorPage(w, r, g, http.StatusInternalServerError, fmt.Errorf("switching to the newer generation: %w", err))
		return
	}
	http.Redirect(w, r, sameOriginPath(r.FormValue("back")), http.StatusSeeOther)
}

const tokenCookie = "empties_serve_token"

// guard refuses what the server must not answer: a request without the
// token (when one is set), a request on a loopback server naming another
// host, and a request another site's page makes (crossSite): a POST, a
// query's CSV, an <img>, <script> or frame, anything but a link followed to
// a page, whose SQL box then shows the query without running it
// (heldQuery). Every answer forbids framing and loads from anywhere but the
// server.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Frame-Options", "DENY")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Content-Security-Policy", "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'")
		if s.opts.Loopback && !loopbackHost(r.Host) {
			http.Error(w, "this server answers only requests to 127.0.0.1, localhost or [::1]", http.StatusForbidden)
			return
		}
		if s.opts.Token != "" {
			given := r.URL.Query().Get("token")
			if given != "" && subtle.ConstantTimeCompare([]byte(given), []byte(s.opts.Token)) == 1 {
				http.SetCookie(w, &http.Cookie{Name: tokenCookie, Value: s.opts.Token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
				q := r.URL.Query()
				q.Del("token")
				u := *r.URL
				u.RawQuery = q.Encode()
				http.Redirect(w, r, u.RequestURI(), http.StatusSeeOther)
				return
			}
			c, err := r.Cookie(tokenCookie)
			if err != nil || subtle.ConstantTimeCompare([]byte(c.Value), []byte(s.opts.Token)) != 1 {
				w.Header().Set("Content-Type", "text/plain; charset=utf-8")
				w.WriteHeader(http.StatusUnauthorized)
				fmt.Fprintln(w, "this server needs its token: open the address `empties serve` printed when it started (it ends in ?token=...)")
				return
			}
		}
		if r.Method == http.MethodPost {
			if o := r.Header.Get("Origin"); o != "" {
				if u, err := url.Parse(o); err != nil || u.Host != r.Host {
					http.Error(w, "a form of another site cannot post here", http.StatusForbidden)
					return
				}
			}
		}
		if crossSite(r) {
			navigation := r.Header.Get("Sec-Fetch-Mode") == "navigate" && r.Header.Get("Sec-Fetch-Dest") == "document"
			if r.Method != http.MethodGet && r.Method != http.MethodHead || !navigation || r.URL.Path == "/sql.csv" {
				http.Error(w, "a page of another site cannot use this server (its browser says the request comes from another site): open this server's own pages, at the address `empties serve` printed, and run the query there", http.StatusForbidden)
				return
			}
			r = r.WithContext(context.WithValue(r.Context(), heldKey{}, true))
		}
		next.ServeHTTP(w, r)
	})
}

// crossSite reports whether the browser says r comes from a page of
// another site than this server, that of another port of this host
// included: Sec-Fetch-Site (sent by every current browser, on every
// request: "cross-site" and "no-cors" for an <img> of another site's page),
// else, from a browser that sends none, an Origin or Referer naming another
// host. A request with none of them (curl, a script) is the user's own.
func crossSite(r *http.Request) bool {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "same-origin", "none": // this server's pages; an address typed or a bookmark
		return false
	case "":
		for _, h := range []string{"Origin", "Referer"} {
			if v := r.Header.Get(h); v != "" {
				u, err := url.Parse(v)
				return err != nil || u.Host != r.Host
			}
		}
		return false
	}
	return true // same-site (another port), cross-site, or what no browser sends
}

// heldKey marks the context of a link followed from another site's page.
type heldKey struct{}

// heldQuery reports whether r is a link from another site's page: the SQL
// box shows its query, and runs it only when the reader presses Run.
func heldQuery(r *http.Request) bool { return r.Context().Value(heldKey{}) != nil }

// loopbackHost reports whether a Host header names this machine's loopback.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// NewToken returns a random token for a server bound beyond loopback.
func NewToken() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// IsLoopback reports whether a listen host is a loopback address ("" and
// unspecified addresses listen everywhere: they are not).
func IsLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// errNotFound is a page's missing row.
var errNotFound = errors.New("not found")
