package report

import (
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"fmt"
	"html"
	"strings"
)

// The HTML page is one self-contained file: its style, its script
// (assets/page.js: sorting, filtering, drawing the charts) and the vendored
// chart libraries (assets/vega) are inlined, so it opens anywhere with no
// network. The Content-Security-Policy allows those scripts by their
// SHA-256 and nothing else: no load from anywhere, no eval.

//go:embed assets/page.js assets/page.css assets/vega/*.min.js
var assets embed.FS

// vegaScripts are the vendored libraries, in load order.
var vegaScripts = []string{"assets/vega/vega.min.js", "assets/vega/vega-lite.min.js", "assets/vega/vega-embed.min.js"}

func asset(name string) string {
	b, err := assets.ReadFile(name)
	if err != nil { // embedded at build time: a missing file does not compile
		panic(err)
	}
	return string(b)
}

// htmlPage renders the page.
func (p *page) htmlPage() string {
	var body strings.Builder
	fmt.Fprintf(&body, "<h1>%s</h1>\n", html.EscapeString(p.title))
	charts := false
	for _, bl := range p.blocks {
		bl.html(&body)
		charts = charts || hasChart(bl)
	}
	var scripts []string
	if charts {
		for _, s := range vegaScripts {
			scripts = append(scripts, asset(s))
		}
	}
	scripts = append(scripts, asset("assets/page.js"))
	var hashes []string
	var tags strings.Builder
	for _, s := range scripts {
		sum := sha256.Sum256([]byte(s))
		hashes = append(hashes, "'sha256-"+base64.StdEncoding.EncodeToString(sum[:])+"'")
		// A script's text cannot hold "</script": the vendored builds do
		// not (TestVendoredLibraries checks it).
		tags.WriteString("<script>" + s + "</script>\n")
	}
	return fmt.Sprintf(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src %s">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>%s</title>
<style>
%s</style>
</head>
<body>
%s%s</body>
</html>
`, strings.Join(hashes, " "), html.EscapeString(p.title), asset("assets/page.css"), body.String(), tags.String())
}

// hasChart reports whether a block is or holds a chart.
func hasChart(bl block) bool {
	switch x := bl.(type) {
	case *chart:
		return true
	case section:
		for _, c := range x.blocks {
			if hasChart(c) {
				return true
			}
		}
	case folded:
		for _, c := range x.blocks {
			if hasChart(c) {
				return true
			}
		}
	}
	return false
}
