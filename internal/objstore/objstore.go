// Package objstore reads logs from S3 and S3-compatible object storage:
// it lists the objects under an s3://bucket/prefix/ URL and reads one
// object: an .eval log's central directory and header through ranged GETs,
// then the whole object once, in order, into a temporary file that the
// member reads are served from as it fills (spool.go); a .json log in one
// GET.
//
// Credentials, region and endpoint come from the standard AWS environment
// and configuration files, as the AWS CLI and inspect_ai's s3fs read them:
// AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN, AWS_PROFILE
// and ~/.aws/config and credentials, AWS_REGION, and AWS_ENDPOINT_URL (or
// AWS_ENDPOINT_URL_S3) for an S3-compatible server. With a custom endpoint
// buckets are addressed by path (http://host:port/bucket/key), which every
// S3-compatible server accepts; without one, as AWS addresses them.
package objstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
)

// Scheme is the URL scheme of an object: s3://bucket/key.
const Scheme = "s3://"

// IsURL reports whether a path names objects rather than local files.
func IsURL(p string) bool { return strings.HasPrefix(p, Scheme) }

// URL is a parsed s3://bucket/key.
type URL struct {
	Bucket, Key string
}

// ParseURL splits s3://bucket/key (the key may be empty or a prefix).
func ParseURL(s string) (URL, error) {
	if !IsURL(s) {
		return URL{}, fmt.Errorf("%s: not an s3:// URL", s)
	}
	rest := strings.TrimPrefix(s, Scheme)
	bucket, key, _ := strings.Cut(rest, "/")
	if bucket == "" {
		return URL{}, fmt.Errorf("%s: no bucket (expected s3://bucket/prefix/)", s)
	}
	return URL{Bucket: bucket, Key: key}, nil
}

func (u URL) String() string { return Scheme + u.Bucket + "/" + u.Key }

// Object is one listed object, with the fingerprint that tells whether it
// changed: size, ETag and LastModified. The ETag changes whenever the bytes
// do (for a single-part upload it is their MD5; for a multipart one it
// depends on the part sizes too, so an identical copy may differ).
type Object struct {
	URL          string // s3://bucket/key, what the logs table keeps as path
	Bucket, Key  string
	Size         int64
	ETag         string // as the server sends it, without quotes
	LastModified time.Time
}

// Client reads objects. Its counters add up every GET it made and the body
// bytes they returned.
type Client struct {
	s3       *s3.Client
	endpoint string // the custom endpoint, "" for AWS

	requests atomic.Int64
	bytes    atomic.Int64
}

// New loads the standard AWS configuration (environment, AWS_PROFILE,
// ~/.aws/config) into a client.
func New(ctx context.Context) (*Client, error) {
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, fmt.Errorf("loading the AWS configuration: %w", err)
	}
	if cfg.Region == "" {
		// S3-compatible servers ignore the region, but requests are signed
		// with one; AWS itself redirects to the bucket's.
		cfg.Region = "us-east-1"
	}
	c := &Client{}
	c.s3 = s3.NewFromConfig(cfg, func(o *s3.Options) {
		if o.BaseEndpoint != nil {
			c.endpoint = *o.BaseEndpoint
			o.UsePathStyle = true
		}
		// Ranged reads carry no whole-object checksum to validate, and
		// S3-compatible servers differ in the checksums they send.
		o.ResponseChecksumValidation = aws.ResponseChecksumValidationWhenRequired
		o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
	})
	return c, nil
}

// Stats are the GETs a client made and the bytes their bodies returned.
type Stats struct{ Requests, Bytes int64 }

// Stats returns the counters so far.
func (c *Client) Stats() Stats {
	return Stats{Requests: c.requests.Load(), Bytes: c.bytes.Load()}
}

// List returns the objects a URL names: the object itself when the URL is
// one object's key, else every object under the prefix (a URL without a
// trailing slash is taken as a folder when no object has that key). The
// objects are in key order; an empty list is no error.
func (c *Client) List(ctx context.Context, rawURL string) ([]Object, error) {
	u, err := ParseURL(rawURL)
	if err != nil {
		return nil, err
	}
	if u.Key != "" && !strings.HasSuffix(u.Key, "/") {
		h, err := c.s3.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &u.Bucket, Key: &u.Key})
		if err == nil {
			return []Object{{URL: u.String(), Bucket: u.Bucket, Key: u.Key, Size: aws.ToInt64(h.ContentLength),
				ETag: unquote(aws.ToString(h.ETag)), LastModified: aws.ToTime(h.LastModified)}}, nil
		}
		if !isNotFound(err) {
			return nil, c.describe(rawURL, err)
		}
		u.Key += "/"
	}
	var out []Object
	p := s3.NewListObjectsV2Paginator(c.s3, &s3.ListObjectsV2Input{Bucket: &u.Bucket, Prefix: &u.Key})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, c.describe(rawURL, err)
		}
		for _, o := range page.Contents {
			key := aws.ToString(o.Key)
			if strings.HasSuffix(key, "/") { // a folder marker
				continue
			}
			out = append(out, Object{URL: Scheme + u.Bucket + "/" + key, Bucket: u.Bucket, Key: key, Size: aws.ToInt64(o.Size),
				ETag: unquote(aws.ToString(o.ETag)), LastModified: aws.ToTime(o.LastModified)})
		}
	}
	return out, nil
}

// Stream reads a whole object in one GET (more if the connection breaks
// off). The object must still be the one listed (If-Match on its ETag), or
// the read fails.
func (c *Client) Stream(ctx context.Context, o Object) (io.ReadCloser, error) {
	return c.getObject(ctx, o, 0, o.Size)
}

// get reads [off, off+n) of an object into p (len(p) == n).
func (c *Client) get(ctx context.Context, o Object, p []byte, off int64) error {
	body, err := c.getRange(ctx, o, off, int64(len(p)))
	if err != nil {
		return err
	}
	defer body.Close()
	if _, err := io.ReadFull(body, p); err != nil {
		return fmt.Errorf("%s: reading bytes %d-%d: %w", o.URL, off, off+int64(len(p))-1, err)
	}
	return nil
}

// getRange returns the body of one GET of [off, off+n) of an object, as
// listed (If-Match on its ETag).
func (c *Client) getRange(ctx context.Context, o Object, off, n int64) (io.ReadCloser, error) {
	return c.getObject(ctx, o, off, off+n)
}

// getObject returns the body of [off, end) of an object, as listed
// (If-Match on its ETag): one counted GET (of a range unless it is the
// whole object), and another from where the body broke off should the
// connection fail while it is read.
func (c *Client) getObject(ctx context.Context, o Object, off, end int64) (io.ReadCloser, error) {
	b := &resumingBody{c: c, ctx: ctx, obj: o, pos: off, end: end}
	if err := b.get(); err != nil {
		return nil, err
	}
	return b, nil
}

// resumeAttempts is how many GETs in a row may fail, or break off before
// delivering a byte, before a read gives up; resumeWait the wait before
// the first of them, doubled for each next one. Variables for the tests.
var (
	resumeAttempts = 5
	resumeWait     = 100 * time.Millisecond
)

// resumingBody reads [pos, end) of an object. A body that breaks off (a
// reset connection, a body shorter than its Content-Length) is resumed by
// a GET of what it had not delivered: every byte is fetched once, and the
// ETag the GET must match means the bytes are all of one object (a change
// fails with PreconditionFailed). It stops delivering as soon as its
// context is done: the transport closes the connection only when its own
// goroutine next runs, and until then a read is served from the megabytes
// a loopback socket may hold.
type resumingBody struct {
	c        *Client
	ctx      context.Context
	obj      Object
	pos, end int64
	body     io.ReadCloser
	failures int // GETs in a row that delivered nothing
}

func (b *resumingBody) get() error {
	in := &s3.GetObjectInput{Bucket: &b.obj.Bucket, Key: &b.obj.Key}
	if b.pos > 0 || b.end < b.obj.Size {
		in.Range = aws.String(fmt.Sprintf("bytes=%d-%d", b.pos, b.end-1))
	}
	if b.obj.ETag != "" {
		in.IfMatch = aws.String(`"` + b.obj.ETag + `"`)
	}
	out, err := b.c.s3.GetObject(b.ctx, in)
	b.c.requests.Add(1)
	if err != nil {
		return b.c.describe(b.obj.URL, err)
	}
	b.body = out.Body
	return nil
}

func (b *resumingBody) Read(p []byte) (int, error) {
	for {
		if err := b.ctx.Err(); err != nil {
			return 0, err
		}
		if b.pos >= b.end {
			return 0, io.EOF
		}
		if len(p) == 0 {
			return 0, nil
		}
		p = p[:min(int64(len(p)), b.end-b.pos)]
		n, err := b.body.Read(p)
		b.c.bytes.Add(int64(n))
		b.pos += int64(n)
		if n > 0 {
			b.failures = 0
		}
		switch {
		case err == nil || err == io.EOF && b.pos >= b.end:
			return n, nil
		case b.ctx.Err() != nil:
			return n, b.ctx.Err()
		case n > 0:
			return n, nil // the error comes again at the next read
		}
		// The body broke off (an early EOF is a short body): resume.
		b.body.Close()
		if b.failures++; b.failures >= resumeAttempts {
			// No URL: the caller's error names it, as for any read. The
			// cause is not wrapped: an early EOF here is a connection
			// that broke off, not an object shorter than listed (a
			// resumed GET of one fails with InvalidRange or
			// PreconditionFailed).
			return 0, fmt.Errorf("the connection broke off at byte %d, %d times in a row (%v)", b.pos, b.failures, err)
		}
		select {
		case <-time.After(resumeWait << (b.failures - 1)):
		case <-b.ctx.Done():
			return 0, b.ctx.Err()
		}
		if err := b.get(); err != nil {
			return 0, err
		}
	}
}

func (b *resumingBody) Close() error { return b.body.Close() }

// Head returns the first n bytes of an object (fewer if it is shorter), in
// one GET of exactly them.
func (c *Client) Head(ctx context.Context, o Object, n int64) ([]byte, error) {
	p := make([]byte, min(n, o.Size))
	if len(p) == 0 {
		return p, nil
	}
	if err := c.get(ctx, o, p, 0); err != nil {
		return nil, err
	}
	return p, nil
}

func unquote(etag string) string { return strings.Trim(etag, `"`) }

func isNotFound(err error) bool {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		switch ae.ErrorCode() {
		case "NotFound", "NoSuchKey", "404":
			return true
		}
	}
	return false
}

// describe turns an S3 error into one a user can act on, naming the URL.
func (c *Client) describe(rawURL string, err error) error {
	where := "AWS"
	if c.endpoint != "" {
		where = c.endpoint
	}
	var ae smithy.APIError
	if errors.As(err, &ae) {
		switch ae.ErrorCode() {
		case "NoSuchBucket":
			return fmt.Errorf("%s: no such bucket at %s", rawURL, where)
		case "NoSuchKey", "NotFound":
			return fmt.Errorf("%s: no such object at %s", rawURL, where)
		case "InvalidAccessKeyId", "SignatureDoesNotMatch", "AccessDenied", "Forbidden", "InvalidToken", "ExpiredToken",
			"XAdminUserNotFound": // versitygw's InvalidAccessKeyId
			return fmt.Errorf("%s: access refused by %s (%s): check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE", rawURL, where, ae.ErrorCode())
		case "InvalidRange":
			return fmt.Errorf("%s: the object is shorter than listed; it changed while it was being read: ingest it again", rawURL)
		case "PreconditionFailed":
			return fmt.Errorf("%s: the object changed while it was being read (its ETag no longer matches the listing): ingest it again", rawURL)
		}
		return fmt.Errorf("%s: %s: %s", rawURL, ae.ErrorCode(), ae.ErrorMessage())
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return fmt.Errorf("%s: cannot reach %s: %v (check AWS_ENDPOINT_URL)", rawURL, where, ue.Err)
	}
	return fmt.Errorf("%s: %w", rawURL, err)
}
