package evallog

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
	"math/bits"
)

// mayRepeatKey reports whether some object of data may repeat a key: when
// it returns false, dropRepeatedKeys would return data unchanged. It walks
// the document as dropRepeatedKeys does (the same structural bytes, the
// same notion of where a key is, the same limits), but hops from quote to
// quote with bytes.IndexByte and tells an escaped quote by the backslashes
// before it, so that the text inside strings (most of a sample's bytes) is
// not stepped through escape by escape; and it compares a key with the
// earlier keys of its object only when a 64-bit filter of them says it may
// be one of them. It answers true (the rewrite then decides) for a key
// holding an escape, which only the decoder can compare, and for a hash
// collision in an object of many keys.
func mayRepeatKey(data []byte) bool {
	type object struct {
		filter uint64 // a bit per key of the object (keyBit)
		seen   map[uint64]struct{}
	}
	type key struct{ start, end int } // the quoted key in data
	var stackArr [64]keyFrame[object]
	var keysArr [256]key
	stack, keys := stackArr[:0], keysArr[:0]
	expectKey := false
	for i := 0; i < len(data); {
		switch data[i] {
		case '"':
			if !expectKey {
				end := stringEnd(data, i)
				if end < 0 {
					return false // unterminated: dropRepeatedKeys leaves it
				}
				i = end
				continue
			}
			// A key: keys are short, and one with an escape is left to
			// the rewrite, so the first quote or backslash ends the scan
			// of it.
			end := nextQuoteOrBackslash(data, i+1)
			switch {
			case end < 0:
				return false // unterminated
			case data[end] == '\\':
				return true
			}
			end++
			f := &stack[len(stack)-1]
			open := keys[f.first:]
			switch nk := len(open); {
			case f.of.seen != nil:
				h := maphash.Bytes(keySeed, data[i:end])
				if _, ok := f.of.seen[h]; ok {
					return true
				}
				f.of.seen[h] = struct{}{}
			case nk >= 32:
				// The filter is full: a set of hashes from here on.
				f.of.seen = make(map[uint64]struct{}, 2*nk)
				for _, o := range open {
					f.of.seen[maphash.Bytes(keySeed, data[o.start:o.end])] = struct{}{}
				}
				h := maphash.Bytes(keySeed, data[i:end])
				if _, ok := f.of.seen[h]; ok {
					return true
				}
				f.of.seen[h] = struct{}{}
			default:
				b := keyBit(data[i:end])
				if f.of.filter&b != 0 {
					for _, o := range open {
						if bytes.Equal(data[o.start:o.end], data[i:end]) {
							return true
						}
					}
				}
				f.of.filter |= b
			}
			keys = append(keys, key{i, end})
			expectKey = false
			i = end
			continue
		case '{', '[':
			var ok bool
			if stack, ok = openFrame(stack, data[i] == '{', len(keys)); !ok {
				return false
			}
			expectKey = data[i] == '{'
		case '}', ']':
			var ok bool
			if stack, keys, ok = closeFrame(stack, keys); !ok {
				return false
			}
			expectKey = false
		case ',':
			expectKey = inObject(stack)
		case ':':
			// Mostly a string follows: no call to look for it.
		default:
			// Indentation, numbers, literals.
			i = nextStructural(data, i+1)
			continue
		}
		i++
	}
	return false
}

// A walk for repeated keys (mayRepeatKey, and dropRepeatedKeys, which
// rewrites) keeps a stack of the arrays and objects it is inside, innermost
// last, with what it keeps of each object (F), and the keys (K) of the
// objects open, in order. The stack and the keys are the walk's own
// variables, which these functions take and return, so that the compiler
// keeps them in registers.
type keyFrame[F any] struct {
	first int // index in keys of the object's first key; -1 for an array
	of    F
}

// openFrame enters an object (with nkeys keys open before it) or an
// array; ok is false past maxKeyDepth, where the walk leaves the document
// to the decoder, which refuses it past the same depth.
func openFrame[F any](stack []keyFrame[F], object bool, nkeys int) (_ []keyFrame[F], ok bool) {
	if len(stack) >= maxKeyDepth {
		return stack, false
	}
	first := -1
	if object {
		first = nkeys
	}
	return append(stack, keyFrame[F]{first: first}), true
}

// closeFrame leaves the innermost object or array, and the keys of an
// object; ok is false when none is open.
func closeFrame[F, K any](stack []keyFrame[F], keys []K) (_ []keyFrame[F], _ []K, ok bool) {
	if len(stack) == 0 {
		return stack, keys, false
	}
	if f := stack[len(stack)-1]; f.first >= 0 {
		keys = keys[:f.first]
	}
	return stack[:len(stack)-1], keys, true
}

// inObject reports whether the innermost frame is an object's: after a
// comma there, a key follows.
func inObject[F any](stack []keyFrame[F]) bool {
	return len(stack) > 0 && stack[len(stack)-1].first >= 0
}

// nextStructural returns the index of the first byte from i on that may be
// one mayRepeatKey acts on ('"', ',', a bracket or a brace), or len(b). It
// tests 8 bytes at a time; the bytes it stops at include a few others
// ('Y', '_', 'y', DEL), which the caller passes over.
func nextStructural(b []byte, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		q, c := x^(0x22*ones), x^(0x2c*ones)
		// '[' ']' '{' '}' are the bytes 0101 1011, 0101 1101, 0111 1011
		// and 0111 1101: equal but for bits 1, 2 and 5.
		br := x&(0xd9*ones) ^ 0x59*ones
		if m := ((q-ones)&^q | (c-ones)&^c | (br-ones)&^br) & highs; m != 0 {
			return i + bits.TrailingZeros64(m)/8 // the lowest flagged byte is exact
		}
	}
	for ; i < len(b); i++ {
		switch b[i] {
		case '"', ',', '[', ']', '{', '}':
			return i
		}
	}
	return i
}

// stringEnd returns the index past the closing quote of the string that
// starts at b[i], or -1 when b[i] is no quote or the string is not closed.
// The closing quote is the first one after an even number of backslashes
// (the decoder reads a backslash and the byte after it as one escape); it
// hops from quote to quote, not stepping through escapes one by one. The
// string's content is not checked.
func stringEnd(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	end := i + 1
	for {
		if end = nextQuote(b, end); end < 0 {
			return -1
		}
		n := 0
		for b[end-1-n] == '\\' {
			n++
		}
		if n%2 == 0 {
			return end + 1
		}
		end++
	}
}

// keySeed seeds the hashes of the keys of objects of many keys.
var keySeed = maphash.MakeSeed()

// keyBit is a bit of 64 picked by a raw key's length and first and last
// bytes: equal keys pick the same bit.
func keyBit(k []byte) uint64 {
	n := len(k)
	h := uint64(n) * 0x9E3779B97F4A7C15
	if n >= 8 {
		h ^= binary.LittleEndian.Uint64(k) ^ binary.LittleEndian.Uint64(k[n-8:])*0xC2B2AE3D27D4EB4F
	} else {
		for _, c := range k {
			h = h<<8 ^ uint64(c)
		}
	}
	return 1 << ((h * 0x9E3779B97F4A7C15) >> 58)
}

// nextQuote is the index of the first '"' in b from i on, or -1. Most
// strings are short (keys, ids, kinds): their first bytes are tested 8 at
// a time before bytes.IndexByte is called.
func nextQuote(b []byte, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for end := min(len(b), i+32); i+8 <= end; i += 8 {
		q := binary.LittleEndian.Uint64(b[i:]) ^ 0x22*ones
		if m := (q - ones) &^ q & highs; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	if k := bytes.IndexByte(b[i:], '"'); k >= 0 {
		return i + k
	}
	return -1
}
