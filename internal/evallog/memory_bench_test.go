package evallog

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"empties/internal/testutil"
)

// hugeFallbackSample is a sample of about mib MiB that decodeFast does not
// take (a bare NaN score): mostly tool results and attachments no table
// reads, with a model event every tenth event.
func hugeFallbackSample(mib int) []byte {
	var b strings.Builder
	b.WriteString(`{"id": 1, "epoch": 1, "input": "q", "scores": {"s": {"value": NaN}}, "output": {"completion": "done", "choices": []}, "events": [`)
	result := strings.Repeat("tool output ", 64<<10/12)
	n := mib << 20 / 2 / len(result)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		if i%10 == 0 {
			fmt.Fprintf(&b, `{"event": "model", "model": "m/x", "input": [{"role": "user", "content": "turn %d"}], "output": {"choices": [{"message": {"role": "assistant", "content": "attachment://a%d"}, "stop_reason": "stop"}]}}`, i, i)
			continue
		}
		fmt.Fprintf(&b, `{"event": "tool", "function": "f", "result": "%s"}`, result)
	}
	b.WriteString(`], "attachments": {`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"a%d": "%s"`, i, result)
	}
	b.WriteString(`}}`)
	return []byte(b.String())
}

// BenchmarkHugeFallbackSampleMemory decodes a 64 MiB sample that decodeFast
// does not take, as Decode does (in memory, the sample held) and whole
// (every field through the decoder), and reports the peak Go heap above
// the sample's own bytes and the bytes allocated, in MiB.
func BenchmarkHugeFallbackSampleMemory(b *testing.B) {
	raw := hugeFallbackSample(64)
	for _, c := range []struct {
		name  string
		whole bool
	}{{"decode", false}, {"whole", true}} {
		b.Run(c.name, func(b *testing.B) {
			if c.whole {
				defer func(f int) { heldFrom = f }(heldFrom)
				heldFrom = 1 << 40
			}
			var peak, alloc uint64
			for range b.N {
				runtime.GC()
				var m0, m1 runtime.MemStats
				runtime.ReadMemStats(&m0)
				var d DecodedSample
				p := testutil.PeakHeap(time.Millisecond, func() {
					if err := d.Decode(raw, ""); err != nil {
						b.Fatal(err)
					}
				})
				runtime.ReadMemStats(&m1)
				peak, alloc = max(peak, p-m0.HeapAlloc), max(alloc, m1.TotalAlloc-m0.TotalAlloc)
				runtime.KeepAlive(&d)
			}
			b.ReportMetric(float64(len(raw))/(1<<20), "sample-MiB")
			b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
			b.ReportMetric(float64(alloc)/(1<<20), "alloc-MiB")
		})
	}
}
