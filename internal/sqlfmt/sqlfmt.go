// Package sqlfmt renders values scanned from DuckDB as text.
package sqlfmt

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Format renders one scanned value: NULL for nil, shortest floats, UTC times,
// lists in brackets.
func Format(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case string:
		return x
	case []byte:
		return string(x)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case float32:
		return strconv.FormatFloat(float64(x), 'g', -1, 32)
	case time.Time:
		return x.UTC().Format("2006-01-02 15:04:05.999999Z07:00")
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = Format(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprint(v)
}
