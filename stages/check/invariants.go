package check

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"empties/internal/duck"
	"empties/internal/logset"
	"empties/internal/vocab"
)

// invariant is a contract of the tables: a query that returns the rows that
// break it.
type invariant struct {
	name   string
	tables []string
	query  string
}

// invariants_ are the contracts beside the vocabulary's (vocab.Check); the policies
// come from internal/vocab (what `empties schema --format json` exports),
// never from a copy here.
var invariants_ = []invariant{
	{"one reply per sample × epoch", []string{"replies"},
		"SELECT log_id, sample_id, epoch, count(*) FROM replies GROUP BY ALL HAVING count(*) > 1"},
	{"every log's replies equal its sample_count", []string{"logs", "replies"},
		"SELECT l.path, l.sample_count, count(r.log_id) FROM logs l LEFT JOIN replies r USING (log_id) GROUP BY ALL HAVING count(r.log_id) <> l.sample_count"},
	// A sample the summaries list without a member is an ingest_errors row
	// (ingest's writer.missing); a log written with log_samples off lists
	// summaries and holds no samples on purpose.
	{"every sample a log's summaries list is a reply or an ingest_errors row", []string{"logs", "ingest_errors"},
		"SELECT l.path, l.summary_count, l.sample_count FROM logs l WHERE l.summary_count > l.sample_count + (SELECT count(*) FROM ingest_errors e WHERE e.path = l.path) AND coalesce(json_extract_string(l.eval_config, '$.log_samples'), 'true') <> 'false'"},
	// The log set (ingest, internal/logset): a counted log names no
	// superseding log, a superseded one names it and why; superseded_by may
	// name a log that is superseded in turn (a shard's older attempt names
	// the shard's current one, which its merged log supersedes), but the
	// chain ends at a counted log of the dataset.
	{"counted logs have no superseded_by, superseded logs a superseded_by and a reason", []string{"logs"},
		"SELECT path, set_status, superseded_by, superseded_reason FROM logs WHERE (set_status = " + duck.Quote(logset.Counted) + ") <> (superseded_by IS NULL) OR (superseded_by IS NULL) <> (superseded_reason IS NULL)"},
	{"every superseded_by leads to a counted log of the dataset", []string{"logs"},
		`WITH RECURSIVE chain(start, cur, depth) AS (
			SELECT log_id, superseded_by, 1 FROM logs WHERE superseded_by IS NOT NULL
			UNION ALL
			SELECT c.start, l.superseded_by, c.depth + 1 FROM chain c JOIN logs l ON l.log_id = c.cur
			WHERE l.superseded_by IS NOT NULL AND c.depth < 64)
		SELECT l.path, l.superseded_by FROM logs l WHERE l.superseded_by IS NOT NULL AND NOT EXISTS (
			SELECT 1 FROM chain c JOIN logs t ON t.log_id = c.cur WHERE c.start = l.log_id AND t.set_status = ` + duck.Quote(logset.Counted) + `)`},
	{"every re-scored reply has exactly P0-P3", []string{"policy_scores"},
		"SELECT log_id, sample_id, epoch, list(policy ORDER BY policy) FROM policy_scores GROUP BY ALL HAVING list(policy ORDER BY policy) <> [" + sqlList(sorted(vocab.Policies)) + "]"},
	{"policy rows belong to ingested replies", []string{"policy_scores", "replies"},
		"SELECT p.log_id, p.sample_id, p.epoch FROM policy_scores p ANTI JOIN replies r USING (log_id, sample_id, epoch)"},
	{"headline counts add up", []string{"headlines"},
		"SELECT eval, route, arm, policy FROM headlines WHERE n_scored + n_unscored <> n_samples OR (ci_low > ci_high)"},
}

// sqlList is the names as a comma-separated list of SQL string literals.
func sqlList(names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = duck.Quote(n)
	}
	return strings.Join(quoted, ", ")
}

func sorted(names []string) []string {
	out := append([]string(nil), names...)
	sort.Strings(out)
	return out
}

func invariants(ctx context.Context, dir string, w io.Writer) (int, error) {
	db, tables, err := duck.OpenDataset(ctx, dir)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	// The tables of the generation the views read, not of whichever is
	// current when an invariant is reached.
	have := map[string]bool{}
	for _, t := range tables {
		have[t] = true
	}
	failed := 0
	for _, inv := range invariants_ {
		present := true
		for _, t := range inv.tables {
			present = present && have[t]
		}
		if !present {
			continue
		}
		rows, err := db.QueryContext(ctx, inv.query)
		if err != nil {
			return 0, fmt.Errorf("invariant %q: %w", inv.name, err)
		}
		n := 0
		for rows.Next() {
			n++
		}
		rows.Close()
		if n > 0 {
			failed++
			fmt.Fprintf(w, "invariant broken: %s (%d rows; query: %s)\n", inv.name, n, inv.query)
		}
	}
	vocabulary, err := vocab.Check(ctx, db, tables, w)
	return failed + vocabulary, err
}
