package evallog

// The range scan of a .json log (openJSON): the scanner finds where each
// sample (and each header value) ends by counting the brackets outside its
// strings, byte by byte in scanner.value. With AVX2 the blocks of 64 bytes
// that lie wholly in the buffer go to rangeBlocksAVX2 (rangescan_amd64.s),
// which tells strings as the byte walk does, counts brackets 64 at a time,
// and looks at them one by one only in a block where the depth may come
// back to 0. The scan checks nothing of a sample but where it ends (the
// sample's decode checks all of it later): so all it must give is the end
// the byte walk gives, and it does. The two agree on strings while every
// backslash lies inside one (the byte walk reads a backslash as an escape
// only there), which is so in every JSON document; a block that holds a
// backslash outside strings is handed back to the byte walk, in the state
// of its start, for the rest of the value. Bytes are read (and the file
// hashed) exactly when the byte walk reads them: the blocks end before the
// buffer does, and the byte walk takes the last bytes up to the refill.
// TestRangeScanAsByteWalk holds the ends, the captured bytes and the
// errors to the byte walk's (kept as the oracle, valueByteWalk in
// rangescan_test.go) on the corpora's .json logs cut and damaged at every
// kind of place and across every refill boundary, and FuzzRangeScan on
// anything.

// rangeState is the state rangeBlocks carries from block to block: the
// scanner's inString, escaped and depth, and the blocks it went through.
type rangeState struct {
	escaped  uint64 // 1 if the next block's first byte is escaped
	inString uint64 // all ones if the last block ended inside a string
	depth    int64
	blocks   int64
}

// simdRanges is whether scanner.value uses rangeBlocks: on where the CPU
// has the instructions, off in tests to run the byte walk alone.
var simdRanges = hasRangeBlocks
