// Package sample draws the hand-check sets the pre-registration requires (50
// replies per class checked against their raw fields, 10 per class
// spot-checked): a JSONL file with every raw field a rule reads, and one
// self-contained HTML page to read in a browser. The same data and seed give
// the same selection, whatever the order of the rows or where the logs live.
package sample

import (
	"bufio"
	"container/heap"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strconv"

	json "github.com/goccy/go-json"
	"github.com/urfave/cli/v3"

	"empties/internal/classify"
	"empties/internal/cliutil"
	"empties/internal/logset"
	"empties/internal/store"
	"empties/schema"

	"empties/internal/guard"
)

// Options configure a draw.
type Options struct {
	Data     string
	Out      string // folder for the files; default DATA/review
	PerClass int
	Seed     int64
	Classes  []string // only these classes (default all)
}

// Command returns the `sample` subcommand.
func Command() *cli.Command {
	return &cli.Command{
		Name:  "sample",
		Usage: "draw replies per class for checking the classifier by hand",
		Description: `Draws up to --per-class replies of every class (the seed's validation: 50
per class against their raw fields, 10 per class spot-checked) and writes

   OUT/review-seed<N>.jsonl   one reply per line: class, rule, every raw field a rule reads
   OUT/review-seed<N>.html    the same, one self-contained page for a browser

Replies of superseded logs (an older attempt, a crashed log beside its
recovered copy, shards beside their merged log: logs.set_status) are not
drawn, as no measure counts them; a dataset ingested with --all-attempts
counts, and draws from, every file.

The draw ranks replies by a hash of the seed and the reply's log content
hash, sample id and epoch, so the same data and seed give the same set.

Examples:
   empties sample --per-class 50 --seed 1 --data data/study
   empties sample --per-class 10 --seed 2 --data data/study --class filtered --class error_text`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "data", Aliases: []string{"d"}, Usage: "dataset `DIR` written by ingest", Required: true},
			&cli.StringFlag{Name: "out", Usage: "folder for the review files (default DATA/review)"},
			&cli.IntFlag{Name: "per-class", Value: 50, Usage: "replies per class"},
			&cli.Int64Flag{Name: "seed", Value: 1, Usage: "seed of the draw"},
			&cli.StringSliceFlag{Name: "class", Usage: "only this class (repeatable)"},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			return Run(ctx, Options{Data: c.String("data"), Out: c.String("out"), PerClass: c.Int("per-class"),
				Seed: c.Int64("seed"), Classes: c.StringSlice("class")}, c.Root().Writer)
		},
	}
}

// Item is one reply of the review set: everything a reviewer needs to check
// the class against the raw fields.
type Item struct {
	Class     string `json:"class"`
	ClassRule string `json:"class_rule"`
	RuleText  string `json:"rule_text"`
	NonAnswer bool   `json:"non_answer"`
	LogPath   string `json:"log_path"`
	LogSHA256 string `json:"log_sha256"`
	Member    string `json:"member"`
	Task      string `json:"task"`
	Model     string `json:"model"`
	SampleID  string `json:"sample_id"`
	Epoch     int64  `json:"epoch"`
	// the raw fields the rules read, in rule order
	SampleError     *string  `json:"sample_error"`
	NChoices        *int64   `json:"n_choices"`
	StopReason      *string  `json:"stop_reason"`
	StopDetailsType *string  `json:"stop_details_type"`
	StopDetailsCat  *string  `json:"stop_details_category"`
	StopDetailsExpl *string  `json:"stop_details_explanation"`
	Refusal         bool     `json:"refusal"`
	OutputError     *string  `json:"output_error"`
	Text            string   `json:"text"`
	TextBlank       bool     `json:"text_blank"`
	ToolCallCount   int64    `json:"tool_call_count"`
	ToolFunctions   []string `json:"tool_call_functions"`
	ToolsOffered    *bool    `json:"tools_offered"` // null: the log does not show it
	Reasoning       bool     `json:"reasoning_present"`
	ReasoningChars  int64    `json:"reasoning_chars"`
	Redacted        bool     `json:"reasoning_redacted"`
	ReasoningText   string   `json:"reasoning_text"`
	MaxTokens       *int64   `json:"max_tokens"`
	MaxTokensSource string   `json:"max_tokens_source"`
	OutputTokens    *int64   `json:"output_tokens"`
	ReasoningTokens *int64   `json:"reasoning_tokens"`
	ReplySource     string   `json:"reply_source"`
	FinalCompletion *string  `json:"final_completion"`
	// left for the reviewer
	Verdict *string `json:"verdict"`
	Note    string  `json:"note"`

	rank uint64
}

// Run draws the set and writes the files.
func Run(ctx context.Context, opts Options, w io.Writer) error {
	if opts.PerClass <= 0 {
		return cliutil.Usagef("sample: --per-class must be positive")
	}
	if err := store.CheckReadable("sample", opts.Data); err != nil {
		return err
	}
	if !store.HasTable(opts.Data, "replies") {
		return cliutil.Usagef("sample: %s has no replies table; run `empties ingest LOGS --out %s` first", opts.Data, opts.Data)
	}
	out := opts.Out
	if out == "" {
		out = filepath.Join(opts.Data, "review")
	}
	// The review folder holds empties' review files only (one pair per
	// seed); checked before the draw.
	folder, err := guard.OpenFolder(out, "sample", guard.Rules{})
	if err != nil {
		return err
	}
	defer folder.Close()
	only := map[string]bool{}
	for _, c := range opts.Classes {
		if !knownClass(c) {
			return cliutil.Usagef("sample: unknown class %q", c)
		}
		only[c] = true
	}
	data := opts.Data // both tables from one generation, resolved once
	if cur, err := store.Current(opts.Data); err == nil && cur != "" {
		data = cur
	}
	logs := map[string]schema.Log{}
	if err := store.Scan(data, "logs", func(l *schema.Log) error { logs[l.LogID] = *l; return nil }); err != nil {
		return err
	}
	rules := map[string]string{}
	for _, r := range classify.OrderedRules() {
		rules[r.ID+"@"+classify.Version] = r.Seed
	}
	tops := map[string]*topK{}
	totals := map[string]int64{}
	var superseded int64
	err = store.Scan(data, "replies", func(r *schema.Reply) error {
		if len(only) > 0 && !only[r.Class] {
			return nil
		}
		l := logs[r.LogID]
		// A superseded log's samples are another file's too (ingest's log
		// set): counted by no measure, as the analysis views leave them
		// out, and not drawn. Ingest --all-attempts counts every file.
		if l.SetStatus == logset.Superseded {
			superseded++
			return nil
		}
		totals[r.Class]++
		rank := rankOf(opts.Seed, l.SHA256, r.SampleID, r.Epoch)
		t := tops[r.Class]
		if t == nil {
			t = &topK{k: opts.PerClass}
			tops[r.Class] = t
		}
		if !t.wants(rank) {
			return nil
		}
		t.add(itemOf(r, l, rules, rank))
		return ctx.Err()
	})
	if err != nil {
		return err
	}
	var items []Item
	for _, c := range classOrder() {
		if t := tops[c]; t != nil {
			got := t.sorted()
			items = append(items, got...)
		}
	}
	name := "review-seed" + strconv.FormatInt(opts.Seed, 10)
	if err := writeFile(filepath.Join(folder.Dir(), name+".jsonl"), func(w io.Writer) error { return writeJSONL(w, items) }); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(folder.Dir(), name+".html"), func(w io.Writer) error { return writeHTML(w, items, totals, opts) }); err != nil {
		return err
	}
	if err := folder.Merge(); err != nil {
		return err
	}
	base := filepath.Join(out, name)
	fmt.Fprintf(w, "drew %d replies (seed %d, up to %d per class):\n", len(items), opts.Seed, opts.PerClass)
	for _, c := range classOrder() {
		if t := tops[c]; t != nil {
			fmt.Fprintf(w, "  %-16s %4d of %d\n", c, len(t.items), totals[c])
		}
	}
	if superseded > 0 {
		fmt.Fprintf(w, "left out %d replies of superseded logs (logs.set_status; ingest --all-attempts counts every file)\n", superseded)
	}
	fmt.Fprintf(w, "wrote %s.jsonl and %s.html\n", base, base)
	return nil
}

func knownClass(c string) bool {
	for _, k := range classOrder() {
		if k == c {
			return true
		}
	}
	return false
}

func classOrder() []string {
	var out []string
	for _, r := range classify.OrderedRules() {
		if len(out) == 0 || out[len(out)-1] != r.Class {
			out = append(out, r.Class)
		}
	}
	return out
}

// rankOf orders replies for the draw: a hash of the seed and the reply's
// identity, independent of row order and of where the log file sits.
func rankOf(seed int64, logSHA, sampleID string, epoch int64) uint64 {
	h := sha256.New()
	fmt.Fprintf(h, "%d\x00%s\x00%s\x00%d", seed, logSHA, sampleID, epoch)
	return binary.BigEndian.Uint64(h.Sum(nil))
}

func itemOf(r *schema.Reply, l schema.Log, rules map[string]string, rank uint64) Item {
	return Item{
		Class: r.Class, ClassRule: r.ClassRule, RuleText: rules[r.ClassRule], NonAnswer: r.NonAnswer,
		LogPath: l.Path, LogSHA256: l.SHA256, Member: r.Member, Task: r.Task, Model: r.Model,
		SampleID: r.SampleID, Epoch: r.Epoch,
		SampleError: r.SampleError, NChoices: r.NChoices, StopReason: r.StopReason,
		StopDetailsType: r.StopDetailsType, StopDetailsCat: r.StopDetailsCat, StopDetailsExpl: r.StopDetailsExpl,
		Refusal: r.Refusal, OutputError: r.OutputError, Text: r.Text, TextBlank: r.TextBlank,
		ToolCallCount: r.ToolCallCount, ToolFunctions: append([]string{}, r.ToolCallFunctions...), ToolsOffered: r.ToolsOffered,
		Reasoning: r.ReasoningPresent, ReasoningChars: r.ReasoningChars, Redacted: r.ReasoningRedacted, ReasoningText: r.ReasoningText,
		MaxTokens: r.MaxTokens, MaxTokensSource: r.MaxTokensSource, OutputTokens: r.OutputTokens, ReasoningTokens: r.ReasoningTokens,
		ReplySource: r.ReplySource, FinalCompletion: r.FinalCompletion,
		rank: rank,
	}
}

// topK keeps the k items of lowest rank.
type topK struct {
	k     int
	items rankHeap
}

func (t *topK) wants(rank uint64) bool {
	return len(t.items) < t.k || rank < t.items[0].rank
}

func (t *topK) add(it Item) {
	heap.Push(&t.items, it)
	if len(t.items) > t.k {
		heap.Pop(&t.items)
	}
}

func (t *topK) sorted() []Item {
	out := append([]Item(nil), t.items...)
	sort.Slice(out, func(i, j int) bool { return out[i].rank < out[j].rank })
	return out
}

// rankHeap is a max-heap on rank, so the worst kept item is on top.
type rankHeap []Item

func (h rankHeap) Len() int           { return len(h) }
func (h rankHeap) Less(i, j int) bool { return h[i].rank > h[j].rank }
func (h rankHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *rankHeap) Push(x any)        { *h = append(*h, x.(Item)) }
func (h *rankHeap) Pop() any {
	old := *h
	it := old[len(old)-1]
	*h = old[:len(old)-1]
	return it
}

func writeJSONL(w io.Writer, items []Item) error {
	for _, it := range items {
		b, err := json.Marshal(it)
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "%s\n", b); err != nil {
			return err
		}
	}
	return nil
}

// writeFile writes a new file of the review folder's temporary folder.
func writeFile(p string, fill func(io.Writer) error) error {
	f, err := guard.Create(p)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	err = fill(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
