package evallog

import (
	"math/bits"
	"sync"
)

// The validating scan of the values the walk skips (skipChecked). The walk
// must check all of a value it skips as the decoder would (inspect_ai
// refuses a document invalid anywhere), and byte by byte that check was
// most of the walk's time. With AVX2 it is done as simdjson does it: a
// structural pass (stage1AVX2, scan_amd64.s) classifies the whole sample
// 64 bytes at a time into a bitmap of where its tokens start (every
// unescaped quote; { } [ ] : , outside strings; the first byte of every
// run of scalar bytes outside strings), finding on the way every control
// byte inside a string and every invalid escape; then skip walks a
// value's tokens, as skipPortable walks its bytes, checking its grammar,
// its numbers and literals, and its keys (plain and not repeated), and
// never looks inside a string.
//
// The bitmap is of the whole sample, whose strings are told from what lies
// between them by counting quotes from its first byte. That count is right
// at every place the walk reaches: the walk goes from the first byte on
// and has checked all it passed, so what lies before a value it skips is
// valid JSON. An error stage 1 finds anywhere leaves the whole sample to
// skipPortable, which finds it where it is (or does not reach it) as
// before. So skipChecked gives the same end and the same verdict either
// way: TestScanAsPortable holds the two to each other on the fixtures, the
// corpora and hostile inputs, and FuzzScan on anything.

// simdScan is whether skipChecked uses the structural index: on when the
// CPU has the instructions, off in tests (SetSIMDScan) to run the walk
// byte by byte.
var simdScan = hasStage1

// SetSIMDScan turns every vectorised scan on (where the CPU has it) or off,
// as on a CPU without AVX2, and returns what restores them: the structural
// index of skipped values (simdScan), a .json log's range scan
// (simdRanges) and the string scan for a quote, backslash or control byte
// (simdStrings).
func SetSIMDScan(on bool) (restore func()) {
	scan, ranges, strs := simdScan, simdRanges, simdStrings
	simdScan, simdRanges, simdStrings = on && hasStage1, on && hasRangeBlocks, on && hasAVX2
	return func() { simdScan, simdRanges, simdStrings = scan, ranges, strs }
}

// minIndexed is the length below which a sample is not indexed: the walk
// over a few hundred bytes costs less than a pass over all of them first.
const minIndexed = 512

// structIndex is the bitmaps of one sample, two words for each 64 bytes:
// bit k of bits[2w] is set when byte 64w+k starts a token, of bits[2w+1]
// when it is a backslash.
type structIndex struct {
	bits []uint64
}

var indexPool = sync.Pool{New: func() any { return new(structIndex) }}

// build indexes b, reporting false when stage 1 found an error.
func (x *structIndex) build(b []byte) bool {
	n := len(b)
	words := 2 * ((n + 63) / 64)
	if cap(x.bits) < words {
		x.bits = make([]uint64, words)
	}
	x.bits = x.bits[:words]
	var state [4]uint64
	var errs uint64
	full := n / 64
	if full > 0 {
		errs = stage1(&b[0], full, &x.bits[0], &state)
	}
	if rest := n - 64*full; rest > 0 {
		// The last bytes, padded with spaces: whitespace, which adds no
		// token and closes no string.
		var tail [64]byte
		copy(tail[:], b[64*full:])
		for k := rest; k < 64; k++ {
			tail[k] = ' '
		}
		errs |= stage1(&tail[0], 1, &x.bits[2*full], &state)
	}
	return errs == 0
}

// index builds w's structural index at its first use, if b is long enough
// and the CPU has the pass, and reports whether w has one.
func (w *walk) index() bool {
	if w.indexed == 0 {
		w.indexed = -1
		if w.mayIndex && simdScan && len(w.b) >= minIndexed {
			x := indexPool.Get().(*structIndex)
			if x.build(w.b) {
				w.idx, w.indexed = x, 1
			} else {
				indexPool.Put(x)
			}
		}
	}
	return w.indexed > 0
}

// release gives w's index back to the pool.
func (w *walk) release() {
	if w.idx != nil {
		indexPool.Put(w.idx)
		w.idx = nil
	}
}

// ScanSample reports whether raw is one JSON value, with only whitespace
// around it, that the walk takes as a value it skips (skipChecked): the
// validating scan alone, which `make bench` measures beside the decode.
func ScanSample(raw []byte) bool {
	w := &walk{b: raw, mayIndex: true}
	defer w.release()
	end, ok := w.skipChecked(ws(raw, 0))
	return ok && ws(raw, end) == len(raw)
}

// skipChecked returns the end of the JSON value at b[i], having checked
// all of it as the walk takes a sample: skipPortable's check, strict, by
// the structural index where there is one. It is the skip of a value that
// is kept (raw, or decoded later), whose objects must not repeat a key:
// Python keeps a repeated key's last value, which the rewrite
// (lastKeyWins) gives where the walk declines.
func (w *walk) skipChecked(i int) (int, bool) {
	if i < len(w.b) && (w.b[i] == '{' || w.b[i] == '[') && w.index() {
		return w.idx.skip(w, i, true)
	}
	return w.skipPortable(i, true)
}

// skipLoose is skipChecked of a value nothing is kept of, but whether it
// is valid JSON: its objects' keys are checked as strings only, since
// which of two equal keys wins (or how a key is spelled) changes nothing
// the tables read.
func (w *walk) skipLoose(i int) (int, bool) {
	if i < len(w.b) && (w.b[i] == '{' || w.b[i] == '[') && w.index() {
		return w.idx.skip(w, i, false)
	}
	return w.skipPortable(i, false)
}

// skip is skipPortable of the object or array at b[i], over the tokens
// of the index.
func (x *structIndex) skip(w *walk, i int, strict bool) (int, bool) {
	b := w.b
	k := tokens{t: x.bits, wi: 2 * (i >> 6)}
	k.cur = k.t[k.wi] &^ (1<<(i&63) - 1)
	if k.cur&(1<<(i&63)) == 0 {
		return w.skipPortable(i, strict) // not a token: only if the walk came here amiss
	}
	k.cur &= k.cur - 1
	var stackArr [12]frame
	var keysArr [40]span
	stack, keys := stackArr[:0], keysArr[:0]
	const (
		sValue        = iota // a value must follow
		sValueOrClose        // after '[': a value or ']'
		sKeyOrClose          // after '{': a key or '}'
		sKey                 // after ',' in an object
		sCommaOrClose        // after a value inside a container
	)
	stack = append(stack, frame{object: b[i] == '{'})
	state := sValueOrClose
	if b[i] == '{' {
		state = sKeyOrClose
	}
	for {
		p, ok := k.next()
		if !ok || p >= len(b) {
			return 0, false
		}
		c := b[p]
		switch state {
		case sValue, sValueOrClose:
			switch c {
			case '{', '[':
				if len(stack) >= maxFastDepth {
					w.tooDeep = true
					return 0, false
				}
				stack = append(stack, frame{object: c == '{', first: len(keys)})
				if c == '{' {
					state = sKeyOrClose
				} else {
					state = sValueOrClose
				}
				continue
			case ']':
				if state != sValueOrClose {
					return 0, false
				}
				stack = stack[:len(stack)-1]
			case '"':
				// the next token closes the string, whose bytes stage 1
				// checked
				if _, ok := k.next(); !ok {
					return 0, false
				}
			case '}', ':', ',':
				return 0, false
			default:
				j, ok := w.scalarEnd(p)
				if !ok || j < len(b) && !endsScalar(b[j]) {
					return 0, false
				}
			}
		case sKeyOrClose, sKey:
			if c == '}' && state == sKeyOrClose {
				stack = stack[:len(stack)-1]
				break
			}
			q, ok := k.next()
			if c != '"' || !ok || q >= len(b) {
				return 0, false // not a key
			}
			if strict && !w.canonical {
				var plain bool
				if keys, plain = x.plainKey(&stack[len(stack)-1], keys, b, p+1, q); !plain {
					w.rewrite = true // the rewrite's (see walk.canonical)
					return 0, false
				}
			}
			r, ok := k.next()
			if !ok || r >= len(b) || b[r] != ':' {
				return 0, false
			}
			state = sValue
			continue
		case sCommaOrClose:
			f := &stack[len(stack)-1]
			switch {
			case c == ',':
				if f.object {
					state = sKey
				} else {
					state = sValue
				}
				continue
			case c == '}' && f.object:
				keys = keys[:f.first]
			case c == ']' && !f.object:
			default:
				return 0, false
			}
			stack = stack[:len(stack)-1]
		}
		// a value ended at b[p]
		if len(stack) == 0 {
			return p + 1, true
		}
		state = sCommaOrClose
	}
}

// plainKey adds the key b[start:end] to keys, the keys of the objects
// open, frame f's from f.first on, and reports whether it is plain (no
// backslash) and not repeated in the object. keys is passed and returned
// by value: a pointer to it would move the skip's arrays to the heap.
func (x *structIndex) plainKey(f *frame, keys []span, b []byte, start, end int) ([]span, bool) {
	if x.backslashIn(start, end) {
		return keys, false
	}
	if f.keys.hashes == nil && len(keys)-f.first < 32 {
		// repeats, inline: the filter's bit is new
		bit := keyBitIn(b, start, end)
		if f.keys.filter&bit == 0 {
			f.keys.filter |= bit
		} else if f.keys.repeatsIn(keys[f.first:], b, start, end) {
			return keys, false
		}
	} else if f.keys.repeats(keys[f.first:], b, start, end) {
		return keys, false
	}
	return append(keys, span{start, end}), true
}

// tokens reads the token bitmap of an index in order: cur is what is left
// of the word bits[wi].
type tokens struct {
	t   []uint64
	wi  int
	cur uint64
}

// next is the place of the next token, false at the end of the bitmap.
func (k *tokens) next() (int, bool) {
	for k.cur == 0 {
		k.wi += 2
		if k.wi >= len(k.t) {
			return 0, false
		}
		k.cur = k.t[k.wi]
	}
	p := k.wi<<5 | bits.TrailingZeros64(k.cur)
	k.cur &= k.cur - 1
	return p, true
}

// endsScalar reports whether c may follow a number or literal: whitespace,
// a quote or { } [ ] : , (a token), where anything else would continue it
// or be out of place.
func endsScalar(c byte) bool {
	switch c {
	case ' ', '\n', '\t', '\r', '"', ',', ':', '{', '}', '[', ']':
		return true
	}
	return false
}

// backslashIn reports whether b[from:to] holds a backslash.
func (x *structIndex) backslashIn(from, to int) bool {
	if w := from >> 6; w == to>>6 { // to is the closing quote: its word holds the key
		return x.bits[2*w+1]>>(from&63)&(1<<(to-from)-1) != 0
	}
	return x.backslashSpan(from, to)
}

func (x *structIndex) backslashSpan(from, to int) bool {
	t := x.bits
	w0, w1 := from>>6, (to-1)>>6
	if from >= to {
		return false
	}
	if w0 == w1 {
		return t[2*w0+1]>>(from&63)<<(63-(to-1)&63+from&63) != 0
	}
	if t[2*w0+1]>>(from&63) != 0 || t[2*w1+1]<<(63-(to-1)&63) != 0 {
		return true
	}
	for w := w0 + 1; w < w1; w++ {
		if t[2*w+1] != 0 {
			return true
		}
	}
	return false
}
