package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// RunCursor is where a page of the run list ended: the created_at and id of
// its last run. The zero value is the start of the list.
type RunCursor struct {
	CreatedAt int64
	ID        string
}

// RunFilter selects runs; empty fields match everything.
type RunFilter struct {
	Statuses []string
	Agent    string // agent id or name
	Text     string // substring of the instructions, in any case
	// Attention keeps the runs waiting on a person: in status waiting, or
	// with an approval or question pending (a run of this machine; an
	// imported run's interactions are a record, never answered here).
	// With Statuses, a run must be in one of them as well.
	Attention bool
	// Before, when set, keeps the runs after it in the list's order (older,
	// or as old with a lower id): the next page after a page that ended
	// there.
	Before RunCursor
	Limit  int // 100 when zero
}

// ListRuns returns runs newest first (created_at, then id, descending).
//
// A page reads about as many index entries as it returns, whatever the
// filter (migration 0016): each combination of one status and one agent
// column is a walk of an index already in the list's order, and the walks
// are merged (UNION with the ORDER BY over the compound, which SQLite runs
// as a merge that stops at the limit). The runs' rows, and their pending
// counts, are read only for the page.
//
// Text is looked up in a trigram index, whose cost grows with its matches
// (a word in a third of 100,000 runs: 20 ms). Text in ASCII, and text too
// short for a trigram, is first looked for by LIKE in the newest textWindow
// runs of the other filters, which holds a page when the text is common
// (half a millisecond), and only then in the index (or, short, by one scan
// of the table).
//
// Attention's runs with a pending interaction are found from the pending
// interactions (an index of interactions by status), so that filter costs
// what is pending, never a scan of the runs.
func (s *Store) ListRuns(ctx context.Context, f RunFilter) ([]Run, error) {
	limit := f.Limit
	if limit <= 0 {
		limit = 100
	}
	// Attention's runs are few, and read whole by each query: a window
	// would only read them twice.
	if n := utf8.RuneCountInString(f.Text); n > 0 && !f.Attention && (n < minTrigram || isASCII(f.Text)) {
		out, err := s.listRuns(ctx, f, textWindow, nil)
		// The window's first matches are the list's: every run after the
		// window is older than all of it.
		if err != nil || len(out) == limit {
			return out, err
		}
	}
	short, err := s.shortTerms(ctx, f.Text)
	if err != nil {
		return nil, err
	}
	if short != nil && short.none {
		return []Run{}, nil
	}
	return s.listRuns(ctx, f, 0, short)
}

// textWindow is how many runs a search reads by LIKE before it asks the
// trigram index: 2,000 cost about 1 ms, and hold a page of 100 for any text
// in 5% of the runs or more; the index finds a rarer text in a few ms.
const textWindow = 2000

// isASCII reports whether text is ASCII only, where LIKE and the trigram
// index agree on case (LIKE folds no other letters).
func isASCII(text string) bool {
	for i := 0; i < len(text); i++ {
		if text[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// listRuns runs listRunsQuery.
func (s *Store) listRuns(ctx context.Context, f RunFilter, window int, short *shortText) ([]Run, error) {
	q, args := listRunsQuery(f, window, short)
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	defer rows.Close()
	out := []Run{}
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, fmt.Errorf("list runs: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	// The page's order is the list's; the join back to runs need not keep
	// it, and sorting at most a page here keeps the query free of a sort.
	slices.SortFunc(out, func(a, b Run) int {
		if a.CreatedAt != b.CreatedAt {
			return cmp.Compare(b.CreatedAt, a.CreatedAt)
		}
		return strings.Compare(b.ID, a.ID)
	})
	return out, nil
}

// minTrigram is the shortest text the trigram index can look up: FTS5's
// trigram tokenizer indexes runs of three characters, so a query of one or
// two characters has no trigram to look for.
const minTrigram = 3

type cond struct {
	sql  string
	args []any
}

// listRunsQuery builds ListRuns' statement: an inner query of the page's
// rowids, as one ordered index walk or a merge of several, and the runs'
// columns read for those rows only. With window > 0 the text is matched by
// LIKE among the first window runs of the walk only; short is what
// ListRuns found of text too short for a trigram.
func listRunsQuery(f RunFilter, window int, short *shortText) (string, []any) {
	limit := f.Limit
	if limit <= 0 {
		limit = 100
	}
	if window == 0 && len(f.Statuses) == 0 && f.Agent == "" && !f.Attention && utf8.RuneCountInString(f.Text) >= minTrigram {
		return textQuery(f.Text, f.Before, limit)
	}
	var common []cond
	if f.Before != (RunCursor{}) {
		common = append(common, cond{"(r.created_at, r.id) < (?, ?)", []any{f.Before.CreatedAt, f.Before.ID}})
	}
	if f.Text != "" && window == 0 {
		common = append(common, textCond(f.Text, short))
	}
	// One walk per status: an IN list over the status index would come out
	// ordered by status first and need a sort of every matching run.
	statuses := []cond{{}}
	if len(f.Statuses) > 0 {
		statuses = statuses[:0]
		seen := map[string]bool{}
		for _, st := range f.Statuses {
			if !seen[st] {
				seen[st] = true
				statuses = append(statuses, cond{"r.status = ?", []any{st}})
			}
		}
	}
	if f.Attention {
		// Two walks: the waiting runs in the status index's order, and the
		// runs of the pending interactions, few by nature (each waits on a
		// person), found by interactions' status index and sorted.
		pending := "r.id IN (SELECT run_id FROM interactions INDEXED BY interactions_pending WHERE status = 'pending') AND r.imported_from = ''"
		if len(f.Statuses) == 0 {
			statuses = []cond{{"r.status = 'waiting'", nil}, {pending, nil}}
		} else {
			common = append(common, cond{"(r.status = 'waiting' OR " + pending + ")", nil})
		}
	}
	// An agent is named by id or by name: one walk of each column's index,
	// which an OR of the two would turn into a sort.
	agents := []cond{{}}
	if f.Agent != "" {
		agents = []cond{{"r.agent_id = ?", []any{f.Agent}}, {"r.agent_name = ?", []any{f.Agent}}}
	}
	var arms []string
	var args []any
	for _, st := range statuses {
		for _, ag := range agents {
			var where []string
			for _, c := range append([]cond{st, ag}, common...) {
				if c.sql != "" {
					where = append(where, c.sql)
					args = append(args, c.args...)
				}
			}
			arm := `SELECT r.rowid AS k, r.created_at AS c, r.id AS i FROM runs r`
			if len(where) > 0 {
				arm += " WHERE " + strings.Join(where, " AND ")
			}
			arms = append(arms, arm)
		}
	}
	// UNION, not UNION ALL: a run whose agent id and name are both the
	// one asked for is found by both walks.
	inner := strings.Join(arms, " UNION ") + " ORDER BY c DESC, i DESC LIMIT ?"
	if window > 0 {
		inner = `SELECT w.k, w.c, w.i FROM (` + inner + `) w JOIN runs r ON r.rowid = w.k
			WHERE r.instructions LIKE ? ESCAPE '\' ORDER BY w.c DESC, w.i DESC LIMIT ?`
		args = append(args, window, likeContains(f.Text))
	}
	args = append(args, limit)
	return `SELECT ` + runCols + ` FROM (` + inner + `) p JOIN runs r ON r.rowid = p.k`, args
}
