package serve

import "io"

// SlowLogs makes every read of a local log go through wrap (a file system
// that stalls, for the tests).
func SlowLogs(s *Server, wrap func(io.ReaderAt) io.ReaderAt) { s.logs.wrap = wrap }
