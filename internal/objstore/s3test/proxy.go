package s3test

import (
	"bufio"
	"io"
	"net"
	"net/textproto"
	"sync"
	"sync/atomic"
	"testing"
)

// Proxy is a TCP proxy on loopback in front of a server that breaks off
// connections: a real network fault between a client and a real server,
// for the tests of what a client does when a response stops half-way.
type Proxy struct {
	Endpoint string // http://127.0.0.1:PORT, to use in place of the server's

	// Body, when set, returns for the k-th connection (from 0) how many
	// bytes past its first response's headers it carries before the proxy
	// breaks it off; negative: it is not broken. Set it before the first
	// request.
	Body func(k int) int64
	// OnCut, when set, is called at each break before the client sees the
	// connection close, so before it can ask again.
	OnCut func()

	conns, cuts atomic.Int64
}

// Cuts returns how many connections the proxy has broken off.
func (p *Proxy) Cuts() int64 { return p.cuts.Load() }

// NewProxy starts a proxy to the server until the test ends.
func (s *Server) NewProxy(t testing.TB) *Proxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	upstream := s.Endpoint[len("http://"):]
	p := &Proxy{Endpoint: "http://" + l.Addr().String()}
	var wg sync.WaitGroup
	var mu sync.Mutex // one OnCut at a time
	t.Cleanup(func() {
		l.Close()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			down, err := l.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", upstream)
			if err != nil {
				down.Close()
				continue
			}
			k := int(p.conns.Add(1) - 1)
			wg.Add(2)
			go func() { // requests, whole
				defer wg.Done()
				io.Copy(up, down)
				up.Close()
			}()
			go func() { // responses, until the break
				defer wg.Done()
				defer down.Close()
				defer up.Close()
				limit := int64(-1)
				if p.Body != nil {
					limit = p.Body(k)
				}
				if limit < 0 {
					io.Copy(down, up)
					return
				}
				r := bufio.NewReader(up)
				tp := textproto.NewReader(r)
				for { // the status line and headers, to the blank line
					line, err := tp.ReadLineBytes()
					if err != nil {
						return
					}
					if _, err := down.Write(append(line, '\r', '\n')); err != nil || len(line) == 0 {
						break
					}
				}
				if n, _ := io.CopyN(down, r, limit); n == limit {
					mu.Lock()
					p.cuts.Add(1)
					if p.OnCut != nil {
						p.OnCut()
					}
					mu.Unlock()
				}
			}()
		}
	}()
	return p
}
