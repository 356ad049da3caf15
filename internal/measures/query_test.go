package measures_test

import (
	"context"
	"database/sql"
	"math"
	"testing"

	"empties/internal/measures"
)

// call_cost is the one price of a call (the cost table and `empties select`
// both use it): input and cache writes at the input price, cache reads at
// theirs, reasoning at the reasoning price (the output price when none is
// given) and the rest of the output at the output price.
func TestCallCost(t *testing.T) {
	ctx := context.Background()
	p := measures.Params{Level: 0.95, Seed: 1, Resamples: 100}
	for _, c := range []struct {
		name                                  string
		in, cacheRead, cacheWrite, out, reasn any
		pIn, pCacheRead, pOut, pReasoning     float64
		want                                  float64
	}{
		{"input and output", 1e6, 0, 0, 2e6, 0, 1, 0.1, 4, 8, 1 + 8},
		{"cache writes at the input price", 1e6, 0, 5e5, 0, 0, 2, 0.1, 4, 8, 3},
		{"cache reads at their price", 0, 1e6, 0, 0, 0, 2, 0.25, 4, 8, 0.25},
		{"reasoning inside output, at the reasoning price", 0, 0, 0, 3e6, 1e6, 1, 0.1, 4, 10, 8 + 10},
		{"no reasoning price: the output price", 0, 0, 0, 3e6, 1e6, 1, 0.1, 4, 0, 12},
		{"reasoning above output counts once", 0, 0, 0, 1e6, 2e6, 1, 0.1, 4, 10, 20},
		{"null counts are zero", nil, nil, nil, 1e6, nil, 1, 0.1, 4, 10, 4},
	} {
		var got float64
		err := measures.Query(ctx, t.TempDir(), p, []string{"call_cost"}, func(conn *sql.Conn) error {
			return conn.QueryRowContext(ctx, "SELECT call_cost($1::BIGINT, $2::BIGINT, $3::BIGINT, $4::BIGINT, $5::BIGINT, $6, $7, $8, $9)",
				c.in, c.cacheRead, c.cacheWrite, c.out, c.reasn, c.pIn, c.pCacheRead, c.pOut, c.pReasoning).Scan(&got)
		})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: $%g, want $%g", c.name, got, c.want)
		}
	}
}
