package store

import (
	"context"
	"fmt"

	"steward/backend/event"
	"steward/backend/policy"
)

// Grant scopes.
const (
	ScopeRun        = event.ScopeRun
	ScopeAgent      = event.ScopeAgent
	ScopeEverywhere = event.ScopeEverywhere
)

// Grant is a saved "approve always" (effect allow) or "deny always" (effect
// deny) answer: a rule on Tool and Match (a glob on the key argument, ""
// for any call of the tool) that holds in one run (RunID), for one agent
// (AgentID) or everywhere.
type Grant struct {
	ID        string
	Effect    string
	Tool      string
	Match     string
	Scope     string
	RunID     string
	AgentID   string
	CreatedAt int64
}

// Rule is the grant as a policy rule; its source names the grant, for the
// reason of a decision: "grant run gr_ia_1".
func (g Grant) Rule() policy.Rule {
	return policy.Rule{Effect: policy.Effect(g.Effect), Tool: g.Tool, Match: g.Match, Source: "grant " + g.Scope + " " + g.ID}
}

const grantCols = `id, effect, tool, match, scope, run_id, agent_id, created_at`

// CreateGrant inserts g; CreatedAt is set when zero. An id already taken is
// ErrConflict.
func (s *Store) CreateGrant(ctx context.Context, g Grant) (Grant, error) {
	if g.CreatedAt == 0 {
		g.CreatedAt = s.ms()
	}
	_, err := s.w.ExecContext(ctx, `INSERT INTO grants(`+grantCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		g.ID, g.Effect, g.Tool, g.Match, g.Scope, g.RunID, g.AgentID, g.CreatedAt)
	if isUnique(err) {
		return Grant{}, fmt.Errorf("grant %s exists: %w", g.ID, ErrConflict)
	}
	if err != nil {
		return Grant{}, fmt.Errorf("create grant: %w", err)
	}
	return g, nil
}

// DeleteGrant revokes the grant with id, or returns ErrNotFound.
func (s *Store) DeleteGrant(ctx context.Context, id string) error {
	res, err := s.w.ExecContext(ctx, `DELETE FROM grants WHERE id = ?`, id)
	if err != nil {
		return fmt.Errorf("delete grant: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("grant %s: %w", id, ErrNotFound)
	}
	return nil
}

// ListGrants returns every grant, newest first.
func (s *Store) ListGrants(ctx context.Context) ([]Grant, error) {
	return s.queryGrants(ctx, `SELECT `+grantCols+` FROM grants ORDER BY created_at DESC, rowid DESC`)
}

// Grants returns, as policy rules, the grants that hold in run runID of
// agent agentID: those of the run, of the agent and everywhere.
func (s *Store) Grants(ctx context.Context, runID, agentID string) ([]policy.Rule, error) {
	gs, err := s.queryGrants(ctx, `SELECT `+grantCols+` FROM grants
		WHERE scope = 'everywhere' OR (scope = 'run' AND run_id = ? AND run_id != '') OR (scope = 'agent' AND agent_id = ? AND agent_id != '')
		ORDER BY created_at, rowid`, runID, agentID)
	if err != nil {
		return nil, err
	}
	out := make([]policy.Rule, len(gs))
	for i, g := range gs {
		out[i] = g.Rule()
	}
	return out, nil
}

func (s *Store) queryGrants(ctx context.Context, q string, args ...any) ([]Grant, error) {
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list grants: %w", err)
	}
	defer rows.Close()
	var out []Grant
	for rows.Next() {
		var g Grant
		if err := rows.Scan(&g.ID, &g.Effect, &g.Tool, &g.Match, &g.Scope, &g.RunID, &g.AgentID, &g.CreatedAt); err != nil {
			return nil, fmt.Errorf("list grants: %w", err)
		}
		out = append(out, g)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list grants: %w", err)
	}
	return out, nil
}
