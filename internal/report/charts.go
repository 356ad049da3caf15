package report

import (
	"bytes"
	"fmt"
	"html"
	"strings"

	json "github.com/goccy/go-json"

	"empties/internal/classify"
)

// The charts are Vega-Lite specs (https://vega.github.io/vega-lite/), with
// their data inline: the page draws each with the vendored Vega, Vega-Lite
// and vega-embed (assets/vega), and the same spec is saved as
// plots/<name>.vl.json, so a notebook opens the identical chart with Altair
// (alt.Chart.from_dict). The charts read their numbers from the tables; they
// draw, they compute nothing. Text is in the generic sans-serif font and is
// measured in the font the browser has, so no particular font is needed;
// legends sit outside the plot, and only classes that occur are listed.

// vlSchema is the Vega-Lite version the vendored library and the pinned
// Altair speak.
const vlSchema = "https://vega.github.io/schema/vega-lite/v6.4.1.json"

// classColors are the classes' colours, shared with empties serve.
var classColors = classify.Colors

// chart is one Vega-Lite spec, to be drawn on the page and saved.
type chart struct {
	name, title string
	spec        map[string]any
	note        string // a line under the chart
	image       bool   // plots/<name>.png was drawn for index.md
}

func (c *chart) json() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", " ")
	if err := enc.Encode(c.spec); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func (c *chart) md(b *strings.Builder) {
	if c.image {
		fmt.Fprintf(b, "![%s](plots/%s.png)\n\n", mdCell(c.title, 0), c.name)
	}
	fmt.Fprintf(b, "**Chart: %s.** Drawn in index.html; its Vega-Lite spec, data included, is [plots/%s.vl.json](plots/%s.vl.json) (in a notebook: `altair.Chart.from_dict(json.load(open(...)))`).", c.title, c.name, c.name)
	if c.note != "" {
		b.WriteString(" " + c.note)
	}
	b.WriteString("\n\n")
}

func (c *chart) html(b *strings.Builder) {
	spec, err := c.json()
	if err != nil { // the spec is built from plain values; never happens
		spec = []byte("{}")
	}
	// goccy/go-json escapes <, > and & in strings, so the spec cannot end
	// its script element.
	fmt.Fprintf(b, "<figure class=\"chart\" id=\"chart-%s\">\n<div class=\"vl\" data-spec=\"spec-%s\" role=\"img\" aria-label=\"%s\"></div>\n",
		c.name, c.name, html.EscapeString(c.title))
	fmt.Fprintf(b, "<script type=\"application/json\" id=\"spec-%s\">%s</script>\n", c.name, bytes.TrimSpace(spec))
	fmt.Fprintf(b, "<figcaption>%s", html.EscapeString(c.title))
	if c.note != "" {
		fmt.Fprintf(b, ". %s", inline(c.note))
	}
	fmt.Fprintf(b, " · <a href=\"plots/%s.vl.json\">Vega-Lite spec</a></figcaption>\n</figure>\n", c.name)
}

// imagesNote says in index.md why its charts are not images (empty: they
// are); the HTML page draws them either way.
type imagesNote struct{ why string }

func (n *imagesNote) md(b *strings.Builder) {
	if n.why != "" {
		fmt.Fprintf(b, "The charts are drawn in index.html; their images for this page were not made: %s.\n\n", n.why)
	}
}

func (n *imagesNote) html(*strings.Builder) {}

// base is what every spec shares: the schema, a generic font, a plain view.
func base(title string) map[string]any {
	return map[string]any{
		"$schema": vlSchema,
		"title":   map[string]any{"text": title, "anchor": "start", "fontSize": 14},
		"config": map[string]any{
			"font":   "sans-serif",
			"view":   map[string]any{"stroke": nil},
			"axis":   map[string]any{"labelFontSize": 11, "titleFontSize": 12, "labelOverlap": true},
			"legend": map[string]any{"labelFontSize": 11, "titleFontSize": 12, "labelLimit": 260},
		},
	}
}

// labelAxis is an axis of names (models, tasks, cells) given the room they
// need: no length limit, so two names that differ only at their end (two
// bedrock models) never read the same; a name past maxLabel characters is
// cut in the middle, keeping its start and its end, and every mark's tooltip
// holds it whole.
func labelAxis(a map[string]any) map[string]any {
	if a == nil {
		a = map[string]any{}
	}
	a["labelLimit"] = 0
	a["labelExpr"] = fmt.Sprintf("length(datum.label) > %d ? slice(datum.label, 0, %d) + '…' + slice(datum.label, -%d) : datum.label", maxLabel, maxLabel/2-1, maxLabel/2-1)
	return a
}

// maxLabel is the longest axis label shown whole.
const maxLabel = 72

// tallRows is the number of rows from which an interval chart repeats its
// axis at the top, so its scale is in view wherever a reader is.
const tallRows = 20

// classShareRow is one bar segment: a class's share of a cell's samples.
type classShareRow struct {
	cell, class string
	rate        float64
	nSamples    int64
	low, high   float64
}

// classSharesChart stacks each class's share of the samples of each task ×
// model, cells in the given order (top to bottom), classes in the first-match
// order, only the classes that occur.
func classSharesChart(name, title, eval, route string, cells []string, rows []classShareRow) *chart {
	present := map[string]bool{}
	var values []map[string]any
	order := map[string]int{}
	for i, c := range classify.Classes() {
		order[c] = i + 1
	}
	for _, r := range rows {
		if r.rate <= 0 {
			continue
		}
		present[r.class] = true
		values = append(values, map[string]any{
			"cell": r.cell, "class": r.class, "order": order[r.class], "rate": r.rate,
			"share": pct(r.rate), "interval": interval(pct(r.low), pct(r.high)), "samples": r.nSamples,
		})
	}
	var domain, rng []string
	for _, c := range classify.Classes() {
		if present[c] {
			domain = append(domain, c)
			rng = append(rng, classColors[c])
		}
	}
	s := base(title)
	s["data"] = map[string]any{"values": values}
	s["width"] = 640
	s["height"] = map[string]any{"step": 18}
	s["mark"] = map[string]any{"type": "bar", "tooltip": true}
	s["encoding"] = map[string]any{
		"y": map[string]any{"field": "cell", "type": "nominal", "sort": cells, "title": nil,
			"axis": labelAxis(nil)},
		"x": map[string]any{"field": "rate", "type": "quantitative", "stack": "zero",
			"scale": map[string]any{"domain": []float64{0, 1}, "nice": false},
			"axis":  map[string]any{"format": "%", "title": "share of the cell's samples", "tickCount": 5}},
		"color": map[string]any{"field": "class", "type": "nominal",
			"scale":  map[string]any{"domain": domain, "range": rng},
			"legend": map[string]any{"orient": "top", "direction": "horizontal", "title": nil, "columns": 6, "symbolType": "square"}},
		"order": map[string]any{"field": "order", "type": "quantitative"},
		"tooltip": []map[string]any{
			{"field": "cell", "title": eval + " · " + route}, {"field": "class"}, {"field": "share"},
			{"field": "interval"}, {"field": "samples"},
		},
	}
	return &chart{name: name, title: title, spec: s}
}

// heatCell is one task × model cell of the heat map.
type heatCell struct {
	task, model          string
	rate, low, high      float64
	noReply              float64
	nSamples, nNonAnswer int64
}

// heatMapChart colours each task × model cell by its non-answer share;
// tasks and models in the given orders.
func heatMapChart(name, title, eval, route string, tasks, models []string, cells []heatCell) *chart {
	var values []map[string]any
	for _, c := range cells {
		values = append(values, map[string]any{
			"task": c.task, "model": c.model, "rate": c.rate,
			"share": pct(c.rate), "interval": interval(pct(c.low), pct(c.high)), "no_reply": pct(c.noReply),
			"samples": c.nSamples, "non_answers": c.nNonAnswer,
		})
	}
	s := base(title)
	s["data"] = map[string]any{"values": values}
	s["width"] = map[string]any{"step": 30}
	s["height"] = map[string]any{"step": 22}
	s["mark"] = map[string]any{"type": "rect", "stroke": "#ffffff", "strokeWidth": 1, "tooltip": true}
	s["encoding"] = map[string]any{
		"x": map[string]any{"field": "model", "type": "nominal", "sort": models, "title": route,
			"axis": labelAxis(map[string]any{"labelAngle": -90, "orient": "bottom"})},
		"y": map[string]any{"field": "task", "type": "nominal", "sort": tasks, "title": eval,
			"axis": labelAxis(nil)},
		"color": map[string]any{"field": "rate", "type": "quantitative",
			"scale":  map[string]any{"type": "sqrt", "domain": []float64{0, 1}, "scheme": "orangered"},
			"legend": map[string]any{"format": "%", "title": "non-answer share", "orient": "right", "gradientLength": 160}},
		"tooltip": []map[string]any{
			{"field": "task", "title": eval}, {"field": "model", "title": route}, {"field": "share", "title": "non-answers"}, {"field": "interval"},
			{"field": "no_reply", "title": "no reply (error, no_choices)"}, {"field": "samples"},
		},
	}
	s["config"].(map[string]any)["view"] = map[string]any{"stroke": nil, "fill": "#f2f2f2"}
	return &chart{name: name, title: title, spec: s,
		note: "Colour: the share of the cell's samples whose reply is a non-answer (square-root scale, so small shares show); grey: no samples of that " + eval + " × " + route}
}

// intervalRow is one estimate with its interval.
type intervalRow struct {
	label            string
	value, low, high float64
	n                int64
}

// intervalChart draws one point and its interval per row, top to bottom in
// the given order, with dashed reference lines at refs.
func intervalChart(name, title, xTitle string, asPct bool, rows []intervalRow, refs ...float64) *chart {
	var values, refValues []map[string]any
	var labels []string
	f := number
	if asPct {
		f = pct
	}
	for _, r := range rows {
		labels = append(labels, r.label)
		values = append(values, map[string]any{
			"label": r.label, "value": r.value, "low": r.low, "high": r.high,
			"estimate": f(r.value), "interval": interval(f(r.low), f(r.high)), "n": r.n,
		})
	}
	for _, x := range refs {
		refValues = append(refValues, map[string]any{"ref": x})
	}
	xAxis := map[string]any{"title": xTitle}
	if asPct {
		xAxis["format"] = "%"
	}
	y := map[string]any{"field": "label", "type": "nominal", "sort": labels, "title": nil, "axis": labelAxis(nil)}
	layers := []any{
		map[string]any{
			"mark": map[string]any{"type": "rule", "strokeWidth": 1.5, "color": "#333333"},
			"encoding": map[string]any{"y": y,
				"x":  map[string]any{"field": "low", "type": "quantitative", "axis": xAxis},
				"x2": map[string]any{"field": "high"}},
		},
		map[string]any{
			"mark": map[string]any{"type": "point", "filled": true, "size": 40, "color": "#332288", "tooltip": true},
			"encoding": map[string]any{"y": y,
				"x":       map[string]any{"field": "value", "type": "quantitative"},
				"tooltip": []map[string]any{{"field": "label", "title": "cell"}, {"field": "estimate"}, {"field": "interval"}, {"field": "n"}}},
		},
	}
	if len(refValues) > 0 {
		layers = append([]any{map[string]any{
			"data":     map[string]any{"values": refValues},
			"mark":     map[string]any{"type": "rule", "strokeDash": []int{4, 4}, "color": "#999999"},
			"encoding": map[string]any{"x": map[string]any{"field": "ref", "type": "quantitative"}},
		}}, layers...)
	}
	if len(rows) >= tallRows {
		// The same x scale drawn again above the points: an invisible rule
		// carries it, the axes resolve independently over the shared scale,
		// and the layers but the interval rule's and this one draw none.
		for _, l := range layers {
			enc := l.(map[string]any)["encoding"].(map[string]any)
			if x := enc["x"].(map[string]any); x["axis"] == nil {
				x["axis"] = nil
			}
		}
		top := map[string]any{"orient": "top", "title": xTitle}
		if asPct {
			top["format"] = "%"
		}
		layers = append(layers, map[string]any{
			"mark":     map[string]any{"type": "rule", "opacity": 0},
			"encoding": map[string]any{"x": map[string]any{"field": "value", "type": "quantitative", "axis": top}},
		})
	}
	s := base(title)
	s["data"] = map[string]any{"values": values}
	s["width"] = 560
	s["height"] = map[string]any{"step": 20}
	s["layer"] = layers
	if len(rows) >= tallRows {
		s["resolve"] = map[string]any{"axis": map[string]any{"x": "independent"}}
	}
	return &chart{name: name, title: title, spec: s}
}
