package serve

import (
	"context"
	"net/url"
	"testing"
	"time"
)

func BenchmarkDiag(b *testing.B) {
	dir := benchDataset(b)
	ctx := context.Background()
	g, err := openGeneration(ctx, dir, b.TempDir(), nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, qs := range []string{"class=tool_only&task=task_05&model=provider/model-05&sort=chars&dir=desc", "class=answer&page=200", "q=alternative+offers&class=answer", ""} {
		v, _ := url.ParseQuery(qs)
		fs := activeFacets(g.tables)
		f := parseFilter(v, fs)
		for range 3 {
			t0 := time.Now()
			cs, _ := g.cells(ctx, f.Q, f.ID)
			t1 := time.Now()
			counts := map[string][]facetCount{}
			cs.count(fs, f, counts)
			t2 := time.Now()
			where, args := f.where(fs, cs)
			q := "SELECT i.row_file, i.row_number FROM " + indexTable + " i" + where + f.orderBy() + " LIMIT ? OFFSET ?"
			args = append(args, f.PerPage, (f.Page-1)*f.PerPage)
			keys, err := pageKeys(ctx, g.db, q, args)
			if err != nil {
				b.Fatal(err)
			}
			t3 := time.Now()
			rows, err := pageRows(ctx, g.db, g.root, keys)
			if err != nil {
				b.Fatal(err)
			}
			t4 := time.Now()
			b.Logf("%-60s cells %6.1f count %6.1f keys %6.1f rows %6.1f (%d)", qs, ms(t1.Sub(t0)), ms(t2.Sub(t1)), ms(t3.Sub(t2)), ms(t4.Sub(t3)), len(rows))
		}
	}
}
