package report

import (
	"strings"
	"testing"

	"empties/internal/catalog"
	"empties/internal/measures"
	"empties/schema"
)

// Every column a page can show has a label and a format where its table is
// declared: each table the report lists (every table but the per-reply
// ones) and replies, which empties serve shows; and every column a report
// query returns resolves to a declaration (its own derived header, or a
// table it reads). Take a label or a format out of a contract, a row
// struct or a query header and this fails, naming the column.
func TestShownColumnsAreDescribed(t *testing.T) {
	tables, err := catalog.Tables()
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]catalog.Table{}
	for _, tb := range tables {
		byName[tb.Name] = tb
		if perReply[tb.Name] && tb.Name != "replies" {
			continue
		}
		var names []string
		for _, c := range tb.Columns {
			names = append(names, c.Name)
		}
		for _, c := range tb.Columns {
			if err := schema.CheckDisplay(c, names); err != nil {
				t.Errorf("%s: %v", tb.Name, err)
			}
		}
	}
	qs, err := measures.LoadQueries()
	if err != nil {
		t.Fatal(err)
	}
	d, err := newDescriber()
	if err != nil {
		t.Fatal(err)
	}
	b := &builder{queries: qs, desc: d}
	for _, name := range []string{"report_by_route", "report_worst_cells", "report_decisions", "report_log_accounting",
		"report_non_answer_rates", "report_truncation_by_max_tokens", "report_judge_calls_on_non_answers", "report_rates_by_stop_reason"} {
		st, ok := qs.Query(name)
		if !ok {
			t.Fatalf("no query %s", name)
		}
		if _, err := b.describe(name, "", st.Columns); err != nil {
			t.Error(err)
		}
	}
	for _, name := range []string{"report_reply_sources", "report_rates_by_stop_category"} { // columns: *, of one table
		st, _ := qs.Query(name)
		var cols []string
		for _, c := range byName[st.Needs[0]].Columns {
			cols = append(cols, c.Name)
		}
		if _, err := b.describe(name, "", cols); err != nil {
			t.Error(err)
		}
	}
	if _, err := b.describe("report_by_route", "", []string{"route", "no_such_column"}); err == nil || !strings.Contains(err.Error(), "no_such_column") {
		t.Errorf("an undeclared column: %v", err)
	}
}
