package evallog

import (
	"archive/zip"
	"fmt"
)

// A log's reductions (the epochs' reduced scores) are read by no table,
// but inspect_ai's read_eval_log reads them and refuses a log whose
// reductions it cannot read, so empties refuses it too: the rule of the
// malformed logs (README "Malformed logs"), JSON valid everywhere and the
// JSON kind of every top-level value checked, what is inside not.
//
// An .eval's reductions.json is read with json.load, then iterated (each
// item validated as an EvalSampleReductions), in _read_log_from_bytes and
// its async twin, even for a header-only read: so inspect_ai refuses the
// log for invalid JSON, and for any value it cannot iterate or whose items
// are not objects. A list is read (its items are the inside, unchecked
// here), and so are the two other values that iterate nothing, an empty
// object and an empty string. A .json log's "reductions" is a field of
// EvalLog (list | None), checked with the header's other fields
// (openJSON).

// checkReductions reads an .eval's reductions.json member as inspect_ai
// would and reports why it refuses it, or nil.
func (l *Log) checkReductions(zf *zip.File) error {
	return l.readSmallMember(zf, func(b []byte) error {
		if err := syntaxError(b); err != nil {
			return err
		}
		return reductionsKind(b)
	})
}

// reductionsKind reports an error unless the valid JSON value b is one
// inspect_ai iterates into nothing but objects: a list (its items
// unchecked), an empty object or an empty string.
func reductionsKind(b []byte) error {
	i := ws(b, 0)
	switch b[i] {
	case '[':
		return nil
	case '{':
		if b[ws(b, i+1)] == '}' {
			return nil
		}
	case '"':
		if b[i+1] == '"' {
			return nil
		}
	}
	return fmt.Errorf("%s, where inspect_ai iterates a list of reductions (it reads only a list, an empty object or an empty string)", withArticle(kindOf(b[i]).String()))
}
