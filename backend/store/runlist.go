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
// (a word in a third of 100,000 runs: 20 ms). Text in ASCII is first looked
// for by instr in the newest textWindow runs of the other filters, which
// holds a page when the text is common (half a millisecond), and only then
// in the index.
func (s *Store) ListRuns(ctx context.Context, f RunFilter) ([]Run, error) {
	limit := f.Limit
	if limit <= 0 {
		limit = 100
	}
	if utf8.RuneCountInString(f.Text) >= minTrigram && isASCII(f.Text) {
		out, err := s.listRuns(ctx, f, textWindow)
		// The window's first matches are the list's: every run after the
		// window is older than all of it.
		if err != nil || len(out) == limit {
			return out, err
		}
	}
	return s.listRuns(ctx, f, 0)
}

// textWindow is how many runs a search reads by instr before it asks the
// trigram index: 2,000 cost about 1 ms, and hold a page of 100 for any text
// in 5% of the runs or more; the index finds a rarer text in a few ms.
const textWindow = 2000

// isASCII reports whether text is ASCII only, where instr(lower()) and the
// trigram index agree on case (lower() folds no other letters).
func isASCII(text string) bool {
	for i := 0; i < len(text); i++ {
		if text[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// listRuns runs listRunsQuery.
func (s *Store) listRuns(ctx context.Context, f RunFilter, window int) ([]Run, error) {
	q, args := listRunsQuery(f, window)
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
// instr among the first window runs of the walk only.
func listRunsQuery(f RunFilter, window int) (string, []any) {
	limit := f.Limit
	if limit <= 0 {
		limit = 100
	}
	if window == 0 && len(f.Statuses) == 0 && f.Agent == "" && utf8.RuneCountInString(f.Text) >= minTrigram {
		return textQuery(f.Text, f.Before, limit)
	}
	var common []cond
	if f.Before != (RunCursor{}) {
		common = append(common, cond{"(r.created_at, r.id) < (?, ?)", []any{f.Before.CreatedAt, f.Before.ID}})
	}
	if f.Text != "" && window == 0 {
		common = append(common, textCond(f.Text))
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
			WHERE instr(lower(r.instructions), lower(?)) > 0 ORDER BY w.c DESC, w.i DESC LIMIT ?`
		args = append(args, window, f.Text)
	}
	args = append(args, limit)
	return `SELECT ` + runCols + ` FROM (` + inner + `) p JOIN runs r ON r.rowid = p.k`, args
}

// textCond matches runs whose instructions contain text in any case.
// Text of three characters or more is looked up in the trigram index
// (runs_text, migration 0016) as one quoted phrase, which trigram matches
// as a substring. Shorter text cannot use it and is found by instr over
// every run (still correct, at the cost of the scan), where lower() folds
// only ASCII letters; the trigram index folds other letters too.
func textCond(text string) cond {
	if utf8.RuneCountInString(text) < minTrigram {
		return cond{"instr(lower(r.instructions), lower(?)) > 0", []any{text}}
	}
	return cond{"r.id IN (SELECT run_id FROM runs_text WHERE runs_text MATCH ?)", []any{phrase(text)}}
}

// phrase quotes text as one FTS5 phrase, so that nothing in it is read as
// query syntax (OR, NEAR, a column filter, a quote).
func phrase(text string) string { return `"` + strings.ReplaceAll(text, `"`, `""`) + `"` }

// textQuery is the page of a search with no other filter: the matches are
// ordered by the created_at and run_id the index keeps beside the text, and
// only the page's runs are read. Its cost grows with the matches (about 20
// ms for a word in a third of 100,000 runs, which ListRuns' window answers
// first), where the walks of the other filters read only the page.
func textQuery(text string, before RunCursor, limit int) (string, []any) {
	where := "runs_text MATCH ?"
	args := []any{phrase(text)}
	if before != (RunCursor{}) {
		where += " AND (t.created_at, t.run_id) < (?, ?)"
		args = append(args, before.CreatedAt, before.ID)
	}
	args = append(args, limit)
	return `SELECT ` + runCols + ` FROM (SELECT t.run_id AS i FROM runs_text t WHERE ` + where +
		` ORDER BY t.created_at DESC, t.run_id DESC LIMIT ?) p JOIN runs r ON r.id = p.i`, args
}
