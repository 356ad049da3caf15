package serve_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"empties/internal/serve"
)

// After a switch the reader is sent back only to a path of this server:
// what a browser would read as another host ("/\evil", "/<tab>/evil",
// "//evil", a scheme) sends them to "/".
func TestSwitchRedirectsOnlyHere(t *testing.T) {
	_, hs := server(t, serve.Options{Data: fixtures(t), Loopback: true})
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for back, want := range map[string]string{
		`/\evil.example`:         "/",
		`/\/evil.example`:        "/",
		"/\t/evil.example":       "/",
		"/\n/evil.example":       "/",
		"/replies\r\nX-Evil: 1":  "/",
		"//evil.example":         "/",
		`\/evil.example`:         "/",
		"http://evil.example/":   "/",
		"javascript:alert(1)":    "/",
		"/replies/..\\..\\evil":  "/",
		"":                       "/",
		"/replies?class=answer":  "/replies?class=answer",
		`/replies?q=a\b`:         `/replies?q=a\b`,
		"/sample?log=1&id=a%2Fb": "/sample?log=1&id=a%2Fb",
	} {
		resp, err := noFollow.PostForm(hs.URL+"/switch", url.Values{"back": {back}})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || loc != want {
			t.Errorf("back=%q: %d to %q, want %q", back, resp.StatusCode, loc, want)
		}
	}
}

// A page number beyond any page is held to the last one the server pages
// to, never an overflow ("rows -79–20") or a DuckDB error.
func TestPageNumbersAreBounded(t *testing.T) {
	_, hs := server(t, serve.Options{Data: fixtures(t), Loopback: true, SQL: true})
	negative := regexp.MustCompile(`rows -|–-|page -`)
	for _, p := range []string{"922337203685477581", "9223372036854775807", "99999999999999999999999", "-5", "x"} {
		body := page(t, hs.URL, "/sql?"+url.Values{"q": {"SELECT range FROM range(250)"}, "page": {p}}.Encode())
		if strings.Contains(body, `id="sql-error"`) || negative.MatchString(body) || !strings.Contains(body, `id="sql-summary"`) {
			t.Errorf("/sql page %s:\n%.2500s", p, body)
		}
		body = page(t, hs.URL, "/replies?"+url.Values{"page": {p}, "n": {"500"}}.Encode())
		if negative.MatchString(body) {
			t.Errorf("/replies page %s:\n%.2500s", p, body)
		}
	}
}
