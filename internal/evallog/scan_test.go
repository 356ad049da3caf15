package evallog

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// sameScan fails the test unless the structural index and the byte walk
// give the same verdict on doc (ScanSample) and the same end and verdict
// for the value at each { and [ of it that lies outside a string before
// the first place the walk refuses (the places the walk can skip from:
// all it passed is valid).
func sameScan(t *testing.T, name string, doc []byte) {
	t.Helper()
	sameScanVerdict(t, name, doc)
	x := indexPool.Get().(*structIndex)
	defer indexPool.Put(x)
	if len(doc) == 0 || !x.build(doc) {
		return
	}
	w := &walk{b: doc}
	for i := range valueStarts(doc) {
		for _, strict := range []bool{true, false} {
			gotEnd, gotOK := x.skip(w, i, strict)
			wantEnd, wantOK := w.skipPortable(i, strict)
			if gotOK != wantOK || gotOK && gotEnd != wantEnd {
				t.Errorf("%s: the value at %d (strict %v): end %d %v by the index, %d %v byte by byte", name, i, strict, gotEnd, gotOK, wantEnd, wantOK)
				return
			}
		}
	}
}

// sameScanVerdict fails the test unless ScanSample gives doc the same
// verdict by the structural index as byte by byte.
func sameScanVerdict(t *testing.T, name string, doc []byte) {
	t.Helper()
	restore := SetSIMDScan(false)
	want := ScanSample(doc)
	restore()
	if got := ScanSample(doc); got != want {
		t.Errorf("%s: ScanSample %v by the index, %v byte by byte", name, got, want)
	}
}

// sameScanTop is sameScan of doc's outermost value only (a deep document
// has too many values within to skip from each).
func sameScanTop(t *testing.T, name string, doc []byte) {
	t.Helper()
	sameScanVerdict(t, name, doc)
	x := indexPool.Get().(*structIndex)
	defer indexPool.Put(x)
	if !x.build(doc) {
		t.Fatalf("%s: not indexed", name)
	}
	w := &walk{b: doc}
	for _, strict := range []bool{true, false} {
		gotEnd, gotOK := x.skip(w, 0, strict)
		wantEnd, wantOK := w.skipPortable(0, strict)
		if gotOK != wantOK || gotOK && gotEnd != wantEnd {
			t.Errorf("%s (strict %v): end %d %v by the index, %d %v byte by byte", name, strict, gotEnd, gotOK, wantEnd, wantOK)
		}
	}
}

// valueStarts are the places of the { and [ of doc outside strings, as far
// as its strings are well formed and no backslash stands outside them
// (which no walk passes, and which would make the index count quotes
// otherwise).
func valueStarts(doc []byte) func(func(int) bool) {
	return func(yield func(int) bool) {
		w := &walk{b: doc}
		for i := 0; i < len(doc); i++ {
			switch doc[i] {
			case '"':
				end, _, ok := w.checkString(i)
				if !ok {
					return
				}
				i = end - 1
			case '\\':
				return
			case '{', '[':
				if !yield(i) {
					return
				}
			}
		}
	}
}

// The index gives skipPortable's ends and verdicts on every sample of the
// fixtures, both corpora and the malformed logs.
func TestScanAsPortable(t *testing.T) {
	if !hasStage1 {
		t.Skip("no AVX2: the walk checks byte by byte only")
	}
	raws, _ := corpusSamples(t)
	paths, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "malformed", "*.*"))
	for _, p := range paths {
		if l, err := Open(p); err == nil {
			for _, ref := range l.Samples {
				if raw, err := ref.Bytes(); err == nil {
					raws = append(raws, raw)
				}
			}
			l.Close()
		}
	}
	indexed := 0
	for i, raw := range raws {
		sameScan(t, fmt.Sprintf("sample %d", i), raw)
		var x structIndex
		if len(raw) >= minIndexed && x.build(raw) {
			indexed++
		}
	}
	t.Logf("%d samples, %d of them indexed", len(raws), indexed)
	if indexed < len(raws)*9/10 {
		t.Errorf("only %d of %d samples indexed", indexed, len(raws))
	}
}

// hostileDoc is a document of about 700 bytes (long enough to be indexed)
// with mid put into its middle, inside a string value if inString.
func hostileDoc(pad int, mid string, inString bool) []byte {
	var b bytes.Buffer
	b.WriteString(`{"id": 1, "epoch": 1, "events": [{"event": "tool", "a": [1, -2.5e3, true, false, null, {"k": "v"}]}], "store": {"s": "`)
	b.WriteString(strings.Repeat("x", pad))
	if inString {
		b.WriteString(mid)
		b.WriteString(`"}, "m": [`)
	} else {
		b.WriteString(`"}, "m": [`)
		b.WriteString(mid)
	}
	b.WriteString(`{"role": "user", "content": "` + strings.Repeat("word ", 100) + `"}]}`)
	return b.Bytes()
}

// The index and the byte walk agree on hostile documents: every hostile
// piece at every offset across a block boundary (inside a string or
// between values), every document truncated at every offset, and deep
// nesting.
func TestScanAsPortableOnHostileInput(t *testing.T) {
	if !hasStage1 {
		t.Skip("no AVX2: the walk checks byte by byte only")
	}
	inStrings := []string{
		"\x00", "\x01", "\x1f", "\t", "\n", "\x7f", "\xff", "\xc0\x80", "\xe2\x82", "\xed\xa0\x80", "é😀",
		`\`, `\\`, `\\\`, `\\\\`, `\"`, `\\"`, `\\\"`, `\n`, `\x`, `\u`, `\u12`, `\u12G4`, `\u00e9`, `\uD83D\uDE00`,
		`\/`, `\b\f\n\r\t`, `\'`, `\0`, `{`, `}`, `[`, `]`, `:`, `,`, "\\\n",
	}
	between := []string{
		`01, `, `1., `, `-, `, `1e, `, `1e+, `, `.5, `, `+1, `, `tru, `, `nul, `, `NaN, `, `Infinity, `, `-Infinity, `,
		`1 2, `, `1true, `, `"a" "b", `, `{"a" 1}, `, `{"a": 1,}, `, `[1,], `, `{,}, `, `{"a": 1, "a": 2}, `,
		`{"a\u0062": 1}, `, `{"a\\b": 1}, `, `{1: 2}, `, `{"a": }, `, `[}, `, `{], `, `], `, `}, `, `:, `,
		"\x1a, ", "\x0c, ", "\x00, ", "\xff, ", `#, `, `\, `, "1\x1a, ", "1\x0c, ", `{"k": "v"}, `, `[[[]]], `,
		`{"": 1, "": 2}, `, `{"ab": 1, "ba": 2}, `, " \t\r\n, ",
	}
	for pad := 0; pad < 70; pad++ {
		for _, s := range inStrings {
			sameScan(t, fmt.Sprintf("pad %d, %q in a string", pad, s), hostileDoc(pad, s, true))
		}
		for _, s := range between {
			sameScan(t, fmt.Sprintf("pad %d, %q between values", pad, s), hostileDoc(pad, s, false))
		}
	}
	doc := hostileDoc(3, `\\\" \u00e9 \n`, true)
	for n := 0; n <= len(doc); n++ {
		sameScan(t, fmt.Sprintf("cut at %d", n), doc[:n])
	}
	for _, depth := range []int{maxFastDepth - 2, maxFastDepth - 1, maxFastDepth, maxFastDepth + 1, 2 * maxFastDepth} {
		for _, open := range []string{"[", `{"k":`} {
			inner := strings.Repeat(open, depth) + "1" + strings.Repeat(map[string]string{"[": "]", `{"k":`: "}"}[open], depth)
			sameScanTop(t, fmt.Sprintf("%d deep %s", depth, open), []byte(`{"a": `+inner+`, "pad": "`+strings.Repeat("y", 600)+`"}`))
		}
	}
	var many strings.Builder
	many.WriteString(`{"pad": "` + strings.Repeat("z", 600) + `"`)
	for i := range 100 {
		fmt.Fprintf(&many, `, "key%d": %d`, i, i)
	}
	sameScan(t, "100 keys", []byte(many.String()+"}"))
	sameScan(t, "100 keys, one twice", []byte(many.String()+`, "key7": 0}`))
}

// The decode's tests with every vectorised scan off, as on a CPU without
// AVX2: the values it skips checked byte by byte, strings scanned without
// the AVX2 kernel, a .json log's samples found by the byte walk (the same
// tests run with them on by default).
func TestDecodeFastPortable(t *testing.T) {
	defer SetSIMDScan(false)()
	t.Run("AsReference", TestWalkAsReference)
	t.Run("MalformedLogs", TestWalkGivesTheVerdictOnMalformedLogs)
}

// Whatever the bytes, the index and the byte walk give the same verdict,
// and the same end for every value the walk could skip.
func FuzzScan(f *testing.F) {
	for _, p := range seedLogs(f) {
		l, err := Open(p)
		if err != nil {
			continue
		}
		for _, ref := range l.Samples {
			if raw, err := ref.Bytes(); err == nil && len(raw) < 16<<10 {
				f.Add(raw)
			}
		}
		l.Close()
	}
	f.Add(hostileDoc(60, `\\\"`, true))
	f.Add(hostileDoc(61, `\u12`, true))
	f.Add(hostileDoc(5, `{"a": 1, "a": 2}, `, false))
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !hasStage1 {
			t.Skip("no AVX2")
		}
		sameScan(t, "doc", raw)
	})
}
