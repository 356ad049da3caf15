package measures

import (
	"context"
	"sort"

	"empties/internal/duck"
	"empties/internal/store"
	sqlfiles "empties/sql"
)

// CheckOutputs verifies the analysis tables a dataset holds against their
// contracts (sql/marts/<output>.yml), for `empties check`: columns and types, not
// null columns, the key, the invariants. It returns one line per broken
// promise; outputs the dataset lacks (analyze not run) are not checked and
// are listed in absent.
func CheckOutputs(ctx context.Context, dataDir string) (broken, absent []string, err error) {
	suite, err := LoadSuite(sqlfiles.FS)
	if err != nil {
		return nil, nil, err
	}
	db, err := duck.Open("")
	if err != nil {
		return nil, nil, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer conn.Close()
	root, err := store.Current(dataDir) // once: every view reads one generation
	if err != nil {
		return nil, nil, err
	}
	if root != "" {
		dataDir = root
	}
	// The outputs get plain views beside the measures' own, as analyze
	// left them.
	v := sourceViews
	v.Others = true
	present, err := createSourceViews(ctx, conn, dataDir, v)
	if err != nil {
		return nil, nil, err
	}
	r, err := newRunner(ctx, conn, Params{Level: 0.95}, present)
	if err != nil {
		return nil, nil, err
	}
	// Invariants may read the classifier's classes.
	if err := buildReplyClasses(ctx, r, false); err != nil {
		return nil, nil, err
	}
	names := make([]string, 0, len(suite.Contracts))
	for name := range suite.Contracts {
		names = append(names, name)
	}
	sort.Strings(names)
	var have []string
	for _, name := range names {
		if root == "" || !present[name] { // present: the outputs too (v.Others)
			absent = append(absent, name)
			continue
		}
		have = append(have, name)
	}
	for _, name := range have {
		b, err := suite.Contracts[name].Check(ctx, conn)
		if err != nil {
			return nil, nil, err
		}
		broken = append(broken, b...)
	}
	return broken, absent, nil
}
