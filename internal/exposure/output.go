package exposure

import (
	"bytes"
	"fmt"
	"io"
	"sort"
	"strings"

	"empties/internal/guard"
	"empties/schema"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"
)

// Finding is a row of exposure.parquet: one criterion met at one place in
// one eval. Grain: one row per eval × criterion × file × line. The per-eval
// summary is `SELECT eval, criterion, count(*) ... GROUP BY ALL`.
type Finding = schema.Exposure

// writeParquet writes the findings to path, through a temporary file in the
// same folder that is renamed into place.
func writeParquet(path string, rows []Finding) error {
	return writeAtomic(path, func(w io.Writer) error {
		pw := parquet.NewGenericWriter[Finding](w, parquet.Compression(&zstd.Codec{}))
		if _, err := pw.Write(rows); err != nil {
			return err
		}
		return pw.Close()
	})
}

// writeMarkdown writes the findings grouped by eval.
func writeMarkdown(path string, res *Result) error {
	return writeAtomic(path, func(w io.Writer) error {
		_, err := w.Write(renderMarkdown(res))
		return err
	})
}

func writeAtomic(path string, fill func(io.Writer) error) error {
	return guard.WriteFile(path, false, fill)
}

// EvalsBy returns, per criterion, the evals with at least one finding.
func EvalsBy(rows []Finding) map[int32][]string {
	sets := map[int32]map[string]bool{}
	for _, r := range rows {
		if sets[r.Criterion] == nil {
			sets[r.Criterion] = map[string]bool{}
		}
		sets[r.Criterion][r.Eval] = true
	}
	out := map[int32][]string{}
	for c, s := range sets {
		for e := range s {
			out[c] = append(out[c], e)
		}
		sort.Strings(out[c])
	}
	return out
}

func renderMarkdown(res *Result) []byte {
	var b bytes.Buffer
	by := EvalsBy(res.Findings)
	fmt.Fprintf(&b, "# Exposure of inspect_evals evals to the empty-reply problem\n\n")
	fmt.Fprintf(&b, "Static scan of `%s` by `empties exposure`: %d evals (folders with a `@task`), %d Python files, %d findings.\n\n",
		res.Path, len(res.Evals), res.Files, len(res.Findings))
	b.WriteString("| # | criterion | evals | which |\n|---|---|---|---|\n")
	for _, c := range Criteria {
		fmt.Fprintf(&b, "| %d | **%s**: %s | %d | %s |\n", c.Num, c.Name, cell(c.Title), len(by[c.Num]), cell(strings.Join(by[c.Num], ", ")))
	}
	fmt.Fprintf(&b, "\nCriterion 3: %s\n", maxTokensNote)
	if len(res.BadSyntax) > 0 {
		fmt.Fprintf(&b, "\nParsed with syntax-error recovery (findings there may be incomplete): %s\n", strings.Join(res.BadSyntax, ", "))
	}

	b.WriteString("\n## Findings by eval\n")
	var quiet []string
	i := 0
	for _, eval := range res.Evals {
		start := i
		for i < len(res.Findings) && res.Findings[i].Eval == eval {
			i++
		}
		if start == i {
			quiet = append(quiet, eval)
			continue
		}
		fmt.Fprintf(&b, "\n### %s\n\n| criterion | where | code | detail |\n|---|---|---|---|\n", eval)
		for _, f := range res.Findings[start:i] {
			fmt.Fprintf(&b, "| %d %s | `%s:%d` | %s | %s |\n", f.Criterion, f.CriterionName, f.File, f.Line, codeCell(f.Code), cell(f.Detail))
		}
	}
	if len(quiet) > 0 {
		fmt.Fprintf(&b, "\n## Evals with no findings (%d)\n\n%s\n", len(quiet), strings.Join(quiet, ", "))
	}
	return b.Bytes()
}

func cell(s string) string {
	return strings.ReplaceAll(s, "|", `\|`)
}

// codeCell renders source as a code span inside a table cell.
func codeCell(s string) string {
	s = cell(s)
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}
