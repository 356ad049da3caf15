package evallog

import (
	"archive/zip"
	"bytes"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"empties/internal/testutil"
)

// checkSummaryRows fails t where summaryRowsFast takes b and the decoder
// does not read the same rows from it; it reports whether the walk took b.
func checkSummaryRows(t *testing.T, b []byte) bool {
	t.Helper()
	fast, ok := summaryRowsFast(b, nil)
	if !ok {
		return false
	}
	want, err := summaryRowsDecoded(b)
	if err != nil {
		t.Fatalf("the walk took %q, the decoder refuses it: %v", b, err)
	}
	if len(fast) != len(want) {
		t.Fatalf("%q: the walk read %d rows, the decoder %d", b, len(fast), len(want))
	}
	for i := range fast {
		f, d := fast[i], want[i]
		if !bytes.Equal(f.ID, d.ID) || (f.ID == nil) != (d.ID == nil) || f.Epoch != d.Epoch || summaryID(f.ID) != summaryID(d.ID) {
			t.Fatalf("%q: row %d is id %q epoch %d by the walk, id %q epoch %d by the decoder", b, i, f.ID, f.Epoch, d.ID, d.Epoch)
		}
	}
	return true
}

// summaryCases are summaries members at the edges of what the walk takes.
var summaryCases = []string{
	`[]`, ` [ ] `, `[{}]`, `null`, `[null]`, `[1]`, `{}`, `[{"id": 1, "epoch": 1}]`, "\ufeff[]", ``, `[`, `[{"id": 1}`,
	`[{"id": 1, "epoch": 1}] x`, `[{"id": 1, "epoch": 1}]` + "\x00", `[{"id": "a", "epoch": 2}, {"id": 3, "epoch": 1}]`,
	`[{"id": null, "epoch": null}]`, `[{"epoch": 1}]`, `[{"id": 1}]`, `[{"id": 1, "epoch": 1.0}]`, `[{"id": 1, "epoch": 1.5}]`,
	`[{"id": 1, "epoch": -0}]`, `[{"id": 1, "epoch": -3}]`, `[{"id": 1, "epoch": 1e0}]`, `[{"id": 1, "epoch": "1"}]`,
	`[{"id": 1, "epoch": 99999999999999999999}]`, `[{"id": 1, "epoch": 9223372036854775807}]`, `[{"id": 1, "epoch": true}]`,
	`[{"id": 1, "epoch": 01}]`, `[{"id": 1, "epoch": NaN}]`, `[{"id": NaN, "epoch": 1}]`, `[{"id": [-Infinity], "epoch": 1}]`, `[{"id": 1, "epoch": 1, "score": NaN}]`,
	`[{"ID": 1, "epoch": 1}]`, `[{"id": 1, "Epoch": 2}]`, `[{"id": 1, "EPOCH": 2, "epoch": 1}]`, `[{"\u0069d": 1, "epoch": 1}]`,
	`[{"id": 1, "id": 2, "epoch": 1}]`, `[{"id": 1, "epoch": 1, "epoch": 2}]`, `[{"id": 1, "epoch": 1, "m": {"k": 1, "k": 2}}]`,
	`[{"id": {"a": [1, 2]}, "epoch": 1}]`, `[{"id": [1, {"b": null}], "epoch": 1}]`, `[{"id": "a\"b\\c\u00e9", "epoch": 1}]`,
	`[{"id": "tab	raw", "epoch": 1}]`, `[{"id": "\x", "epoch": 1}]`, `[{"id": "\xff\xfe", "epoch": 1}]`, `[{"id": 1.5e3, "epoch": 1}]`,
	`[{"id": 12345678901234567890123, "epoch": 1}]`, `[{"id": true, "epoch": 1}]`, `[{"id": -1, "epoch": 1}]`,
	`[{"id": 1 , "epoch" : 1 } , { "id" :2,"epoch":1}]`, "[{\"id\":\n1,\r\n\"epoch\":\t1}]", `[{"id": 1, "epoch": 1},]`,
	`[{"id": 1, "epoch": 1} {"id": 2}]`, `[{"id": 1 "epoch": 1}]`, `[{"id": 1, "epoch": 1, "input": "` + strings.Repeat("x", 600) + `"}]`,
	`[{"id": 1, "epoch": 1, "metadata": {"a": [` + strings.Repeat(`{"b": "\n", "c": [1, 2.5e-3, null, true, false]}, `, 20) + `{}]}}]`,
	`[{"id": 1, "epoch": 1, "metadata": ` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `}]`,
	`[{"id": 1, "epoch": 1, "scores": {"s": {"value": "C"}}, "uuid": "x", "model_usage": {}, "total_time": 1.5, "retries": 0}]`,
}

// The walk reads the summaries of every fixture, malformed log and shared
// corpus log as the decoder does, and takes nearly all of them.
func TestSummaryRowsAsDecoded(t *testing.T) {
	for _, c := range summaryCases {
		checkSummaryRows(t, []byte(c))
	}
	var paths []string
	for _, dir := range []string{testutil.Path(t, "testdata", "logs"), testutil.Path(t, "testdata", "malformed"), testutil.SharedCorpus(t)} {
		filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
			if err == nil && !e.IsDir() && strings.HasSuffix(p, ".eval") {
				paths = append(paths, p)
			}
			return nil
		})
	}
	members, took := 0, 0
	for _, p := range paths {
		zr, err := zip.OpenReader(p)
		if err != nil {
			continue
		}
		for _, zf := range zr.File {
			if _, ok := journalSummaryIndex(zf.Name); !ok && zf.Name != "summaries.json" {
				continue
			}
			b, err := appendMember(nil, zf, DefaultMaxMember, 1<<40)
			if err != nil {
				continue
			}
			members++
			if checkSummaryRows(t, b) {
				took++
			}
		}
		zr.Close()
	}
	t.Logf("the walk took %d of %d summaries members", took, members)
	if members < 100 || took < members*9/10 {
		t.Errorf("the walk took %d of %d summaries members: too few", took, members)
	}
}

// Whatever the bytes of a summaries member, the walk either leaves them to
// the decoder or reads the rows the decoder reads.
func FuzzSummaryRows(f *testing.F) {
	for _, c := range summaryCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkSummaryRows(t, b)
	})
}

// A summaries member the walk leaves to the decoder gets the error it got
// before the walk, word for word: ingest_errors stores it.
func TestSummaryErrorsAsBefore(t *testing.T) {
	for doc, want := range map[string]string{
		`{}`:                        "invalid log JSON: json: cannot unmarshal object into Go value of type []evallog.summary",
		`[{"id": 1, "epoch": 1.0}]`: "invalid log JSON: json: cannot unmarshal number 1.0 into Go struct field .0.epoch of type int",
	} {
		if _, ok := summaryRowsFast([]byte(doc), nil); ok {
			t.Fatalf("the walk took %s", doc)
		}
		_, err := summaryRowsDecoded([]byte(doc))
		if err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %s", doc, err, want)
		}
	}
}
