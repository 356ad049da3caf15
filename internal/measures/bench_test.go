package measures

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"empties/internal/duck"
	"empties/internal/store"
	"empties/schema"
)

// benchLogs lays out one million replies like the study, scaled up: the 11
// evals × 6 routes of data/study.yaml in the default arm (14,000 samples a
// cell), HLE's tight arm on the 5 reasoning routes (10,000 samples each,
// paired with the default), wide re-runs (5,000 per reasoning route) and a
// control set of 1,000.
const benchLogs = `
CREATE TABLE bench_evals AS SELECT * FROM (VALUES
  ('xstest_safe', 'refusal', true), ('xstest_unsafe', 'refusal', true), ('coconot_original', 'refusal', true),
  ('strong_reject', 'refusal', true), ('fortress_adversarial', 'refusal', true), ('fortress_benign', 'refusal', true),
  ('air_bench', 'refusal', true), ('hle_text', 'capability', true), ('gpqa_diamond', 'capability', false),
  ('bfcl_irrelevance', 'capability', false), ('bfcl_simple', 'capability', false)
) e(eval, kind, judged);
CREATE TABLE bench_routes AS SELECT * FROM (VALUES
  ('gpt-5-mini/openai-responses', 'gpt-5-mini', 'openai/gpt-5-mini', true, 0.25, 2.0, 2.0, 0.025),
  ('gpt-4.1/openai-chat', 'gpt-4.1', 'openai/gpt-4.1', false, 2.0, 8.0, 8.0, 0.5),
  ('claude-sonnet-5/anthropic', 'claude-sonnet-5', 'anthropic/claude-sonnet-5', true, 3.0, 15.0, 15.0, 0.3),
  ('claude-sonnet-5/openrouter', 'claude-sonnet-5', 'openrouter/anthropic/claude-sonnet-5', true, 3.0, 15.0, 15.0, 0.3),
  ('gemini-3.7-flash/google', 'gemini-3.7-flash', 'google/gemini-3.7-flash', true, 0.3, 2.5, 2.5, 0.03),
  ('gemini-3.7-flash/openrouter', 'gemini-3.7-flash', 'openrouter/google/gemini-3.7-flash', true, 0.3, 2.5, 2.5, 0.03)
) r(route, model, log_model, reasoning, p_in, p_out, p_reason, p_cache);
CREATE TABLE bench_logs AS
  SELECT e.eval || '|' || r.route || '|default' AS log_id, e.eval, r.route, 'default' AS arm, r.log_model AS model, e.judged, 14000 AS n FROM bench_evals e, bench_routes r
  UNION ALL SELECT 'hle_text|' || route || '|tight', 'hle_text', route, 'tight', log_model, true, 10000 FROM bench_routes WHERE reasoning
  UNION ALL SELECT 'hle_text|' || route || '|wide', 'hle_text', route, 'wide', log_model, true, 5000 FROM bench_routes WHERE reasoning
  UNION ALL SELECT 'xstest_safe|gpt-5-mini/openai-responses|control', 'xstest_safe', 'gpt-5-mini/openai-responses', 'control', 'openai/gpt-5-mini', true, 1000;
CREATE MACRO bench_class(h, arm) AS CASE
  WHEN arm = 'tight' AND h < 12 THEN 'truncated_empty'
  WHEN h < 4 THEN 'truncated_empty' WHEN h < 7 THEN 'refusal_flag' WHEN h < 9 THEN 'filtered'
  WHEN h < 11 THEN 'error_text' WHEN h < 13 THEN 'error' WHEN h < 15 THEN 'silent' WHEN h < 16 THEN 'reasoning_only'
  WHEN h < 17 THEN 'tool_only' WHEN h < 18 THEN 'no_choices' WHEN h < 20 THEN 'truncated_text' ELSE 'answer' END;
CREATE TABLE bench_replies AS
  SELECT l.log_id, l.eval, l.route, l.arm, l.model, l.judged, 's' || i AS sample_id, 1::BIGINT AS epoch,
    bench_class(hash(l.eval, l.route, l.arm, i) % 100, l.arm) AS class, hash(l.log_id, i, 'x') % 100 AS h2
  FROM bench_logs l, range(l.n) t(i);
`

// benchTables are the dataset's tables, as SELECTs over the bench tables;
// columns not named are NULL.
var benchTables = map[string]string{
	"replies": `SELECT log_id, eval AS task, model, sample_id, epoch, class,
	    class IN ('filtered', 'refusal_flag', 'error_text', 'truncated_empty', 'reasoning_only', 'silent') AS non_answer,
	    CASE class WHEN 'truncated_empty' THEN 'max_tokens' WHEN 'truncated_text' THEN 'max_tokens' WHEN 'filtered' THEN 'content_filter'
	      WHEN 'no_choices' THEN NULL WHEN 'tool_only' THEN 'tool_calls' ELSE 'stop' END AS stop_reason,
	    CASE WHEN class = 'filtered' THEN 'SAFETY' END AS stop_details_category
	  FROM bench_replies`,
	"log_assignments": `SELECT log_id, log_id AS path, eval AS task, model, eval, route, arm, 'A' AS part, 'path' AS how FROM bench_logs`,
	"reply_outcomes": `SELECT log_id, eval, route, arm, 'A' AS part, sample_id, epoch, class,
	    class IN ('filtered', 'refusal_flag', 'error_text', 'truncated_empty', 'reasoning_only', 'silent') AS non_answer,
	    class IN ('filtered', 'refusal_flag', 'error_text') OR h2 < 10 AS refused,
	    CASE WHEN class IN ('filtered', 'refusal_flag', 'error_text') THEN class WHEN h2 < 10 THEN 'text' ELSE 'none' END AS form,
	    eval || '/' || route || '/' || sample_id || '/1' AS pair_key
	  FROM bench_replies`,
	"policy_scores": `SELECT log_id, eval, route, arm, sample_id, epoch, p.policy, class,
	    p.policy <> 'P0' AND class IN ('filtered', 'refusal_flag', 'error_text', 'truncated_empty', 'reasoning_only', 'silent') AS rerouted,
	    CASE WHEN h2 < 50 THEN '"C"' ELSE '"I"' END AS value_json, 'str' AS value_kind, CASE WHEN h2 < 50 THEN 1.0 ELSE 0.0 END AS value_float,
	    false AS unscored, 'logged' AS reason, judged AS judge_used, false AS needs_judge
	  FROM bench_replies, (VALUES ('P0'), ('P1'), ('P2'), ('P3')) p(policy)`,
	"judge_verdicts": `SELECT log_id, eval, route, arm, sample_id, epoch, 1::BIGINT AS call_index, 'judge' AS scorer, 'openai/gpt-4.1' AS judge_model,
	    'GRADE: C' AS judge_text, 'usable' AS judge_class, '"C"' AS verdict_json, class AS reply_class
	  FROM bench_replies WHERE judged AND class NOT IN ('error', 'no_choices')`,
	"model_calls": `SELECT log_id, sample_id, epoch, 0::BIGINT AS call_index, model, 'model_under_test' AS kind, true AS is_reply,
	    1000 + h2 AS input_tokens, 200 + 10 * h2 AS output_tokens, 5 * h2 AS reasoning_tokens, 100 AS cache_read_tokens, 0 AS cache_write_tokens
	  FROM bench_replies
	  UNION ALL
	  SELECT log_id, sample_id, epoch, 1, 'openai/gpt-4.1', 'judge', false, 1500, 50, 0, 0, 0
	  FROM bench_replies WHERE judged AND class NOT IN ('error', 'no_choices')`,
	"headlines": `SELECT eval, route, arm, p.policy, 'accuracy' AS metric, 0.5 + 0.01 * p.k AS value, 0.48 + 0.01 * p.k AS ci_low, 0.52 + 0.01 * p.k AS ci_high,
	    0.02 AS half_width, 0.95 AS level, count(*) AS n_samples, count(*) AS n_scored, 0 AS n_unscored, 0 AS n_needs_judge,
	    1.0 AS scale, true AS higher_is_better, 2000 AS resamples, 20261022 AS seed
	  FROM bench_replies, (VALUES ('P0', 0), ('P1', 0), ('P2', 1), ('P3', 2)) p(policy, k)
	  WHERE arm IN ('default', 'tight') GROUP BY ALL`,
	"study_routes": `SELECT route, model, 'p' AS provider, 'a' AS adapter, reasoning, p_in AS price_input, p_out AS price_output,
	    p_reason AS price_reasoning, p_cache AS price_cache_read FROM bench_routes`,
	"study_evals": `SELECT eval, eval AS title, kind, 'accuracy' AS metric, 1.0 AS scale, true AS higher_is_better,
	    'scorer' AS judge_where, true AS judge_guarded, eval || '.yaml' AS profile FROM bench_evals`,
	"primary_cells": `SELECT e.eval, r.route FROM bench_evals e, bench_routes r
	  WHERE (e.eval LIKE 'xstest%' AND r.reasoning) OR e.eval IN ('fortress_benign', 'air_bench')`,
	"reruns": `SELECT w.eval, w.route, w.arm, w.sample_id, w.epoch, 'paired' AS status, d.log_id AS orig_log_id,
	    CASE w.arm WHEN 'wide' THEN 'truncated_empty' ELSE 'silent' END AS orig_class,
	    w.log_id AS rerun_log_id, w.class AS rerun_class, CASE WHEN w.eval = 'hle_text' THEN NULL ELSE w.h2 < 30 END AS rerun_refused
	  FROM bench_replies w JOIN bench_replies d ON d.arm = 'default' AND d.eval = w.eval AND d.route = w.route AND d.sample_id = w.sample_id
	  WHERE w.arm IN ('wide', 'control')`,
	"judge_tests": `SELECT 'partc' AS log_id, e.eval, 'openai/gpt-4.1' AS judge_model, 0.0 AS temperature, f.form, 's' || s AS sample_id,
	    rep AS "repeat", CASE WHEN hash(e.eval, f.form, s, rep) % 20 = 0 THEN '"C"' ELSE '"I"' END AS verdict_json,
	    hash(e.eval, f.form, s, rep) % 20 = 0 AS passed, 'usable' AS judge_class
	  FROM bench_evals e, (VALUES ('empty'), ('whitespace'), ('no_content'), ('blocked'), ('policy_error'), ('apology')) f(form),
	    range(40) a(s), range(1, 4) b(rep)
	  WHERE e.judged`,
}

// writeBenchDataset writes the bench tables as a dataset: each declared
// table's columns in order, cast to their declared types.
func writeBenchDataset(b *testing.B, dir string) {
	ctx := context.Background()
	db, err := duck.Open("")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, stmt := range statements(stripComments(benchLogs)) {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			b.Fatalf("%s: %v", stmt, err)
		}
	}
	ds, err := store.Create(store.Stage{Name: store.FixtureWriter, Views: duck.ViewFile}, dir)
	if err != nil {
		b.Fatal(err)
	}
	defer ds.Close()
	for table, src := range benchTables {
		t, _ := schema.Lookup(table)
		rows, err := db.QueryContext(ctx, "SELECT * FROM ("+src+") LIMIT 0")
		if err != nil {
			b.Fatalf("%s: %v", table, err)
		}
		cols, _ := rows.Columns()
		rows.Close()
		have := map[string]bool{}
		for _, c := range cols {
			have[c] = true
		}
		var sel []string
		for _, c := range t.Columns() {
			expr := "NULL"
			if have[c.Name] {
				expr = duck.Ident(c.Name)
			}
			sel = append(sel, fmt.Sprintf("CAST(%s AS %s) AS %s", expr, c.Type, duck.Ident(c.Name)))
		}
		td, err := ds.TableDir(table)
		if err != nil {
			b.Fatal(err)
		}
		q := fmt.Sprintf("COPY (SELECT %s FROM (%s)) TO %s (FORMAT parquet, COMPRESSION zstd)",
			strings.Join(sel, ", "), src, duck.Quote(filepath.Join(td, "part-00000.parquet")))
		if _, err := db.ExecContext(ctx, q); err != nil {
			b.Fatalf("%s: %v", table, err)
		}
	}
	if err := ds.Commit(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkAnalyzeMillionReplies times the whole analyze run — views, every
// .sql file, the bootstrap (data/study.yaml: 2,000 resamples), contract
// checks and the Parquet outputs — over one million replies and the tables
// that go with them (4 million policy scores, 1.5 million model calls).
//
//	go test -run '^$' -bench AnalyzeMillionReplies -benchtime 1x ./internal/measures/
func BenchmarkAnalyzeMillionReplies(b *testing.B) {
	dir := b.TempDir()
	start := time.Now()
	writeBenchDataset(b, dir)
	var replies int64
	conn := testDB(b)
	if err := conn.QueryRowContext(context.Background(), "SELECT count(*) FROM read_parquet(?)", store.TableGlob(dir, "replies")).Scan(&replies); err != nil {
		b.Fatal(err)
	}
	b.Logf("dataset: %d replies, written in %.1fs", replies, time.Since(start).Seconds())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var out bytes.Buffer
		t0 := time.Now()
		if err := Run(context.Background(), Config{Data: dir, Manifest: manifestPath(b)}, &out); err != nil {
			b.Fatal(err)
		}
		elapsed := time.Since(t0)
		if i == 0 {
			b.StopTimer()
			rows := queryRows(b, conn, "SELECT output || ' ' || round(seconds, 2) || 's' FROM read_parquet(?) ORDER BY seconds DESC LIMIT 6", store.TableGlob(dir, RunsTable))
			b.Logf("analyze over %d replies: %.2fs in all; slowest outputs: %s", replies, elapsed.Seconds(), strings.Join(rows, ", "))
			b.StartTimer()
		}
	}
}
