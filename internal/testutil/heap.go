package testutil

import (
	"runtime"
	"sync"
	"time"
)

// PeakHeap collects garbage, runs f and returns the largest Go heap
// (HeapAlloc) seen while it ran, sampled every interval.
func PeakHeap(every time.Duration, f func()) uint64 {
	runtime.GC()
	var peak uint64
	var mu sync.Mutex
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			mu.Lock()
			peak = max(peak, m.HeapAlloc)
			mu.Unlock()
			select {
			case <-done:
				return
			case <-time.After(every):
			}
		}
	}()
	f()
	close(done)
	wg.Wait()
	return peak
}
