package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// shortText is what ListRuns found, before its query, about text too short
// for a trigram (one or two ASCII characters): the trigrams of runs_text
// that start with it (migration 0017), at most maxShortTerms, or many when
// there are more; none when no run holds it at all, which ListRuns then
// answers without a query.
type shortText struct {
	terms []string
	many  bool
	none  bool
}

// maxShortTerms bounds the trigrams a short text is looked up by: each is
// one seek of runs_text_terms and one term of a MATCH. Text followed by more
// than 32 different characters is common, and a walk with LIKE finds a page
// of it in the first runs it reads.
const maxShortTerms = 32

// shortTerms looks up the trigrams that start with text, for textCond; nil
// when text is not short ASCII (it has trigrams of its own, or its case is
// folded by the trigram index in ways LIKE does not).
func (s *Store) shortTerms(ctx context.Context, text string) (*shortText, error) {
	if text == "" || utf8.RuneCountInString(text) >= minTrigram || !isASCII(text) {
		return nil, nil
	}
	prefix := strings.ToLower(text) // the index folds case, ASCII as lower() does
	// The terms after prefix and before the first string that does not
	// start with it, one at a time: runs_text_terms seeks to a term without
	// reading the others, where a range of it read every instance of each.
	end := prefix[:len(prefix)-1] + string([]byte{prefix[len(prefix)-1] + 1})
	out := &shortText{}
	last := prefix
	for {
		var term string
		err := s.r.QueryRowContext(ctx, `SELECT term FROM runs_text_terms WHERE term > ? AND term < ? LIMIT 1`, last, end).Scan(&term)
		if errors.Is(err, sql.ErrNoRows) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("list runs: terms of %q: %w", text, err)
		}
		if len(out.terms) == maxShortTerms {
			return &shortText{many: true}, nil
		}
		out.terms = append(out.terms, term)
		last = term
	}
	if len(out.terms) == 0 {
		tail := tailCond(prefix)
		var some bool
		if err := s.r.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM runs WHERE `+tail.sql+`)`, tail.args...).Scan(&some); err != nil {
			return nil, fmt.Errorf("list runs: tails of %q: %w", text, err)
		}
		out.none = !some
	}
	return out, nil
}

// tailCond matches the runs whose last two characters hold lower, one or
// two ASCII characters in lower case, through the tail indexes.
func tailCond(lower string) cond {
	if len(lower) == 1 {
		// At the next to last place, or the last.
		end := string([]byte{lower[0] + 1})
		return cond{"lower(substr(instructions, -2)) >= ? AND lower(substr(instructions, -2)) < ? OR lower(substr(instructions, -1)) = ?",
			[]any{lower, end, lower}}
	}
	return cond{"lower(substr(instructions, -2)) = ?", []any{lower}}
}

// textCond matches runs whose instructions contain text in any case.
//
// Text of three characters or more is looked up in the trigram index
// (runs_text, migration 0016) as one quoted phrase, which trigram matches
// as a substring.
//
// Shorter text has no trigram and is matched by LIKE, which folds only
// ASCII letters (the trigram index folds other letters too). For ASCII text
// (short not nil) the runs LIKE is asked about are those of the trigrams
// that start with it, and those whose last two characters hold it (the
// tail indexes of migration 0017): every occurrence is one or the other.
// A search that found nothing read every run (34 ms at 100,000 runs); now
// it reads what the indexes hold of it. Other short text, or text followed
// by too many characters to list (short.many), is matched by LIKE on the
// walk, which meets a page of common text in its first runs.
func textCond(text string, short *shortText) cond {
	if utf8.RuneCountInString(text) >= minTrigram {
		return cond{"r.id IN (SELECT run_id FROM runs_text WHERE runs_text MATCH ?)", []any{phrase(text)}}
	}
	like := cond{`r.instructions LIKE ? ESCAPE '\'`, []any{likeContains(text)}}
	if short == nil || short.many {
		return like
	}
	tail := tailCond(strings.ToLower(text))
	in := "r.rowid IN (SELECT rowid FROM runs WHERE " + tail.sql + ")"
	args := slices.Clone(tail.args)
	if len(short.terms) > 0 {
		quoted := make([]string, len(short.terms))
		for i, t := range short.terms {
			quoted[i] = phrase(t)
		}
		in = "(r.id IN (SELECT run_id FROM runs_text WHERE runs_text MATCH ?) OR " + in + ")"
		args = append([]any{strings.Join(quoted, " OR ")}, args...)
	}
	return cond{in + " AND " + like.sql, append(args, like.args...)}
}

// likeContains is the LIKE pattern (with ESCAPE '\') of the texts that
// contain text, its own %, _ and \ escaped. LIKE folds ASCII letters only,
// as lower() does.
func likeContains(text string) string {
	return "%" + strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(text) + "%"
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
