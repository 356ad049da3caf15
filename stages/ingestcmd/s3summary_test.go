package ingestcmd_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/s3"

	"empties/internal/objstore/s3test"
	"empties/internal/testutil"
)

// An s3:// PATH is read with the endpoint and credentials of the AWS
// environment (a real S3-compatible server, versitygw, on loopback), and the
// summary says what was fetched, about each object's size once, and names
// the object skipped as no log by its URL. (internal/ingest's tests compare
// the rows with those of the same files on disk.)
func TestS3Summary(t *testing.T) {
	srv := s3test.Start(t)
	srv.Setenv(t)
	srv.Bucket(t, "logs")
	log, err := os.ReadFile(testutil.Path(t, "testdata", "logs", "zstd-basic.eval"))
	if err != nil {
		t.Fatal(err)
	}
	bucket := "logs"
	for key, body := range map[string][]byte{"study/a.eval": log, "study/notes.json": []byte(`{"hello": 1}`)} {
		if _, err := srv.Client().PutObject(context.Background(), &s3.PutObjectInput{Bucket: &bucket, Key: &key, Body: bytes.NewReader(body)}); err != nil {
			t.Fatal(err)
		}
	}
	stdout, stderr, err := runCommand(t, "--out", filepath.Join(t.TempDir(), "ds"), "--progress", "never", "s3://logs/study/")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for _, want := range []string{"ingested 1 of 1 file, ", "; 1 file skipped\n", "  skipped s3://logs/study/notes.json: a .json file that is not an Inspect log"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, stdout)
		}
	}
	var mb float64
	var gets int
	if i := strings.Index(stdout, "fetched "); i < 0 {
		t.Errorf("the summary does not say what was fetched:\n%s", stdout)
	} else if _, err := fmt.Sscanf(stdout[i:], "fetched %f MB from object storage in %d GETs", &mb, &gets); err != nil {
		t.Errorf("the summary's fetched line: %v\n%s", err, stdout)
	} else if size := float64(len(log)) / 1e6; gets == 0 || mb > 1.1*size+0.05 || mb < size-0.05 { // the summary rounds to 0.1 MB
		t.Errorf("fetched %.1f MB in %d GETs for one object of %.2f MB; want its bytes about once", mb, gets, size)
	}
}
