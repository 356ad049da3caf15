// Package sample draws the hand-check sets the pre-registration requires (50
// replies per class checked against their raw fields, 10 per class
// spot-checked; `empties sample`, stages/samplecmd, writes them): per class,
// the replies of lowest rank by a hash of the seed and each reply's
// identity, with every raw field a rule reads. The same data and seed give
// the same selection, whatever the order of the rows or where the logs live.
package sample

import (
	"container/heap"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"slices"
	"sort"
	"strings"

	"empties/internal/classify"
	"empties/internal/logset"
	"empties/internal/store"
	"empties/schema"
)

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

// Config configures a draw.
type Config struct {
	PerClass int      // replies per class, at most
	Seed     int64    // seed of the draw
	Classes  []string // only these classes (default all)
}

// Draw is a drawn set: the items, class by class in the classifier's order
// and by rank within a class, and what they were drawn from.
type Draw struct {
	Items      []Item
	Totals     map[string]int64 // replies per class of the counted logs
	Superseded int64            // replies of superseded logs, not drawn
}

// Drawn is the number of items of class c.
func (d Draw) Drawn(c string) int {
	n := 0
	for _, it := range d.Items {
		if it.Class == c {
			n++
		}
	}
	return n
}

// Select draws up to opts.PerClass replies of every class (or of
// opts.Classes) from the dataset at data: the replies of lowest rank
// (rankOf), leaving out those of superseded logs. Both tables are read
// from one generation.
func Select(ctx context.Context, data string, opts Config) (Draw, error) {
	if opts.PerClass <= 0 {
		return Draw{}, fmt.Errorf("sample: %d replies per class: must be positive", opts.PerClass)
	}
	only := map[string]bool{}
	for _, c := range opts.Classes {
		if !KnownClass(c) {
			return Draw{}, fmt.Errorf("sample: unknown class %q (the classes: %s)", c, strings.Join(ClassOrder(), ", "))
		}
		only[c] = true
	}
	if cur, err := store.Current(data); err == nil && cur != "" {
		data = cur
	}
	logs := map[string]schema.Log{}
	if err := store.Scan(data, "logs", func(l *schema.Log) error { logs[l.LogID] = *l; return nil }); err != nil {
		return Draw{}, err
	}
	rules := map[string]string{}
	for _, r := range classify.OrderedRules() {
		rules[r.ID+"@"+classify.Version] = r.Seed
	}
	tops := map[string]*topK{}
	d := Draw{Totals: map[string]int64{}}
	err := store.Scan(data, "replies", func(r *schema.Reply) error {
		if len(only) > 0 && !only[r.Class] {
			return nil
		}
		l := logs[r.LogID]
		// A superseded log's samples are another file's too (ingest's log
		// set): counted by no measure, as the analysis views leave them
		// out, and not drawn. Ingest --all-attempts counts every file.
		if l.SetStatus == logset.Superseded {
			d.Superseded++
			return nil
		}
		d.Totals[r.Class]++
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
		return Draw{}, err
	}
	for _, c := range ClassOrder() {
		if t := tops[c]; t != nil {
			d.Items = append(d.Items, t.sorted()...)
		}
	}
	return d, nil
}

// KnownClass reports whether c is a reply class (ClassOrder).
func KnownClass(c string) bool {
	return slices.Contains(ClassOrder(), c)
}

// ClassOrder is the reply classes in the classifier's first-match order,
// the order of a draw.
func ClassOrder() []string {
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
