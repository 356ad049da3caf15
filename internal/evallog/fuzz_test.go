package evallog

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"empties/internal/testutil"
)

// seedLogs are the fixture logs and the shared corpora's small logs (large
// seeds make every mutation slow).
func seedLogs(f *testing.F) []string {
	paths, _ := filepath.Glob("../../testdata/logs/*.*")
	filepath.WalkDir(testutil.SharedCorpus(f), func(p string, e fs.DirEntry, _ error) error {
		paths = append(paths, p)
		return nil
	})
	var out []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil || st.IsDir() || st.Size() > 64<<10 || strings.HasSuffix(p, "EXPECT.json") ||
			!strings.HasSuffix(p, ".eval") && !strings.HasSuffix(p, ".json") {
			continue
		}
		out = append(out, p)
	}
	if len(out) < 15 {
		f.Fatalf("only %d seed logs", len(out))
	}
	return out
}

// Whatever the bytes of a log file, reading it never panics, never
// allocates past the cap, and every sample it lists is read or refused with
// an error.
func FuzzZipReader(f *testing.F) {
	for _, p := range seedLogs(f) {
		if strings.HasSuffix(p, ".eval") {
			b, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		tmp, err := os.CreateTemp(dir, "*.eval")
		if err != nil {
			t.Fatal(err)
		}
		defer os.Remove(tmp.Name())
		tmp.Write(data)
		tmp.Close()
		l, err := OpenLimited(tmp.Name(), Limits{MaxMember: 8 << 20})
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an error without a message")
			}
			return
		}
		defer l.Close()
		var d DecodedSample
		for _, ref := range l.Samples {
			raw, err := ref.Bytes()
			if err != nil {
				continue
			}
			if len(raw) > 8<<20 {
				t.Fatalf("%s: %d bytes read past the cap", ref.Member, len(raw))
			}
			if d.Decode(raw, "") == nil {
				if _, kind := d.IDString(); kind != "int" && kind != "str" {
					t.Fatalf("%s: id kind %q", ref.Member, kind)
				}
			}
		}
	})
}

// Whatever the bytes of a sample, decoding never panics; a decoded sample
// has an int or str id, and its input and output views decode or fail
// cleanly.
func FuzzDecodeSample(f *testing.F) {
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
	f.Add([]byte(`{"id": {"a": 1}, "epoch": 1}`))
	f.Add([]byte(`{"id": 1, "id": "x", "scores": {"s": {"value": 1e999}}, "attachments": {"h": "a", "h": "b"}}`))
	f.Add([]byte(`{"id": 1, "epoch": 1, "metadata": {"s": "\u0000NaN", "v": NaN}, "scores": {"s": {"value": "\u0000Infinity", "metadata": {"x": -Infinity}}}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		d, err := DecodeSample(raw, "score")
		if err != nil {
			return
		}
		if _, kind := d.IDString(); kind != "int" && kind != "str" {
			t.Fatalf("id kind %q", kind)
		}
		for i := range d.Events {
			e := &d.Events[i]
			d.InputMessages(e)
			d.InputCount(e)
			d.LastUserText(e)
			if o, err := d.ModelOutput(e); err == nil && o != nil && len(o.Choices) > 0 {
				d.Text(&o.Choices[0].Message)
			}
		}
	})
}

// lastKeyWins changes a valid document only by dropping earlier members of
// repeated keys: encoding/json, which keeps a repeated key's last value in
// a map, reads the same value from both, and the result is valid JSON.
func FuzzLastKeyWins(f *testing.F) {
	for _, s := range []string{`{"a": 1, "a": 2}`, `{"a": {"x": 1, "x": [1, {"y": 1, "y": 2}]}, "b": 0, "a": {"z": 1}}`,
		`{"a": 1, "\u0061": 2}`, `[{"k": 1}, {"k": 1, "k": 2}]`, `{"a\"": 1, "a": 2, "a": 3}`, `"x"`, `{}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		out, changed := lastKeyWins(data)
		if !changed {
			if string(out) != string(data) {
				t.Fatalf("unchanged %q came back as %q", data, out)
			}
			return
		}
		var a, b any
		if json.Unmarshal(data, &a) != nil {
			return // invalid input: only validity of valid input is promised
		}
		if err := json.Unmarshal(out, &b); err != nil {
			t.Fatalf("%q gave invalid %q: %v", data, out, err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("%q read as %v, its rewrite %q as %v", data, a, out, b)
		}
		if again, changed := lastKeyWins(out); changed {
			t.Fatalf("rewrite %q still repeats a key: %q", out, again)
		}
	})
}
