package ingest_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/s3"

	"empties/internal/cliutil"
	"empties/internal/evallog"
	"empties/internal/ingest"
	"empties/internal/objstore/s3test"
	"empties/internal/testutil"
)

// Ingesting s3://bucket/prefix/ from a real S3-compatible server (versitygw
// on loopback) gives the tables an ingest of the same objects downloaded to
// disk gives, row for row, but for the path (the s3:// URL) and the log_id
// derived from it (and logs.etag, NULL for a file). The logs were written into the bucket by the pinned
// inspect_ai through its own S3 support: an eval() with log_dir=s3://...,
// write_eval_log() of fixtures as .eval and .json, and every committed
// fixture byte for byte; a .checkpoints/ folder, a dot folder and a .json
// that is not a log are left out as on disk.
func TestS3IngestMatchesDisk(t *testing.T) {
	srv := s3test.Start(t)
	srv.Setenv(t)
	srv.Bucket(t, "logs")
	srv.Inspect(t, "study", "s3://logs/study/", "--fixtures", testutil.Path(t, "testdata", "logs"))
	local := t.TempDir()
	srv.Download(t, "logs", "study/", local)

	s3dir, s3res, stderr, err := runIngest(t, "s3://logs/study/")
	if err != nil {
		t.Fatalf("ingest s3://logs/study/: %v\n%s", err, stderr)
	}
	diskDir, _, stderr, err := runIngest(t, local)
	if err != nil {
		t.Fatalf("ingest of the downloaded copy: %v\n%s", err, stderr)
	}
	if want := (ingest.Skipped{Path: "s3://logs/study/notes.json", Reason: "a .json file that is not an Inspect log"}); !skippedAs(s3res.SkippedFiles, want) {
		t.Errorf("the skipped files %+v do not name notes.json", s3res.SkippedFiles)
	}

	// Each object read is fetched about once: an .eval's hash comes from
	// the same download its members are read from.
	var stored int64
	filepath.WalkDir(local, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.Contains(p, ".checkpoints") && !strings.Contains(p, ".hidden") {
			if fi, err := d.Info(); err == nil {
				stored += fi.Size()
			}
		}
		return err
	})
	fetched := s3res.Fetched
	t.Logf("fetched %d bytes in %d GETs for %d bytes of objects", fetched.Bytes, fetched.Requests, stored)
	if fetched.Requests == 0 {
		t.Errorf("the result says nothing was fetched: %+v", fetched)
	}
	if float64(fetched.Bytes) > 1.1*float64(stored) {
		t.Errorf("fetched %d bytes for %d bytes of objects; want each byte about once", fetched.Bytes, stored)
	}

	paths := testutil.Query(t, s3dir, "SELECT path FROM logs ORDER BY path")
	if len(paths) < 30 {
		t.Fatalf("%d logs ingested from the bucket, want the 2 eval() logs, 8 rewritten and the fixtures", len(paths))
	}
	for _, p := range paths {
		if !strings.HasPrefix(p[0], "s3://logs/study/") || strings.Contains(p[0], ".checkpoints/") || strings.Contains(p[0], "/.hidden/") {
			t.Errorf("logs.path %s: want an s3://logs/study/ URL outside checkpoint and dot folders", p[0])
		}
	}

	// Every log_id and path becomes the path relative to what was ingested.
	relabel := func(dir, root string) map[string]string {
		m := map[string]string{}
		for _, r := range testutil.Query(t, dir, "SELECT log_id, path FROM logs") {
			rel := strings.TrimPrefix(filepath.ToSlash(strings.TrimPrefix(r[1], root)), "/")
			m[r[0]], m[r[1]] = "id:"+rel, "path:"+rel
		}
		return m
	}
	s3map, diskMap := relabel(s3dir, "s3://logs/study/"), relabel(diskDir, local)
	for _, table := range []string{"logs", "replies", "scores", "model_calls", "ingest_errors"} {
		t.Run(table, func(t *testing.T) {
			got := tableRows(t, s3dir, table, s3map)
			want := tableRows(t, diskDir, table, diskMap)
			if table != "ingest_errors" && len(want) == 0 {
				t.Fatalf("no %s rows from disk", table)
			}
			if !slices.Equal(got, want) {
				for i := range max(len(got), len(want)) {
					g, w := "", ""
					if i < len(got) {
						g = got[i]
					}
					if i < len(want) {
						w = want[i]
					}
					if g != w {
						t.Fatalf("%s: %d rows from S3, %d from disk; first difference:\n s3:   %s\n disk: %s", table, len(got), len(want), g, w)
					}
				}
			}
		})
	}
}

// The streaming decode (samples of 8 MiB or more, forced here for every
// sample with every text over 64 bytes cut in 32-byte reads) reads the
// members of objects through the same ranged reader, and gives the same rows.
func TestS3StreamDecodeMatches(t *testing.T) {
	srv := s3test.Start(t)
	srv.Setenv(t)
	srv.Bucket(t, "logs")
	srv.Inspect(t, "copy", "s3://logs/fx/", testutil.Path(t, "testdata", "logs"))
	whole, _, stderr, err := runIngest(t, "s3://logs/fx/")
	var partial *cliutil.PartialError
	if err != nil && !errors.As(err, &partial) {
		t.Fatalf("ingest: %v\n%s", err, stderr)
	}
	restore := evallog.SetStreamSizes(0, 64, 32)
	streamed, _, stderr, err := runIngest(t, "s3://logs/fx/")
	restore()
	if err != nil && !errors.As(err, &partial) {
		t.Fatalf("streamed ingest: %v\n%s", err, stderr)
	}
	for _, table := range []string{"logs", "replies", "scores", "model_calls", "ingest_errors"} {
		got, want := tableRows(t, streamed, table, nil), tableRows(t, whole, table, nil)
		if table == "replies" && len(want) < 50 {
			t.Fatalf("only %d replies", len(want))
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: streamed from S3 differs (%d rows, want %d)", table, len(got), len(want))
		}
	}
}

// tableRows returns a table's rows as sorted lines, each cell that is a
// log_id or path replaced as m says; logs.etag, which only objects have, is
// left out.
func tableRows(t *testing.T, dir, table string, m map[string]string) []string {
	var out []string
	q := "SELECT * FROM " + table
	if table == "logs" {
		q = "SELECT * EXCLUDE (etag) FROM logs"
	}
	for _, r := range testutil.Query(t, dir, q) {
		for i, c := range r {
			if v, ok := m[c]; ok {
				r[i] = v
			}
		}
		out = append(out, strings.Join(r, "\x1f"))
	}
	slices.Sort(out)
	return out
}

// A URL that cannot be listed is an ingest_errors row naming it, with why;
// the other paths are still ingested and the exit code is 1. When nothing
// else is given, the run fails with the reason.
func TestS3ListingErrors(t *testing.T) {
	srv := s3test.Start(t)
	srv.Setenv(t)
	srv.Bucket(t, "logs")
	good := testutil.Path(t, "testdata", "logs", "zstd-basic.eval")

	dir, _, stderr, err := runIngest(t, "s3://no-such-bucket/logs/", good)
	var pe *cliutil.PartialError
	if !errors.As(err, &pe) {
		t.Fatalf("a missing bucket beside a good file: %v, want a partial failure", err)
	}
	if !strings.Contains(stderr, "s3://no-such-bucket/logs/: no such bucket") {
		t.Errorf("stderr does not name the bucket:\n%s", stderr)
	}
	if rows := testutil.Query(t, dir, "SELECT path, error FROM ingest_errors"); len(rows) != 1 || rows[0][0] != "s3://no-such-bucket/logs/" || !strings.Contains(rows[0][1], "no such bucket") {
		t.Errorf("ingest_errors: %v", rows)
	}
	if rows := testutil.Query(t, dir, "SELECT path FROM logs"); len(rows) != 1 || rows[0][0] != good {
		t.Errorf("logs: %v, want the good file", rows)
	}

	t.Setenv("AWS_SECRET_ACCESS_KEY", "wrong")
	_, _, _, err = runIngest(t, "s3://logs/study/")
	if err == nil || !strings.Contains(err.Error(), "s3://logs/study/: access refused") || !strings.Contains(err.Error(), "AWS_SECRET_ACCESS_KEY") {
		t.Errorf("bad credentials: %v, want an error naming the URL and the variables to check", err)
	}
	var ue *cliutil.UsageError
	if errors.As(err, &ue) {
		t.Errorf("bad credentials are reported as a usage error: %v", err)
	}
}

// An ingest of s3:// objects into a dataset is incremental by ETag and
// size: a second ingest of an unchanged prefix opens no object, an object
// overwritten with other bytes (of another size, or of the same size) is
// read again, a deleted one's rows go, and
// every step leaves the tables a full ingest of the prefix writes.
// logs.etag keeps the listed ETag.
func TestS3IncrementalByETag(t *testing.T) {
	srv := s3test.Start(t)
	srv.Setenv(t)
	srv.Bucket(t, "logs")
	src := t.TempDir()
	for _, f := range []string{"zstd-basic.eval", "epochs.eval", "string-ids.json"} {
		testutil.CopyFile(t, testutil.Path(t, "testdata", "logs", f), filepath.Join(src, f))
	}
	srv.Inspect(t, "copy", "s3://logs/inc/", src)
	const url = "s3://logs/inc/"
	ds := t.TempDir()
	opened, hashed := ingest.CountReads(t)

	reingest(t, url, ds, false, false)
	if n := opened.Swap(0); n != 3 {
		t.Fatalf("first ingest opened %d objects, want 3", n)
	}
	if rows := testutil.Query(t, ds, "SELECT count(*) FROM logs WHERE etag IS NULL OR etag = ''"); rows[0][0] != "0" {
		t.Errorf("%s logs rows of objects have no etag", rows[0][0])
	}

	res := reingest(t, url, ds, false, false)
	expect(t, "unchanged", res, ingest.Incremental{Unchanged: 3}, 0, 0, opened, hashed)

	other, err := os.ReadFile(testutil.Path(t, "testdata", "logs", "attachments.eval"))
	if err != nil {
		t.Fatal(err)
	}
	put := func(key string, body []byte) {
		bucket := "logs"
		if _, err := srv.Client().PutObject(context.Background(), &s3.PutObjectInput{Bucket: &bucket, Key: &key, Body: bytes.NewReader(body)}); err != nil {
			t.Fatal(err)
		}
	}
	put("inc/epochs.eval", other)
	res = reingest(t, url, ds, false, false)
	expect(t, "overwritten", res, ingest.Incremental{Changed: 1, Unchanged: 2}, 1, 0, opened, hashed)
	sameAsFull(t, "overwritten", url, ds, false, opened, hashed)

	// The same size, other bytes: only the ETag tells.
	js, err := os.ReadFile(filepath.Join(src, "string-ids.json"))
	if err != nil {
		t.Fatal(err)
	}
	same := bytes.Replace(js, []byte(`"Repeat the word alpha."`), []byte(`"Repeat the word ALPHA."`), 1)
	if bytes.Equal(same, js) {
		t.Fatal("string-ids.json no longer holds the input this test edits")
	}
	put("inc/string-ids.json", same)
	res = reingest(t, url, ds, false, false)
	expect(t, "same size", res, ingest.Incremental{Changed: 1, Unchanged: 2}, 1, 0, opened, hashed)
	sameAsFull(t, "same size", url, ds, false, opened, hashed)

	bucket, key := "logs", "inc/zstd-basic.eval"
	if _, err := srv.Client().DeleteObject(context.Background(), &s3.DeleteObjectInput{Bucket: &bucket, Key: &key}); err != nil {
		t.Fatal(err)
	}
	res = reingest(t, url, ds, false, false)
	expect(t, "deleted", res, ingest.Incremental{Unchanged: 2, Removed: 1}, 0, 0, opened, hashed)
	sameAsFull(t, "deleted", url, ds, false, opened, hashed)
}
