package report

import (
	"bytes"
	"fmt"
	"image/color"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"empties/internal/classify"
)

type plotInfo struct{ name, title string }

// classColors gives each class of the classifier a fixed colour; bars are
// stacked in the classifier's rule order (classify.Classes).
var classColors = map[string]color.RGBA{
	classify.Error:          {0x7f, 0x7f, 0x7f, 0xff},
	classify.NoChoices:      {0xc7, 0xc7, 0xc7, 0xff},
	classify.Filtered:       {0xd6, 0x27, 0x28, 0xff},
	classify.RefusalFlag:    {0xff, 0x98, 0x96, 0xff},
	classify.ErrorText:      {0x8c, 0x56, 0x4b, 0xff},
	classify.TruncatedEmpty: {0xff, 0x7f, 0x0e, 0xff},
	classify.ToolOnly:       {0x94, 0x67, 0xbd, 0xff},
	classify.ReasoningOnly:  {0xff, 0xbb, 0x78, 0xff},
	classify.Silent:         {0x17, 0xbe, 0xcf, 0xff},
	classify.TruncatedText:  {0xbc, 0xbd, 0x22, 0xff},
	classify.Answer:         {0x2c, 0xa0, 0x2c, 0xff},
}

func (b *builder) plots() error {
	for _, p := range []struct {
		name, title, table string
		draw               func() (*plot.Plot, int, error)
	}{
		{"class_shares", "Class shares per eval × route (default arm)", "class_rates", b.classShares},
		{"non_answer_rates", "Non-answer share of samples per eval × route, default arm (95% Wilson)", "non_answer_rates", b.nonAnswers},
		{"truncation_share", "D1(a): truncated_empty share of samples by route (95% Wilson)", "d1a_truncation", b.truncation},
		{"d3_deltas", "D3: P3 − P0 headline delta in percentage points, default arm (± P0 half-width)", "d3_headline_deltas", b.d3},
		{"d4_pass_rates", "D4: judge pass rate on non-answers by form (95% Wilson)", "d4_judge_behaviour", b.d4},
	} {
		if !b.have[p.table] {
			b.skipped = append(b.skipped, fmt.Sprintf("%s: no %s table", p.title, p.table))
			continue
		}
		pl, rows, err := p.draw()
		if err != nil {
			return fmt.Errorf("plot %s: %w", p.name, err)
		}
		if pl == nil || rows == 0 {
			b.skipped = append(b.skipped, fmt.Sprintf("%s: not enough data", p.title))
			continue
		}
		pl.Title.Text = p.title
		height := vg.Length(rows)*0.22*vg.Inch + 1.8*vg.Inch
		if err := save(pl, 9*vg.Inch, height, filepath.Join(b.dir, "plots", p.name)); err != nil {
			return err
		}
		b.plotted = append(b.plotted, plotInfo{p.name, p.title})
	}
	return nil
}

func save(p *plot.Plot, w, h vg.Length, base string) error {
	for _, format := range []string{"png", "svg"} {
		wt, err := p.WriterTo(w, h, format)
		if err != nil {
			return err
		}
		var buf bytes.Buffer
		if _, err := wt.WriteTo(&buf); err != nil {
			return err
		}
		if err := os.WriteFile(base+"."+format, buf.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// rowsOf runs a query returning label, value, low, high rows.
func (b *builder) rowsOf(q string) (labels []string, vals, lows, highs []float64, err error) {
	_, rows, err := b.query(q)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	for _, r := range rows {
		labels = append(labels, fmt.Sprint(r[0]))
		vals = append(vals, num(r[1]))
		lows = append(lows, num(r[2]))
		highs = append(highs, num(r[3]))
	}
	return labels, vals, lows, highs, nil
}

func num(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case float32:
		return float64(x)
	case int64:
		return float64(x)
	case int32:
		return float64(x)
	}
	return 0
}

// intervalPlot draws one horizontal point with an error bar per row, top to
// bottom in query order.
func intervalPlot(labels []string, vals, lows, highs []float64, xLabel string, refs ...float64) *plot.Plot {
	n := len(labels)
	p := plot.New()
	pts := make(plotter.XYs, n)
	errs := make(plotter.XErrors, n)
	rev := make([]string, n)
	for i := range labels {
		y := float64(n - 1 - i)
		pts[i] = plotter.XY{X: vals[i], Y: y}
		errs[i] = struct{ Low, High float64 }{vals[i] - lows[i], highs[i] - vals[i]}
		rev[n-1-i] = labels[i]
	}
	for _, x := range refs {
		l, _ := plotter.NewLine(plotter.XYs{{X: x, Y: -0.5}, {X: x, Y: float64(n) - 0.5}})
		l.LineStyle.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
		l.LineStyle.Color = color.RGBA{0x99, 0x99, 0x99, 0xff}
		p.Add(l)
	}
	eb := &plotter.XErrorBars{XYs: pts, XErrors: errs, LineStyle: draw.LineStyle{Width: vg.Points(1), Color: color.Black}, CapWidth: vg.Points(4)}
	sc, _ := plotter.NewScatter(pts)
	sc.GlyphStyle.Shape = draw.CircleGlyph{}
	sc.GlyphStyle.Radius = vg.Points(2.5)
	p.Add(eb, sc)
	p.NominalY(rev...)
	p.X.Label.Text = xLabel
	p.Add(plotter.NewGrid())
	return p
}

func (b *builder) truncation() (*plot.Plot, int, error) {
	labels, v, lo, hi, err := b.rowsOf(`SELECT eval || ' · ' || route, share, ci_low, ci_high FROM d1a_truncation ORDER BY eval, route`)
	if err != nil || len(labels) == 0 {
		return nil, 0, err
	}
	return intervalPlot(labels, v, lo, hi, "share of samples"), len(labels), nil
}

func (b *builder) nonAnswers() (*plot.Plot, int, error) {
	labels, v, lo, hi, err := b.rowsOf(`SELECT eval || ' · ' || route, non_answer_rate, non_answer_ci_low, non_answer_ci_high
	  FROM non_answer_rates WHERE arm = 'default' ORDER BY eval, route`)
	if err != nil || len(labels) == 0 {
		return nil, 0, err
	}
	return intervalPlot(labels, v, lo, hi, "share of samples whose reply is a non-answer"), len(labels), nil
}

func (b *builder) d3() (*plot.Plot, int, error) {
	labels, v, lo, hi, err := b.rowsOf(`SELECT eval || ' · ' || route || ' · ' || arm || CASE WHEN is_primary THEN ' (primary)' ELSE '' END,
	    delta_pp, delta_pp - coalesce(p0_half_width_pp, 0), delta_pp + coalesce(p0_half_width_pp, 0)
	  FROM d3_headline_deltas WHERE arm = 'default' AND delta_pp IS NOT NULL AND NOT isnan(delta_pp) ORDER BY NOT is_primary, eval, route, arm`)
	if err != nil || len(labels) == 0 {
		return nil, 0, err
	}
	return intervalPlot(labels, v, lo, hi, "P3 − P0, percentage points of the metric", -1, 1), len(labels), nil
}

func (b *builder) d4() (*plot.Plot, int, error) {
	labels, v, lo, hi, err := b.rowsOf(`SELECT eval || ' · ' || form, pass_rate, pass_ci_low, pass_ci_high
	  FROM d4_judge_behaviour WHERE NOT pooled AND pass_rate IS NOT NULL ORDER BY eval, judge_model, form`)
	if err != nil || len(labels) == 0 {
		return nil, 0, err
	}
	return intervalPlot(labels, v, lo, hi, "share of verdicts that pass the non-answer"), len(labels), nil
}

// classShares stacks each class's share of replies per eval × route.
func (b *builder) classShares() (*plot.Plot, int, error) {
	_, rows, err := b.query(`SELECT eval || ' · ' || route, class, rate FROM class_rates WHERE arm = 'default' ORDER BY eval, route`)
	if err != nil || len(rows) == 0 {
		return nil, 0, err
	}
	var labels []string
	index := map[string]int{}
	shares := map[string][]float64{}
	for _, r := range rows {
		l := fmt.Sprint(r[0])
		if _, ok := index[l]; !ok {
			index[l] = len(labels)
			labels = append(labels, l)
		}
	}
	n := len(labels)
	for _, r := range rows {
		c := fmt.Sprint(r[1])
		if shares[c] == nil {
			shares[c] = make([]float64, n)
		}
		shares[c][n-1-index[fmt.Sprint(r[0])]] = num(r[2])
	}
	p := plot.New()
	var below *plotter.BarChart
	for _, class := range classify.Classes() {
		vals, ok := shares[class]
		if !ok {
			continue
		}
		bar, err := plotter.NewBarChart(plotter.Values(vals), vg.Points(11))
		if err != nil {
			return nil, 0, err
		}
		bar.Horizontal = true
		bar.Color = classColors[class]
		bar.LineStyle.Width = 0
		if below != nil {
			bar.StackOn(below)
		}
		below = bar
		p.Add(bar)
		p.Legend.Add(class, bar)
	}
	rev := make([]string, n)
	for i, l := range labels {
		rev[n-1-i] = l
	}
	p.NominalY(rev...)
	p.X.Label.Text = "share of replies"
	p.X.Max = 1
	p.Legend.Top = true
	p.Legend.Left = false
	p.Legend.XOffs = vg.Points(-4)
	return p, n, nil
}
