package ingest

import (
	"path/filepath"
	"strings"
	"testing"

	"empties/internal/evallog"
	"empties/internal/testutil"
)

// Every sample of the fixtures, the corpora and the malformed logs
// (testdata/malformed) gives the same rows (or the same error) decoded by
// the one walk (evallog's decodeFast, which takes nearly all of them) as
// decoded the way it was before.
func TestFastDecodeGivesTheRowsOfTheDecoder(t *testing.T) {
	n := 0
	malformed, err := filepath.Glob(testutil.Path(t, "testdata", "malformed", "*.*"))
	if err != nil {
		t.Fatal(err)
	}
	var logs []string
	for _, p := range append(streamLogs(t), malformed...) {
		if strings.HasSuffix(p, ".eval") || strings.HasSuffix(p, ".json") {
			logs = append(logs, p)
		}
	}
	eachSample(logs, func(name string, lc *logContext, ref evallog.SampleRef, raw []byte) {
		fast := &evallog.DecodedSample{}
		ferr := fast.Decode(raw, lc.LegacyScoreName)
		var got *sampleRows
		var gerr error
		if ferr == nil {
			got, gerr = extract(lc, ref.Member, fast.View())
		}
		// the old way: the decoder for the sample and for the
		// events' outputs, which the view decodes
		restore := evallog.SetFastDecode(false)
		old := &evallog.DecodedSample{}
		oerr := old.Decode(raw, lc.LegacyScoreName)
		var want *sampleRows
		var werr error
		if oerr == nil {
			want, werr = extract(lc, ref.Member, old.View())
		}
		restore()
		if (ferr == nil) != (oerr == nil) || ferr != nil && ferr.Error() != oerr.Error() {
			t.Errorf("%s: error %v, the decoder's %v", name, ferr, oerr)
			return
		}
		if ferr != nil {
			return
		}
		if (gerr == nil) != (werr == nil) || gerr != nil && gerr.Error() != werr.Error() {
			t.Errorf("%s: extract error %v, the decoder's %v", name, gerr, werr)
			return
		}
		sameRows(t, name, "fast", got, "decoder", want)
		n++
	})
	if n < 300 {
		t.Errorf("only %d samples compared", n)
	}
}
