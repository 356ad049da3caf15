package cliutil

import (
	"context"
	"sync"
)

// Stop is what an interrupt does to the process, as app.RunMain applies
// it: a first SIGINT or SIGTERM cancels the context and, unless a stage
// holds the stop (HoldStop), ends the process after a grace; a second ends
// it at once, after running the stage's force functions.
type Stop struct {
	mu     sync.Mutex
	held   int
	forces map[int]func()
	next   int
}

type stopKey struct{}

// WithStop gives ctx a Stop for RunMain to apply.
func WithStop(ctx context.Context) (context.Context, *Stop) {
	s := &Stop{forces: map[int]func(){}}
	return context.WithValue(ctx, stopKey{}, s), s
}

// HoldStop is for a stage whose work a first interrupt ends cleanly but not
// within the grace (empties rerun: its runner finishes writing its logs):
// while held, the first interrupt waits for the stage instead of ending the
// process, and a second one runs force (kill the runner outright) before
// the process ends. release undoes both. Without a Stop in ctx (a test
// calling the stage) it does nothing.
func HoldStop(ctx context.Context, force func()) (release func()) {
	s, _ := ctx.Value(stopKey{}).(*Stop)
	if s == nil {
		return func() {}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.held++
	id := s.next
	s.next++
	s.forces[id] = force
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.held--
			delete(s.forces, id)
		})
	}
}

// Held reports whether a stage holds the stop.
func (s *Stop) Held() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.held > 0
}

// Force runs the force functions of the stages holding the stop.
func (s *Stop) Force() {
	s.mu.Lock()
	fs := make([]func(), 0, len(s.forces))
	for _, f := range s.forces {
		fs = append(fs, f)
	}
	s.mu.Unlock()
	for _, f := range fs {
		f()
	}
}
