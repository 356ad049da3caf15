package evallog

import (
	"archive/zip"
	"bytes"
	"sync"

	json "github.com/goccy/go-json"
)

// summary is what readSummaries reads of a sample summary
// (EvalSampleSummary): its id as written, and its epoch. The decoder's
// errors name the type ("cannot unmarshal object into Go value of type
// []evallog.summary"), which the ingest_errors table stores: keep its name.
type summary struct {
	ID    json.RawMessage `json:"id"`
	Epoch int             `json:"epoch"`
}

// readSummaryRows inflates the summaries member zf and calls each with its
// rows in order; the rows' ids refer to a buffer that is reused once it
// returns. Its errors are the member's read or decode error, unwrapped.
func (l *Log) readSummaryRows(zf *zip.File, each func(summary)) error {
	return l.readSmallMember(zf, func(b []byte) error {
		rows, ok := summaryRowsFast(b, nil)
		if !ok {
			var err error
			if rows, err = summaryRowsDecoded(b); err != nil {
				return err
			}
		}
		for _, r := range rows {
			each(r)
		}
		return nil
	})
}

// readSmallMember inflates zf, a member read whole at opening (summaries,
// reductions), into a pooled buffer and calls use with its bytes, which
// are reused once it returns. Its error is the member's read error or
// use's, unwrapped.
func (l *Log) readSmallMember(zf *zip.File, use func(b []byte) error) error {
	bp := summaryBuffers.Get().(*[]byte)
	defer summaryBuffers.Put(bp)
	b, err := appendMember((*bp)[:0], zf, l.maxMember, l.Size)
	if err != nil {
		return err
	}
	if cap(b) <= maxPooledSummaries {
		*bp = b
	}
	return use(b)
}

// summaryBuffers hold a small member (readSmallMember) while it is read: a
// summaries member is about 3 kB a sample, 1 MB for a bench corpus log,
// which a fresh buffer for each log made and zeroed.
var summaryBuffers = sync.Pool{New: func() any { return new([]byte) }}

const maxPooledSummaries = 16 << 20

// summaryRowsDecoded decodes a summaries member with the decoder, as every
// member was read before summaryRowsFast: for anything the walk does not
// take, the same rows or the same error.
func summaryRowsDecoded(b []byte) ([]summary, error) {
	var rows []summary
	b, _ = lastKeyWins(b)
	if _, err := unmarshal(b, &rows); err != nil {
		return nil, describeJSONError(b, err)
	}
	return rows, nil
}

// summaryRowsFast reads the rows of a summaries member with the sample's
// walk (walk.go), appended to rows, when the member is a list of objects
// the walk takes: strictly valid JSON with plain keys (lower-case ASCII
// without escapes: the decoder matches a field to a key without regard to
// case), no object that repeats a key (so lastKeyWins leaves it as it is),
// an id that is no NaN or Infinity, and an epoch that is an integer literal
// that fits an int, or null. Then the decoder reads the same rows from it
// (FuzzSummaryRows holds the two to each other); otherwise it reports
// false, and the member is decoded (summaryRowsDecoded), for the same rows
// or the same error as before. It checks all of the member as the decoder
// does, and leaves the ids where they lie in b.
func summaryRowsFast(b []byte, rows []summary) ([]summary, bool) {
	w := &walk{b: b, mayIndex: true}
	defer w.release()
	row := func(w *walk, key []byte, vs int) (int, bool) {
		for _, c := range key {
			if c >= 0x80 || c-'A' < 26 {
				return 0, false // a key the decoder might take for a field
			}
		}
		r := &rows[len(rows)-1]
		switch string(key) {
		case "id":
			end, ok := w.rawValue(vs, &r.ID)
			if ok && r.ID[0] != '"' && (bytes.Contains(r.ID, []byte("NaN")) || bytes.Contains(r.ID, []byte("Infinity"))) {
				return 0, false // the decoder's id holds the string it rewrites a NaN to
			}
			return end, ok
		case "epoch":
			return w.intValue(vs, &r.Epoch)
		}
		return w.skipField(vs)
	}
	end, ok := w.elements(ws(b, 0), func(w *walk, es int) (int, bool) {
		rows = append(rows, summary{})
		return w.members(es, row)
	})
	return rows, ok && ws(b, end) == len(b)
}
