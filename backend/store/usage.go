package store

import (
	"context"
	"fmt"
)

// UsageGroup is what a usage report adds up by.
type UsageGroup string

// The groupings of a usage report.
const (
	UsageByRun   UsageGroup = "run"
	UsageByAgent UsageGroup = "agent"
	UsageByModel UsageGroup = "model"
	UsageByDay   UsageGroup = "day"
)

// UsageGroups lists the groupings, in the order a person is offered them.
var UsageGroups = []UsageGroup{UsageByRun, UsageByAgent, UsageByModel, UsageByDay}

// usageKey is, for each grouping, the SQL of a row's key, of its label, and
// the order of the rows: runs newest first, days in calendar order, agents
// and models most expensive first. Days are UTC days of the run's start.
var usageKey = map[UsageGroup]struct{ key, label, order string }{
	UsageByRun:   {"r.id", "MAX(r.agent_name)", "MAX(r.created_at) DESC, r.id DESC"},
	UsageByAgent: {"r.agent_name", "r.agent_name", "SUM(r.cost_usd) DESC, SUM(r.input_tokens + r.output_tokens) DESC, 1"},
	UsageByModel: {"r.provider || '/' || r.model", "r.provider || '/' || r.model", "SUM(r.cost_usd) DESC, SUM(r.input_tokens + r.output_tokens) DESC, 1"},
	UsageByDay:   {"date(r.created_at / 1000, 'unixepoch')", "date(r.created_at / 1000, 'unixepoch')", "1"},
}

// UsageFilter selects the runs of a usage report: those started in
// [From, To) (unix ms; zero To is no upper bound), added up by Group.
type UsageFilter struct {
	Group    UsageGroup
	From, To int64
	Limit    int // rows; 500 when zero
}

// UsageRow is the usage of one group: a run, an agent, a model or a day.
type UsageRow struct {
	Key   string
	Label string
	Runs  int
	// First is when the group's first run started (unix ms).
	First                                   int64
	Steps                                   int64
	InputTokens, OutputTokens, CachedTokens int64
	CostUSD                                 float64
}

// Usage adds up the tokens and cost of the runs f selects, one row per
// group, in SQL over the runs' projection rows. Imported runs are left out:
// a recording's usage was spent on someone else's account. An unknown
// grouping is ErrInvalid.
func (s *Store) Usage(ctx context.Context, f UsageFilter) ([]UsageRow, error) {
	k, ok := usageKey[f.Group]
	if !ok {
		return nil, fmt.Errorf("usage by %q: %w", f.Group, ErrInvalid)
	}
	to := f.To
	if to <= 0 {
		to = 1<<63 - 1
	}
	limit := f.Limit
	if limit <= 0 {
		limit = 500
	}
	q := `SELECT ` + k.key + `, ` + k.label + `, COUNT(*), MIN(r.created_at), SUM(r.steps),
		SUM(r.input_tokens), SUM(r.output_tokens), SUM(r.cached_tokens), TOTAL(r.cost_usd)
		FROM runs r WHERE r.imported_from = '' AND r.created_at >= ? AND r.created_at < ?
		GROUP BY 1 ORDER BY ` + k.order + ` LIMIT ?`
	rows, err := s.r.QueryContext(ctx, q, f.From, to, limit)
	if err != nil {
		return nil, fmt.Errorf("usage by %s: %w", f.Group, err)
	}
	defer rows.Close()
	out := []UsageRow{}
	for rows.Next() {
		var u UsageRow
		if err := rows.Scan(&u.Key, &u.Label, &u.Runs, &u.First, &u.Steps, &u.InputTokens, &u.OutputTokens,
			&u.CachedTokens, &u.CostUSD); err != nil {
			return nil, fmt.Errorf("usage by %s: %w", f.Group, err)
		}
		out = append(out, u)
	}
	return out, rows.Err()
}
