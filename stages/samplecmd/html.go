package samplecmd

import (
	"fmt"
	"html/template"
	"io"
	"strings"

	"empties/internal/numfmt"
)

type htmlClass struct {
	Class string
	Total int64
	Items []htmlItem
}

type htmlItem struct {
	Item
	Anchor string
	Fields []fieldRow
}

// fieldRow is one raw field as stored: never quoted or escaped again (the
// template escapes it once, for HTML), long values folded.
type fieldRow struct {
	Name, Value string
	Long        bool
}

func writeHTML(w io.Writer, items []Item, totals map[string]int64, opts Options) error {
	var classes []htmlClass
	for _, it := range items {
		if len(classes) == 0 || classes[len(classes)-1].Class != it.Class {
			classes = append(classes, htmlClass{Class: it.Class, Total: totals[it.Class]})
		}
		c := &classes[len(classes)-1]
		c.Items = append(c.Items, htmlItem{Item: it, Anchor: fmt.Sprintf("%s-%d", it.Class, len(c.Items)+1), Fields: fields(it)})
	}
	return page.Execute(w, map[string]any{"Classes": classes, "Seed": opts.Seed, "PerClass": opts.PerClass, "N": len(items)})
}

func fields(it Item) []fieldRow {
	s := func(p *string) string {
		switch {
		case p == nil:
			return "null"
		case *p == "":
			return "(empty string)"
		}
		return *p
	}
	i := func(p *int64) string {
		if p == nil {
			return "null"
		}
		return fmt.Sprint(*p)
	}
	rows := [][2]string{
		{"rule", it.ClassRule + ": " + it.RuleText},
		{"non_answer", fmt.Sprint(it.NonAnswer)},
		{"sample_error", s(it.SampleError)},
		{"n_choices", i(it.NChoices)},
		{"stop_reason", s(it.StopReason)},
		{"stop_details", s(it.StopDetailsType) + " / " + s(it.StopDetailsCat) + " / " + s(it.StopDetailsExpl)},
		{"refusal (text flag)", fmt.Sprint(it.Refusal)},
		{"output_error", s(it.OutputError)},
		{"text_blank", fmt.Sprint(it.TextBlank)},
		{"tool calls", numfmt.ToolCalls(it.ToolCallCount, strings.Join(it.ToolFunctions, ", ")) + " (tools offered: " + triState(it.ToolsOffered) + ")"},
		{"reasoning", fmt.Sprintf("present %v, %d chars, redacted %v", it.Reasoning, it.ReasoningChars, it.Redacted)},
		{"max_tokens", i(it.MaxTokens) + " (" + it.MaxTokensSource + ")"},
		{"output / reasoning tokens", i(it.OutputTokens) + " / " + i(it.ReasoningTokens)},
		{"reply_source", it.ReplySource},
		{"log", it.LogPath + " :: " + it.Member},
		{"task / model", it.Task + " / " + it.Model},
	}
	out := make([]fieldRow, len(rows))
	for k, r := range rows {
		out[k] = fieldRow{Name: r[0], Value: r[1], Long: len(r[1]) > 400}
	}
	return out
}

var page = template.Must(template.New("review").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>empties: classifier review, seed {{.Seed}}</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:70em;color:#222}
h1{font-size:1.4em} h2{margin-top:2em;border-bottom:2px solid #ccc}
table{border-collapse:collapse} td,th{padding:.2em .6em;vertical-align:top;text-align:left}
.fields td:first-child{color:#555;white-space:nowrap}
.fields td.v{white-space:pre-wrap;overflow-wrap:anywhere}
.card{border:1px solid #ddd;border-radius:6px;padding:.8em 1em;margin:1em 0}
.card h3{margin:.1em 0 .5em;font-size:1em}
pre{white-space:pre-wrap;word-break:break-word;background:#f6f6f6;padding:.6em;border-radius:4px;max-height:30em;overflow:auto}
.empty{color:#a00;font-style:italic}
</style></head><body>
<h1>Classifier review: {{.N}} replies, up to {{.PerClass}} per class, seed {{.Seed}}</h1>
<p>Each card shows the class, the rule that matched, and every raw field the rules read. Check the class against the fields, then record a verdict in the JSONL file beside this page.</p>
<table><tr><th>class</th><th>drawn</th><th>of</th></tr>
{{range .Classes}}<tr><td><a href="#{{.Class}}">{{.Class}}</a></td><td>{{len .Items}}</td><td>{{.Total}}</td></tr>
{{end}}</table>
{{range .Classes}}<h2 id="{{.Class}}">{{.Class}} ({{len .Items}} of {{.Total}})</h2>
{{range .Items}}<div class="card" id="{{.Anchor}}">
<h3>{{.Anchor}} · {{.Task}} · sample {{.SampleID}} epoch {{.Epoch}}</h3>
<table class="fields">{{range .Fields}}<tr><td>{{.Name}}</td><td class="v">{{if .Long}}<details><summary>{{printf "%.200s" .Value}}…</summary>{{.Value}}</details>{{else}}{{.Value}}{{end}}</td></tr>{{end}}</table>
<p>text:</p>{{if .Text}}<pre>{{.Text}}</pre>{{else}}<p class="empty">(no text)</p>{{end}}
{{if .ReasoningText}}<details><summary>reasoning ({{.ReasoningChars}} chars)</summary><pre>{{.ReasoningText}}</pre></details>{{end}}
{{if .FinalCompletion}}<details><summary>sample.output.completion at the end of the sample</summary><pre>{{.FinalCompletion}}</pre></details>{{end}}
</div>
{{end}}{{end}}
</body></html>
`))

// triState renders a nullable boolean: true, false, or unknown (null).
func triState(b *bool) string {
	if b == nil {
		return "unknown"
	}
	return fmt.Sprint(*b)
}
