package schema

import (
	"fmt"
	"slices"
	"strings"
)

// How a column reads on a page (the report, empties serve): every column a
// page shows declares a label (words a reader understands; {eval}, {evals},
// {route} and {routes} read "eval"/"route" in a study and "task"/"model"
// without a manifest) and one of these formats, beside its type and doc: in
// a contract (sql/marts/<output>.yml: label:, format:, of:, show:) or in a
// row struct's tags here (label:"...", format:"...", of:"...", show:"...").
// The pages render from these declarations and nothing else.
const (
	FormatIdentifier = "identifier" // a name (eval, model, class, path): never broken inside a word, only after / and ·
	FormatText       = "text"       // prose: wraps at spaces, long ones fold
	FormatCount      = "count"      // an integer, with thousands separators
	FormatNumber     = "number"     // any other number: four significant digits
	FormatPercent    = "percent"    // a share of 1, shown as a percentage
	FormatPP         = "pp"         // a difference in percentage points, shown with its unit
	FormatLow        = "interval_low"
	FormatHigh       = "interval_high" // the ends of the interval of the column named by of, in its format
	FormatBoolean    = "boolean"       // yes or no
	FormatTime       = "time"          // a UTC instant
)

// Formats lists every format, in the order the README documents them.
var Formats = []string{FormatIdentifier, FormatText, FormatCount, FormatNumber, FormatPercent, FormatPP,
	FormatLow, FormatHigh, FormatBoolean, FormatTime}

// When a page shows a column (Column.Show).
const (
	ShowAlways = ""      // wherever its table is shown
	ShowStudy  = "study" // only in a study (a dataset rescore placed with a manifest): arm, profiled
	ShowNever  = "never" // in the files only (tables/<name>.csv, .parquet): Wilson sums, raw keys
)

// CheckDisplay verifies a column's label, format, of and show: the label is
// words, the format one of Formats, an interval end names its estimate
// (of, a column of the same table, given in names), and only an interval end
// has of. It returns an error a contract's author can act on.
func CheckDisplay(c Column, names []string) error {
	switch {
	case strings.TrimSpace(c.Label) == "":
		return fmt.Errorf("column %q: no label (the words a page heads it with, e.g. label: non-answers)", c.Name)
	case !slices.Contains(Formats, c.Format):
		return fmt.Errorf("column %q: format %q is not one of %s", c.Name, c.Format, strings.Join(Formats, ", "))
	case (c.Format == FormatLow || c.Format == FormatHigh) && !slices.Contains(names, c.Of):
		return fmt.Errorf("column %q: an %s names the column it is the interval of (of: <column>), not %q", c.Name, c.Format, c.Of)
	case c.Of != "" && c.Format != FormatLow && c.Format != FormatHigh:
		return fmt.Errorf("column %q: of is for an interval_low or interval_high column", c.Name)
	case c.Show != ShowAlways && c.Show != ShowStudy && c.Show != ShowNever:
		return fmt.Errorf("column %q: show %q is not study or never (leave it out to show the column)", c.Name, c.Show)
	}
	return nil
}
