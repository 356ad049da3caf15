package ingest

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"empties/internal/evallog"
	"empties/internal/testutil"
)

// streamLogs lists the fixture logs, the malformed logs and both corpora.
func streamLogs(t *testing.T) []string {
	var paths []string
	for _, dir := range []string{"../../testdata/logs", "../../testdata/malformed", testutil.SharedCorpus(t), testutil.WildCorpus(t)} {
		filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
			if err == nil && !e.IsDir() && (strings.HasSuffix(p, ".eval") || strings.HasSuffix(p, ".json")) {
				paths = append(paths, p)
			}
			return nil
		})
	}
	if len(paths) < 60 {
		t.Fatalf("only %d logs", len(paths))
	}
	return paths
}

// Every sample of the fixtures, the malformed logs and the corpora gives
// the same rows (or the same refusal) decoded from the stream of its member
// as decoded whole, and the walk leaves to the whole decode only the 2024
// transcripts and samples the whole decode refuses: with the texts copied into the document decoded, and
// with every text of more than 64 bytes decoded on its own, 32 raw bytes at
// a time (so that the text table, its sharing of equal texts and the
// cutting between escapes and UTF-8 sequences all run).
func TestStreamDecodeGivesTheRowsOfTheWholeDecode(t *testing.T) {
	for _, c := range []struct {
		name        string
		text, chunk int
	}{{"texts-copied", 1 << 30, 1 << 20}, {"texts-apart", 64, 32}} {
		t.Run(c.name, func(t *testing.T) {
			defer evallog.SetStreamSizes(0, c.text, c.chunk)()
			streamMatchesWhole(t)
		})
	}
}

func streamMatchesWhole(t *testing.T) {
	n, refused := 0, 0
	eachSample(streamLogs(t), func(name string, lc *logContext, ref evallog.SampleRef, raw []byte) {
		whole := &evallog.DecodedSample{}
		wantErr := whole.Decode(raw, lc.LegacyScoreName)
		streamed := &evallog.DecodedSample{}
		err := streamed.DecodeStream(ref, lc.LegacyScoreName)
		switch {
		case errors.Is(err, evallog.ErrNotStreamed):
			refused++
			if whole.Transcript == nil && wantErr == nil {
				// a malformed sample the stream leaves to the whole
				// decode (which refuses it) is no divergence
				t.Errorf("%s: not streamed, and not a transcript", name)
			}
			return
		case (err != nil) != (wantErr != nil):
			t.Errorf("%s: stream decode error %v, whole decode %v", name, err, wantErr)
			return
		case err != nil:
			return
		}
		got, gerr := extract(lc, ref.Member, streamed.View())
		want, werr := extract(lc, ref.Member, whole.View())
		if (gerr != nil) != (werr != nil) {
			t.Errorf("%s: extract error %v, whole %v", name, gerr, werr)
			return
		}
		sameRows(t, name, "stream", got, "whole", want)
		n++
	})
	t.Logf("%d samples compared, %d left to the whole decode (transcripts, malformed)", n, refused)
	if n < 300 {
		t.Errorf("only %d samples compared", n)
	}
}

// eachSample calls fn with every sample of the logs at paths, named by file
// and member, with its log's context and its member's bytes; a log or a
// member that cannot be read (the fixtures of unreadable logs) is passed
// over.
func eachSample(paths []string, fn func(name string, lc *logContext, ref evallog.SampleRef, raw []byte)) {
	for _, p := range paths {
		l, err := evallog.Open(p)
		if err != nil {
			continue
		}
		lc := newLogContext(Fingerprint{Path: p}, l)
		for _, ref := range l.Samples {
			raw, err := ref.Bytes()
			if err != nil {
				continue
			}
			fn(filepath.Base(p)+" "+ref.Member, lc, ref, raw)
		}
		l.Close()
	}
}

// sameRows fails t where the rows two decoders gave first differ, dumped,
// showing each side around that byte.
func sameRows(t *testing.T, name, gotBy string, got any, wantBy string, want any) {
	t.Helper()
	g, w := dump(got), dump(want)
	if g == w {
		return
	}
	i := 0
	for i < min(len(g), len(w)) && g[i] == w[i] {
		i++
	}
	pad := max(len(gotBy), len(wantBy))
	t.Errorf("%s: rows differ at byte %d:\n %-*s …%.300s\n %-*s …%.300s", name, i, pad, gotBy, g[max(0, i-100):], pad, wantBy, w[max(0, i-100):])
}

// dump prints v with the values its pointers point to (NaN prints alike,
// where reflect.DeepEqual finds NaN unequal to itself).
func dump(v any) string {
	var b strings.Builder
	var walk func(reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Pointer, reflect.Interface:
			if v.IsNil() {
				b.WriteString("nil")
				return
			}
			walk(v.Elem())
		case reflect.Struct:
			b.WriteString("{")
			for i := range v.NumField() {
				fmt.Fprintf(&b, "%s:", v.Type().Field(i).Name)
				walk(v.Field(i))
				b.WriteString(" ")
			}
			b.WriteString("}")
		case reflect.Slice:
			b.WriteString("[")
			for i := range v.Len() {
				walk(v.Index(i))
				b.WriteString(" ")
			}
			b.WriteString("]")
		default:
			fmt.Fprintf(&b, "%q", fmt.Sprint(v.Interface()))
		}
	}
	walk(reflect.ValueOf(v))
	return b.String()
}
