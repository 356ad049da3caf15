package serve

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
)

// Facet counts come from cells: the number of replies of each combination
// of facet values that occurs (one GROUP BY over the index, made once per
// generation, and once per text search or sample id asked for). Every count
// a page shows is a sum of cells, done in Go: a facet's values are counted
// over the cells every other facet's filter keeps, the total over the cells
// every filter keeps. A click on a facet then costs no count query at all.

// cellSet is the cells of the replies a text search and sample id keep.
type cellSet struct {
	dict   [][]*string // facet → its values (index = code)
	codes  []int32     // cell-major: codes[c*nf+f]
	counts []int64
	nf     int
	search string // the table of the search's matches ("" for none)
}

// cellCache holds a generation's cell sets by (text, sample id).
type cellCache struct {
	mu     sync.Mutex
	sets   map[string]*cellEntry
	order  []string
	nextID int
}

type cellEntry struct {
	once sync.Once
	set  *cellSet
	err  error
}

const maxCellSets = 16

// cells returns the cell set of a text search and sample id ("" for none).
func (g *generation) cells(ctx context.Context, q, id string) (*cellSet, error) {
	key := q + "\x00" + id
	c := &g.cellCache
	c.mu.Lock()
	if c.sets == nil {
		c.sets = map[string]*cellEntry{}
	}
	e := c.sets[key]
	if e == nil {
		e = &cellEntry{}
		c.sets[key] = e
		c.order = append(c.order, key)
		for len(c.order) > maxCellSets {
			old := c.order[0]
			c.order = c.order[1:]
			if o := c.sets[old]; o != nil && o.set != nil && o.set.search != "" {
				g.db.ExecContext(context.Background(), "DROP TABLE IF EXISTS "+o.set.search)
			}
			delete(c.sets, old)
		}
	}
	c.nextID++
	n := c.nextID
	c.mu.Unlock()
	e.once.Do(func() {
		e.set, e.err = buildCells(context.WithoutCancel(ctx), g, q, id, n)
	})
	if e.err != nil {
		c.mu.Lock()
		delete(c.sets, key) // try again next time
		c.mu.Unlock()
	}
	return e.set, e.err
}

// buildCells counts the replies of every combination of facet values, of
// the replies whose text or reasoning holds q and whose sample id is id. A
// text search's matches are kept in a table of their keys, for the pages'
// queries.
func buildCells(ctx context.Context, g *generation, q, id string, n int) (*cellSet, error) {
	fs := activeFacets(g.tables)
	cs := &cellSet{nf: len(fs), dict: make([][]*string, len(fs))}
	var conds []string
	var args []any
	if q != "" {
		cs.search = fmt.Sprintf("empties_serve.search_%d", n)
		pat := "%" + likeEscaper.Replace(q) + "%"
		_, err := g.db.ExecContext(ctx, "CREATE TABLE "+cs.search+" AS SELECT i.rowid AS s_rank FROM "+indexTable+" i JOIN (SELECT row_file, row_number FROM "+
			repliesAt(g.root)+` WHERE text ILIKE ? ESCAPE '\' OR reasoning_text ILIKE ? ESCAPE '\') t
			ON i.row_file = CAST(t.row_file AS empties_serve.e_row_file) AND i.row_number = t.row_number`, pat, pat)
		if err != nil {
			return nil, fmt.Errorf("text search: %w", err)
		}
		conds = append(conds, "i.rowid IN (SELECT s_rank FROM "+cs.search+")")
	}
	if id != "" {
		conds = append(conds, "i.sample_id = ?")
		args = append(args, id)
	}
	var cols []string
	for _, fc := range fs {
		cols = append(cols, "i."+fc.col())
	}
	query := "SELECT " + strings.Join(cols, ", ") + ", count(*) FROM " + indexTable + " i"
	if len(conds) > 0 {
		query += " WHERE " + strings.Join(conds, " AND ")
	}
	query += " GROUP BY ALL"
	rows, err := g.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("facet counts: %w", err)
	}
	defer rows.Close()
	vals := make([]sql.NullString, len(fs))
	ptrs := make([]any, len(fs)+1)
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var count int64
	ptrs[len(fs)] = &count
	index := make([]map[string]int32, len(fs)) // value (NULL: "\x00null") → code
	for i := range index {
		index[i] = map[string]int32{}
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		for i, v := range vals {
			k := v.String
			if !v.Valid {
				k = "\x00null"
			}
			code, ok := index[i][k]
			if !ok {
				code = int32(len(cs.dict[i]))
				index[i][k] = code
				var p *string
				if v.Valid {
					s := v.String
					p = &s
				}
				cs.dict[i] = append(cs.dict[i], p)
			}
			cs.codes = append(cs.codes, code)
		}
		cs.counts = append(cs.counts, count)
	}
	return cs, rows.Err()
}

// count fills counts with every facet's values over the cells the other
// facets' filters keep, and returns the replies every filter keeps.
func (cs *cellSet) count(fs []facet, f filter, counts map[string][]facetCount) int64 {
	// keep[i][code]: facet i's filter keeps that value (nil: no filter).
	keep := make([][]bool, cs.nf)
	for i, fc := range fs {
		sel := f.sel[fc.Key]
		if len(sel) == 0 {
			continue
		}
		keep[i] = make([]bool, len(cs.dict[i]))
		for code, v := range cs.dict[i] {
			for _, p := range sel {
				if (p == nil) == (v == nil) && (p == nil || *p == *v) {
					keep[i][code] = true
				}
			}
		}
	}
	per := make([][]int64, cs.nf)
	for i := range per {
		per[i] = make([]int64, len(cs.dict[i]))
	}
	var total int64
	for c, n := range cs.counts {
		row := cs.codes[c*cs.nf : (c+1)*cs.nf]
		fails, failed := 0, -1
		for i, code := range row {
			if keep[i] != nil && !keep[i][code] {
				fails++
				failed = i
				if fails > 1 {
					break
				}
			}
		}
		switch fails {
		case 0:
			total += n
			for i, code := range row {
				per[i][code] += n
			}
		case 1:
			per[failed][row[failed]] += n
		}
	}
	for i, fc := range fs {
		for code, n := range per[i] {
			if n > 0 {
				counts[fc.Key] = append(counts[fc.Key], facetCount{Value: cs.dict[i][code], Count: n})
			}
		}
	}
	return total
}

// has reports whether facet i has the value p (nil: NULL) in the cells.
func (cs *cellSet) has(i int, p *string) bool {
	for _, v := range cs.dict[i] {
		if (p == nil) == (v == nil) && (p == nil || *p == *v) {
			return true
		}
	}
	return false
}

// likeEscaper makes a search text match itself in ILIKE ... ESCAPE '\'.
var likeEscaper = strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`)
