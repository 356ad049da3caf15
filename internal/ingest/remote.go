package ingest

import (
	"context"
	"fmt"
	"io"
	"path"
	"slices"
	"sort"
	"strings"

	"empties/internal/evallog"
	"empties/internal/logset"
	"empties/internal/objstore"
	"empties/internal/store"
	"empties/schema"
)

// remoteLogs are the logs of the s3:// URLs of one run: what their listings
// found, and the URLs that could not be listed.
type remoteLogs struct {
	client  *objstore.Client
	objects map[string]objstore.Object // by URL
	files   []string
	skipped []Skipped
	errs    []schema.IngestError // one per URL that could not be listed
}

// splitURLs separates s3:// URLs from local paths.
func splitURLs(paths []string) (local, urls []string) {
	for _, p := range paths {
		if objstore.IsURL(p) {
			urls = append(urls, p)
		} else {
			local = append(local, p)
		}
	}
	return local, urls
}

// discoverRemote lists the URLs by the rules discover applies to folders:
// under a prefix, every .eval object and every .json object that opens
// like an Inspect log, leaving out "."-folders and <name>.checkpoints/; an
// object named exactly is always taken. A URL that cannot be listed (no such
// bucket, credentials refused, endpoint unreachable) is an ingest_errors row
// naming it; the other paths are still read.
func discoverRemote(ctx context.Context, urls []string) (*remoteLogs, error) {
	r := &remoteLogs{objects: map[string]objstore.Object{}}
	if len(urls) == 0 {
		return r, nil
	}
	parsed := make([]objstore.URL, len(urls))
	for i, u := range urls {
		var err error
		if parsed[i], err = objstore.ParseURL(u); err != nil {
			return nil, fmt.Errorf("ingest: %w", err)
		}
	}
	c, err := objstore.New(ctx)
	if err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	r.client = c
	for i, u := range urls {
		objs, err := c.List(ctx, u)
		if err != nil {
			r.errs = append(r.errs, schema.IngestError{Path: u, Error: err.Error()})
			continue
		}
		if len(objs) == 1 && objs[0].URL == u { // one object, named exactly
			r.add(objs[0])
			continue
		}
		prefix := parsed[i].Key
		if prefix != "" && !strings.HasSuffix(prefix, "/") {
			prefix += "/"
		}
		// An empties dataset stored under the prefix holds no logs: its
		// objects are left out, silently.
		var datasets []string
		for _, o := range objs {
			if rel := strings.TrimPrefix(o.Key, prefix); path.Base(rel) == store.MarkerFile {
				datasets = append(datasets, strings.TrimSuffix(rel, store.MarkerFile))
			}
		}
		for _, o := range objs {
			rel := strings.TrimPrefix(o.Key, prefix)
			if slices.ContainsFunc(datasets, func(d string) bool { return strings.HasPrefix(rel, d) }) {
				continue
			}
			if why, ok := r.keep(ctx, o, rel); !ok {
				if why != "" {
					r.skipped = append(r.skipped, Skipped{o.URL, why})
				}
				continue
			}
			r.add(o)
		}
	}
	sort.Strings(r.files)
	return r, nil
}

func (r *remoteLogs) add(o objstore.Object) {
	if _, seen := r.objects[o.URL]; !seen {
		r.objects[o.URL] = o
		r.files = append(r.files, o.URL)
	}
}

// keep says whether a listed object under a prefix is read, by its key
// relative to the prefix; a .json object that is not a log is skipped with
// why.
func (r *remoteLogs) keep(ctx context.Context, o objstore.Object, rel string) (why string, ok bool) {
	dirs := strings.Split(rel, "/")
	name := dirs[len(dirs)-1]
	for _, d := range dirs[:len(dirs)-1] {
		if logset.SkipDir(d) {
			return "", false
		}
	}
	switch isEval, isJSON := logset.LogName(name); {
	case isEval:
		return "", true
	case !isJSON:
		return "", false
	}
	why = whyNotALog(o.Size, func() ([]byte, error) { return r.client.Head(ctx, o, logset.JSONHeadBytes) })
	return why, why == ""
}

// merge adds the listed objects to the local files, in one sorted order.
func (r *remoteLogs) merge(files []string, skipped []Skipped) ([]string, []Skipped) {
	// URLs sort after absolute paths ("s3:" > "/"), so appending keeps order.
	files = append(files, r.files...)
	skipped = append(skipped, r.skipped...)
	return files, skipped
}

// fingerprints fills in the listed size, LastModified and ETag of each
// object; fingerprints (discover.go) has stat'ed the local files.
func (r *remoteLogs) fingerprints(fps []Fingerprint) []Fingerprint {
	for i := range fps {
		if o, ok := r.objects[fps[i].Path]; ok {
			fps[i].Size, fps[i].ETag = o.Size, o.ETag
			if !o.LastModified.IsZero() {
				fps[i].ModTime = o.LastModified.UnixMicro()
			}
		}
	}
	return fps
}

// open opens a log: an object through the client, a file from disk.
func (r *remoteLogs) open(ctx context.Context, p string, lim evallog.Limits) (*evallog.Log, error) {
	if o, ok := r.objects[p]; ok {
		return openObject(ctx, r.client, o, lim)
	}
	return openLog(p, lim)
}

// openObject opens an object's log; a variable, like openLog, so that
// tests count the objects an ingest opens.
var openObject = func(ctx context.Context, c *objstore.Client, o objstore.Object, lim evallog.Limits) (*evallog.Log, error) {
	return c.OpenLog(ctx, o, lim, false)
}

// report counts each URL that could not be listed as a failed input, and
// the GETs the run made.
func (r *remoteLogs) report(sum *Summary, log io.Writer) {
	if r.client != nil {
		sum.Fetched = r.client.Stats()
	}
	for _, e := range r.errs {
		sum.Files++
		sum.Failed++
		sum.Errors = append(sum.Errors, e)
		fmt.Fprintf(log, "error: %s\n", e.Error)
	}
}
