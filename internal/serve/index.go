package serve

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"empties/internal/classify"
	"empties/internal/duck"
	"empties/schema"
)

// The browser's index: one row per reply with every facet's value and every
// sort key, and no text, in an in-memory table of the server's database
// (built when a generation opens, from the same views, so it is of that
// generation). Facet counts, filters, sorts and paging run on it; the texts
// of a page's rows, and a text search, read the replies themselves.

const indexTable = "empties_serve.replies_index"

// col is the facet's column in the index.
func (fc facet) col() string { return "f_" + fc.Key }

// classOrder orders classes as the rules do (error first, answer last).
func classOrder() string {
	var b strings.Builder
	b.WriteString("CASE r.class")
	for i, c := range classify.Classes() {
		fmt.Fprintf(&b, " WHEN %s THEN %d", duck.Quote(c), i)
	}
	b.WriteString(" END")
	return b.String()
}

// buildIndex makes the index of the generation's replies, its rows in the
// default order: a table written from a sorted query keeps its rows in that
// order (DuckDB preserves insertion order), so its rowid is each row's rank. Its text columns are ENUMs of
// the values that occur (about 100 bytes a reply in all, a third of
// VARCHARs), so filters and sorts compare small integers.
func buildIndex(ctx context.Context, db *sql.DB, root string, tables map[string]bool) error {
	from := repliesAt(root) + " r JOIN logs l USING (log_id)"
	if tables["log_assignments"] {
		from += " LEFT JOIN (SELECT DISTINCT ON (log_id) * FROM log_assignments) a USING (log_id)"
	}
	if _, err := db.ExecContext(ctx, "CREATE SCHEMA IF NOT EXISTS empties_serve"); err != nil {
		return err
	}
	fs := activeFacets(tables)
	// Every column is cast to its small type before the rows are sorted,
	// so the sort moves little.
	cols := []string{"r.sample_id", "r.epoch", "CAST(r.row_file AS empties_serve.e_row_file) AS row_file", "CAST(r.row_number AS UINTEGER) AS row_number"}
	enums := map[string]string{"e_row_file": "r.row_file"}
	for _, fc := range fs {
		enums["e_"+fc.col()] = fc.src
		cols = append(cols, "CAST("+fc.src+" AS empties_serve.e_"+fc.col()+") AS "+fc.col())
	}
	cols = append(cols, "CAST("+classOrder()+" AS UTINYINT) AS s_class", "TRY_CAST(r.sample_id AS HUGEINT) AS s_num", "r.text_chars AS s_chars",
		"r.output_tokens AS s_tokens", "CAST(r.failed_attempts + r.placeholders_skipped AS UINTEGER) AS s_attempts", "CAST(lo.o AS UINTEGER) AS s_log")
	// Every ENUM's values in one scan: a grouping set per column.
	names := slices.Sorted(maps.Keys(enums))
	var exprs, sets []string
	for i, name := range names {
		exprs = append(exprs, fmt.Sprintf("%s AS v%d", enums[name], i))
		sets = append(sets, fmt.Sprintf("(v%d)", i))
	}
	rows, err := db.QueryContext(ctx, "SELECT DISTINCT * FROM (SELECT "+strings.Join(exprs, ", ")+" FROM "+from+") GROUP BY GROUPING SETS ("+strings.Join(sets, ", ")+")")
	if err != nil {
		return fmt.Errorf("indexing the replies: %w", err)
	}
	values := make([][]string, len(names))
	vals := make([]sql.NullString, len(names))
	ptrs := make([]any, len(names))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			rows.Close()
			return err
		}
		for i, v := range vals {
			if v.Valid {
				values[i] = append(values[i], v.String) // a grouping set's rows are distinct
			}
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("indexing the replies: %w", err)
	}
	for i, name := range names {
		slices.Sort(values[i])
		quoted := []string{duck.Quote("")} // an ENUM needs a value: a column all NULL gets ''
		if len(values[i]) > 0 {
			quoted = quoted[:0]
			for _, v := range slices.Compact(values[i]) {
				quoted = append(quoted, duck.Quote(v))
			}
		}
		q := "CREATE TYPE empties_serve." + name + " AS ENUM (" + strings.Join(quoted, ", ") + ")"
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("indexing the replies: %w", err)
		}
	}
	var order []string
	for _, c := range defaultOrder {
		order = append(order, c+" NULLS LAST")
	}
	// s_log numbers the logs by path.
	logOrder := " JOIN (SELECT log_id, row_number() OVER (ORDER BY path) AS o FROM logs) lo USING (log_id)"
	q := "CREATE TABLE " + indexTable + " AS SELECT " + strings.Join(cols, ", ") + " FROM " + from + logOrder + " ORDER BY " + strings.Join(order, ", ")
	if _, err := db.ExecContext(ctx, q); err != nil {
		return fmt.Errorf("indexing the replies: %w", err)
	}
	return nil
}

// repliesAt is the generation's replies as their staging view types them
// (duck.StagingSelect's casts), with where each row is: its file
// (row_file) and its row in the file (row_number). A page's rows are read by
// those, which DuckDB's Parquet reader turns into reads of the row groups
// that hold them, and nothing else.
func repliesAt(root string) string {
	var cols []string
	for _, t := range schema.Tables() {
		if t.Name != "replies" {
			continue
		}
		for _, c := range t.Columns() {
			cols = append(cols, fmt.Sprintf("CAST(%s AS %s) AS %s", duck.Ident(c.Name), c.Type, duck.Ident(c.Name)))
		}
	}
	return "(SELECT " + strings.Join(cols, ", ") + ", filename AS row_file, file_row_number AS row_number FROM read_parquet(" +
		duck.ReadPath(filepath.Join(root, "replies"), "*.parquet") + ", filename = true, file_row_number = true))"
}

// rowAt is where a reply is.
type rowAt struct {
	file string
	row  int64
}

func pageKeys(ctx context.Context, db *sql.DB, q string, args []any) ([]rowAt, error) {
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []rowAt
	for rows.Next() {
		var k rowAt
		if err := rows.Scan(&k.file, &k.row); err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// pageRows reads the replies at the page's places, in the page's order: one
// query per file, its rows named by number.
func pageRows(ctx context.Context, db *sql.DB, root string, keys []rowAt) ([]replyRow, error) {
	byFile := map[string][]any{}
	var files []string
	for _, k := range keys {
		if byFile[k.file] == nil {
			files = append(files, k.file)
		}
		byFile[k.file] = append(byFile[k.file], k.row)
	}
	found := map[rowAt]replyRow{}
	for _, file := range files {
		nums := byFile[file]
		q := `SELECT r.row_number, r.log_id, r.task, r.model, r.sample_id, r.epoch, r.class, r.class_rule, r.non_answer, r.final_class, r.generations,
		r.stop_reason, r.stop_details_category, r.reply_source, left(r.text, ` + strconv.Itoa(snippetChars) + `), r.text_chars, r.reasoning_chars,
		r.refusal, r.tool_call_functions, r.sample_error, r.call_error, r.output_error, r.failed_attempts, r.placeholders_skipped, r.output_tokens
		FROM ` + repliesAt(root) + ` r WHERE r.row_file = ? AND r.row_number IN (` + placeholders(len(nums)) + `)`
		rows, err := db.QueryContext(ctx, q, append([]any{file}, nums...)...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var r replyRow
			var num int64
			var funcs []any
			if err := rows.Scan(&num, &r.LogID, &r.Task, &r.Model, &r.SampleID, &r.Epoch, &r.Class, &r.ClassRule, &r.NonAnswer, &r.FinalClass, &r.Generations,
				&r.StopReason, &r.StopCategory, &r.ReplySource, &r.Text, &r.TextChars, &r.ReasoningChars,
				&r.Refusal, &funcs, &r.SampleError, &r.CallError, &r.OutputError, &r.FailedAttempts, &r.Placeholders, &r.OutputTokens); err != nil {
				rows.Close()
				return nil, err
			}
			for _, fn := range funcs {
				if s, ok := fn.(string); ok {
					r.ToolFunctions = append(r.ToolFunctions, s)
				}
			}
			found[rowAt{file, num}] = r
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	out := make([]replyRow, 0, len(keys))
	for _, k := range keys {
		if r, ok := found[k]; ok {
			out = append(out, r)
		}
	}
	return out, nil
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

func facetQuery(ctx context.Context, db *sql.DB, q string, args []any) ([]facetCount, error) {
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []facetCount
	for rows.Next() {
		var v sql.NullString
		var n int64
		if err := rows.Scan(&v, &n); err != nil {
			return nil, err
		}
		fc := facetCount{Count: n}
		if v.Valid {
			s := v.String
			fc.Value = &s
		}
		out = append(out, fc)
	}
	return out, rows.Err()
}

// sortCounts orders a facet's values by count, then value (NULL last).
func sortCounts(c []facetCount) {
	slices.SortFunc(c, func(a, b facetCount) int {
		if a.Count != b.Count {
			if a.Count > b.Count {
				return -1
			}
			return 1
		}
		switch {
		case a.Value == nil && b.Value == nil:
			return 0
		case a.Value == nil:
			return 1
		case b.Value == nil:
			return -1
		}
		return strings.Compare(*a.Value, *b.Value)
	})
}
