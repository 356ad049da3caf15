package evallog

import (
	"archive/zip"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"empties/internal/testutil"
)

// The regular expressions names.go replaced, the oracle its parsers are
// held to.
var (
	sampleMemberRE = regexp.MustCompile(`^samples/(.+)_epoch_(\d+)\.json$`)
	chunkedPartRE  = regexp.MustCompile(`^(samples/.+_epoch_\d+)/(skeleton\.json|metadata\.json|(messages|events|calls|attachments)/\d+\.json|events/(stats|uuids)\.json)$`)
	journalSummRE  = regexp.MustCompile(`^_journal/summaries/(\d+)\.json$`)
)

// checkNameAsRegexps fails t where a parser of names.go reads name
// otherwise than its regular expression.
func checkNameAsRegexps(t *testing.T, name string) {
	t.Helper()
	id, epoch, ok := sampleName(name)
	if m := sampleMemberRE.FindStringSubmatch(name); (m != nil) != ok || ok && (m[1] != id || m[2] != epoch) {
		t.Errorf("sampleName(%q) = %q, %q, %v; the expression gives %q", name, id, epoch, ok, m)
	}
	shell, ok := chunkedPartShell(name)
	if m := chunkedPartRE.FindStringSubmatch(name); (m != nil) != ok || ok && m[1] != shell {
		t.Errorf("chunkedPartShell(%q) = %q, %v; the expression gives %q", name, shell, ok, m)
	}
	k, ok := journalSummaryIndex(name)
	if m := journalSummRE.FindStringSubmatch(name); (m != nil) != ok || ok && m[1] != k {
		t.Errorf("journalSummaryIndex(%q) = %q, %v; the expression gives %q", name, k, ok, m)
	}
}

// nameCases are names at the edges of each pattern.
var nameCases = []string{
	"", "samples/", "samples/.json", "samples/_epoch_1.json", "samples/x_epoch_.json", "samples/x_epoch_1.json",
	"samples/x_epoch_12.json", "samples/x_epoch_1_epoch_2.json", "samples/x_epoch_1a.json", "samples/x_epoch_１.json",
	"samples/x\n_epoch_1.json", "samples/\n_epoch_1.json", "samples/x_epoch_1.json\n", "samples/x_epoch_1.jsonx",
	"samples/a/b_epoch_3.json", "samples/x_epoch_01.json", "samples/x__epoch_1.json", "samples/x_epoch__epoch_1.json",
	"samples/\xff_epoch_1.json", "Samples/x_epoch_1.json", "samples/x_Epoch_1.json", "samples/x_epoch_-1.json",
	"samples/x_epoch_99999999999999999999999.json", "xsamples/x_epoch_1.json", "samples/samples/x_epoch_1.json",
	"samples/1_epoch_1/sample.json", "samples/1_epoch_1/skeleton.json", "samples/1_epoch_1/metadata.json",
	"samples/1_epoch_1/messages/0.json", "samples/1_epoch_1/events/12.json", "samples/1_epoch_1/calls/3.json",
	"samples/1_epoch_1/attachments/4.json", "samples/1_epoch_1/events/stats.json", "samples/1_epoch_1/events/uuids.json",
	"samples/1_epoch_1/calls/stats.json", "samples/1_epoch_1/messages/.json", "samples/1_epoch_1/messages/a.json",
	"samples/1_epoch_1/messages/skeleton.json", "samples/1_epoch_1/x/skeleton.json", "samples/1_epoch_1/x/messages/1.json",
	"samples/a/b_epoch_2/events/1.json", "samples/_epoch_1/skeleton.json", "samples/x\n_epoch_1/skeleton.json",
	"samples/x_epoch_/skeleton.json", "samples/x_epoch_1a/skeleton.json", "skeleton.json", "/skeleton.json",
	"samples/x_epoch_1/", "samples/x_epoch_1//skeleton.json", "samples/x_epoch_1/events/1.json/skeleton.json",
	"messages/1.json", "samples/messages/1.json", "samples/x_epoch_1/1.json", "samples/x_epoch_1/events/1.JSON",
	"_journal/summaries/1.json", "_journal/summaries/12.json", "_journal/summaries/01.json", "_journal/summaries/.json",
	"_journal/summaries/1a.json", "_journal/summaries/1.json\n", "_journal/summaries/a/1.json", "_journal/summaries/1",
	"_journal/start.json", "header.json", "summaries.json", "reductions.json",
}

// The parsers read every name as the expressions did: the edge cases and
// every member name of the fixtures, the malformed logs and the shared
// corpora.
func TestMemberNamesAsRegexps(t *testing.T) {
	names := append([]string{}, nameCases...)
	var paths []string
	for _, dir := range []string{testutil.Path(t, "testdata", "logs"), testutil.Path(t, "testdata", "malformed"), testutil.SharedCorpus(t)} {
		filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
			if err == nil && !e.IsDir() && strings.HasSuffix(p, ".eval") {
				paths = append(paths, p)
			}
			return nil
		})
	}
	for _, p := range paths {
		zr, err := zip.OpenReader(p)
		if err != nil {
			continue
		}
		for _, f := range zr.File {
			names = append(names, f.Name)
		}
		zr.Close()
	}
	if len(paths) < 20 || len(names) < 500 {
		t.Fatalf("only %d names from %d logs", len(names), len(paths))
	}
	for _, name := range names {
		checkNameAsRegexps(t, name)
	}
}

func FuzzMemberNames(f *testing.F) {
	for _, name := range nameCases {
		f.Add(name)
	}
	f.Fuzz(func(t *testing.T, name string) {
		checkNameAsRegexps(t, name)
	})
}
