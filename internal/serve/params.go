package serve

import (
	"errors"
	"net/url"
	"strconv"
	"strings"
)

// sameOriginPath returns back if a browser redirected to it stays on this
// server, else "/". A browser reads a Location header leniently: it drops
// tabs and newlines anywhere and takes "\" for "/" in the path, so "/\evil"
// and "/<tab>/evil" are "//evil", another host. So the path must start
// with one "/" not followed by "/" or "\", and hold no control character,
// no "\" before its query, and no scheme or host.
func sameOriginPath(back string) string {
	if back == "" || back[0] != '/' || len(back) > 1 && (back[1] == '/' || back[1] == '\\') {
		return "/"
	}
	for _, r := range back {
		if r < 0x20 || r == 0x7f {
			return "/"
		}
	}
	if path, _, _ := strings.Cut(back, "?"); strings.Contains(path, `\`) {
		return "/"
	}
	if u, err := url.Parse(back); err != nil || u.Scheme != "" || u.Host != "" || u.Opaque != "" {
		return "/"
	}
	return back
}

// maxPage is the last page number a page of rows is asked for: offsets stay
// far inside an int64 at the largest page size, and DuckDB skips at most a
// few billion rows to reach it.
const maxPage = 10_000_000

// pageNumber reads a page parameter: 1 when absent or not a number above 1,
// at most maxPage (a number too large for an int too).
func pageNumber(s string) int {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	switch {
	case errors.Is(err, strconv.ErrRange) && n > 0:
		return maxPage
	case err != nil || n < 1:
		return 1
	}
	return min(n, maxPage)
}
