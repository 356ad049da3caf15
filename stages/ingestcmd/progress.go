package ingestcmd

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// progress draws one status line on a terminal while a long ingest runs, and
// stays quiet when stderr is not a terminal (unless asked for). In json mode
// it writes instead one JSON object a line (progressLine), for a program to
// draw its own bar: the Python package's ingest does.
type progress struct {
	mu      sync.Mutex
	w       io.Writer
	on      bool
	json    bool
	total   int
	files   int
	samples int64
	bytes   int64
	start   time.Time
	last    time.Time
	drawn   bool
}

func newProgress(w io.Writer, mode string) *progress {
	if mode == "json" {
		return &progress{w: w, on: true, json: true}
	}
	on := mode == "always"
	if mode == "" || mode == "auto" {
		if f, ok := w.(*os.File); ok {
			if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
				on = true
			}
		}
	}
	return &progress{w: w, on: on}
}

// Start is told the number of files to read.
func (p *progress) Start(total int) {
	p.mu.Lock()
	p.total, p.start = total, time.Now()
	if p.json {
		p.writeJSON()
	}
	p.mu.Unlock()
}

// Sample counts a sample read.
func (p *progress) Sample() {
	p.mu.Lock()
	p.samples++
	p.maybeDraw()
	p.mu.Unlock()
}

// File counts a file done, of size bytes.
func (p *progress) File(size int64) {
	p.mu.Lock()
	p.files++
	p.bytes += size
	p.maybeDraw()
	p.mu.Unlock()
}

func (p *progress) maybeDraw() {
	if !p.on || time.Since(p.last) < 200*time.Millisecond {
		return
	}
	p.last = time.Now()
	if p.json {
		p.writeJSON()
		return
	}
	secs := time.Since(p.start).Seconds()
	fmt.Fprintf(p.w, "\r\033[K%d/%d files  %d samples  %.0f samples/s  %.1f MB/s", p.files, p.total, p.samples,
		float64(p.samples)/secs, float64(p.bytes)/1e6/secs)
	p.drawn = true
}

// Clear erases the status line before another message is printed, and
// once the reading is over.
func (p *progress) Clear() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.json {
		if !p.start.IsZero() {
			p.writeJSON() // the counts as they stand, whatever the last line said
		}
		return
	}
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
		p.drawn = false
		p.last = time.Time{}
	}
}

// progressLine is one line of --progress json: the files to read (total),
// those read so far, their samples and bytes. "progress" names the measure,
// so a reader tells these lines from the messages around them on stderr.
type progressLine struct {
	Progress string `json:"progress"`
	Files    int    `json:"files"`
	Total    int    `json:"total"`
	Samples  int64  `json:"samples"`
	Bytes    int64  `json:"bytes"`
}

func (p *progress) writeJSON() {
	b, _ := json.Marshal(progressLine{Progress: "ingest", Files: p.files, Total: p.total, Samples: p.samples, Bytes: p.bytes})
	fmt.Fprintf(p.w, "%s\n", b)
}
