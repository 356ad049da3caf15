package serve_test

import (
	"bytes"
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/s3"

	"empties/internal/ingest"
	"empties/internal/objstore/s3test"
	"empties/internal/serve"
	"empties/internal/testutil"
)

// A sample of a log in a bucket is read with ranged GETs of the object's
// central directory, header and that one member, not a download of the
// log: on a real S3-compatible server (versitygw on loopback), the sample
// page of a 2.8 MB .eval of 1,221 samples fetches a small part of it; a
// .json log in a bucket is read too (streamed once, as ingest reads it).
func TestSampleFromS3(t *testing.T) {
	srv := s3test.Start(t)
	srv.Setenv(t)
	srv.Bucket(t, "logs")
	wildLogs := filepath.Join(testutil.WildCorpus(t), "logs")
	big := "0-ft__inspect-db__2025-04-10T09-09-00+01-00_commonsense-qa_BvqVogcx7wZWDpvRYnci6b.eval"
	files := map[string]string{
		"wild/" + big:                 filepath.Join(wildLogs, big),
		"fx/retry-first-attempt.eval": testutil.Path(t, "testdata", "logs", "retry-first-attempt.eval"),
		"fx/string-ids.json":          testutil.Path(t, "testdata", "logs", "string-ids.json"),
	}
	for key, path := range files {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := srv.Client().PutObject(context.Background(), &s3.PutObjectInput{Bucket: strPtr("logs"), Key: &key, Body: bytes.NewReader(b)}); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	if err := ingest.Build(context.Background(), ingest.Config{Paths: []string{"s3://logs/"}, Out: dir}); err != nil {
		t.Fatal(err)
	}
	s, hs := server(t, serve.Options{Data: dir})
	open := func(key, id string) string {
		r := testutil.Query(t, dir, "SELECT log_id, text FROM replies JOIN logs USING (log_id) WHERE path = ? AND sample_id = ?", "s3://logs/"+key, id)
		if len(r) != 1 {
			t.Fatalf("%s sample %s: %d rows", key, id, len(r))
		}
		body := page(t, hs.URL, "/sample?"+url.Values{"log": {r[0][0]}, "id": {id}, "epoch": {"1"}}.Encode())
		if strings.Contains(body, `id="log-error"`) || !strings.Contains(reply(body), htmlEscape(r[0][1][:min(40, len(r[0][1]))])) {
			t.Errorf("%s sample %s: not read from the bucket:\n%.2500s", key, id, body)
		}
		return body
	}
	open("wild/"+big, "1")
	requests, fetched := s.ObjectStats()
	size := int64(2837705)
	t.Logf("the sample page of a %d-byte .eval in a bucket fetched %d bytes in %d GETs", size, fetched, requests)
	if fetched == 0 || fetched > size/4 {
		t.Errorf("fetched %d bytes of a %d-byte log for one sample: want ranged reads of a small part", fetched, size)
	}
	if body := open("fx/retry-first-attempt.eval", "2"); !strings.Contains(body, `data-status="retried"`) {
		t.Errorf("retry-first-attempt.eval from the bucket: no retried attempt")
	}
	open("fx/string-ids.json", "b")
}

func strPtr(s string) *string { return &s }
