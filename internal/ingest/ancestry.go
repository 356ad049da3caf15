package ingest

// spanTree holds a sample's spans by id and answers, for any span, whether
// a scorer or scorers span is among its ancestors (itself included) and the
// name of the nearest scorer span. The ancestry is walked to the root
// whatever its depth, each span once: an answer is kept for every span a
// walk passes, so a sample of n nested spans costs O(n) however many model
// events it holds. A parent chain that loops (no writer makes one; a
// damaged or hostile log can) is walked once around: every span of the loop
// sees every other, as an unbounded walk would.
type spanTree struct {
	spans map[string]span
	memo  map[string]scoring
}

// scoring is what a span's ancestry says about the calls under it.
type scoring struct {
	judge  bool    // a scorer or scorers span is an ancestor
	scorer *string // the nearest scorer span's name
}

func newSpanTree(spans map[string]span) *spanTree {
	return &spanTree{spans: spans, memo: make(map[string]scoring)}
}

// of returns the scoring of the span id ("" or an unknown id: none).
func (t *spanTree) of(id string) scoring {
	if sc, ok := t.memo[id]; ok {
		return sc
	}
	// Walk up to the root, a span already answered, or a span already on
	// the path (a loop).
	var path []string
	onPath := map[string]int{}
	var tail scoring
	loop := -1
	for cur := id; cur != ""; {
		if sc, ok := t.memo[cur]; ok {
			tail = sc
			break
		}
		if k, ok := onPath[cur]; ok {
			loop = k
			break
		}
		s, ok := t.spans[cur]
		if !ok {
			break
		}
		onPath[cur] = len(path)
		path = append(path, cur)
		cur = s.parent
	}
	end := len(path)
	if loop >= 0 {
		// The spans path[loop:] form a loop: each one's ancestry is the
		// whole loop, starting from itself. Two passes backwards give each
		// the nearest scorer going round.
		judge := false
		for _, sid := range path[loop:] {
			if isScoring(t.spans[sid].typ) {
				judge = true
			}
		}
		var next *string
		for range 2 {
			for i := len(path) - 1; i >= loop; i-- {
				s := t.spans[path[i]]
				if s.typ == "scorer" {
					next = strPtr(s.name)
				}
				t.memo[path[i]] = scoring{judge: judge, scorer: next}
			}
		}
		end = loop
		tail = t.memo[path[loop]]
	}
	for i := end - 1; i >= 0; i-- {
		s := t.spans[path[i]]
		sc := tail
		if isScoring(s.typ) {
			sc.judge = true
		}
		if s.typ == "scorer" {
			sc.scorer = strPtr(s.name)
		}
		t.memo[path[i]] = sc
		tail = sc
	}
	return t.memo[id]
}

func isScoring(typ string) bool { return typ == "scorer" || typ == "scorers" }
