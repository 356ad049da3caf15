package store_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"empties/internal/store"
	"empties/schema"
)

// A stage writes the tables schema/ gives it and no other: rescore may not
// write replies (ingest's) in any way into a table's folder, nor decisions;
// classify, replies' documented second writer, may; a writer that names no
// stage writes no declared table; the row type must be the table's; a table
// schema/ does not declare (an analysis output) is anyone's.
func TestOnlyItsWritersWriteATable(t *testing.T) {
	open := func(stage string) *store.Dataset {
		ds, err := store.Create(store.Stage{Name: stage}, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ds.Close() })
		return ds
	}
	refused := func(what string, err error, want string) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error saying %q", what, err, want)
		}
	}
	rescore := open(schema.StageRescore)
	_, err := store.WriterOf(rescore, schema.Replies)
	refused("rescore's writer of replies", err, "rescore may not write table replies: it is written by ingest and classify only")
	_, err = store.SinkOf(rescore, schema.ModelCalls, 0)
	refused("rescore's sink of model_calls", err, "rescore may not write table model_calls")
	_, err = rescore.TableDir("replies")
	refused("rescore's folder of replies", err, "rescore may not write table replies")
	refused("rescore's decisions", store.WriteTable(rescore, schema.Decisions, []schema.Decision{{Rule: "D1b"}}), "rescore may not write table decisions: it is written by decide only")
	_, err = store.NewWriter[schema.Reply](rescore, "replies")
	refused("rescore's writer of replies by name", err, "rescore may not write table replies")
	if err := store.WriteTable(rescore, schema.Headlines, []schema.Headline{{Eval: "e", Policy: "P0"}}); err != nil {
		t.Errorf("rescore writing its headlines: %v", err)
	}
	_, err = store.NewWriter[schema.Reply](rescore, "headlines")
	refused("headlines written with replies' rows", err, "table headlines holds rows of schema.Headline")
	if _, err := rescore.TableDir("class_rates"); err != nil {
		t.Errorf("an analysis output, which schema/ does not declare: %v", err)
	}

	if _, err := store.WriterOf(open(schema.StageClassify), schema.Replies); err != nil {
		t.Errorf("classify, replies' second writer: %v", err)
	}
	_, err = store.WriterOf(open(""), schema.Logs)
	refused("a writer that names no stage", err, "a dataset writer that names no stage may not write table logs")
	if _, err := store.WriterOf(open(store.FixtureWriter), schema.Decisions); err != nil {
		t.Errorf("a test's fixture writer: %v", err)
	}
}

// No stage or command writes as a test fixture: store.FixtureWriter is
// named only by tests and internal/testutil.
func TestOnlyTestsWriteFixtures(t *testing.T) {
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".venv" || d.Name() == "node_modules" || d.Name() == ".git") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") ||
			strings.HasPrefix(filepath.ToSlash(p), "../../internal/testutil/") || strings.HasSuffix(filepath.ToSlash(p), "internal/store/table.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.Contains(string(b), "FixtureWriter") || strings.Contains(string(b), "testutil.Fixture") {
			t.Errorf("%s writes a dataset as a test fixture (store.FixtureWriter): a stage names itself", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
