package report

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The vendored chart libraries are the files SHA256SUMS names, byte for
// byte (assets/vega/README.md says where they come from), and none could end
// the <script> element it is inlined in.
func TestVendoredLibraries(t *testing.T) {
	f, err := os.Open(filepath.Join("assets", "vega", "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sums := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			t.Fatalf("SHA256SUMS: %q", sc.Text())
		}
		sums[name] = sum
	}
	for _, s := range append(vegaScripts, "assets/page.js") {
		b := asset(s)
		if strings.Contains(strings.ToLower(b), "</script") {
			t.Errorf("%s holds </script: it cannot be inlined", s)
		}
		if !strings.HasPrefix(s, "assets/vega/") {
			continue
		}
		got := sha256.Sum256([]byte(b))
		if want := sums[filepath.Base(s)]; hex.EncodeToString(got[:]) != want {
			t.Errorf("%s: sha256 %x, SHA256SUMS says %s (run `make vega`)", s, got, want)
		}
	}
	if len(sums) != 6 {
		t.Errorf("SHA256SUMS names %d files, want the three builds and their licences", len(sums))
	}
}
