package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"steward/backend/agent"
)

// CreateAgent inserts a; its name must be unique (ErrConflict otherwise).
func (s *Store) CreateAgent(ctx context.Context, a agent.Agent) error {
	spec, err := json.Marshal(a)
	if err != nil {
		return fmt.Errorf("create agent: %w", err)
	}
	_, err = s.w.ExecContext(ctx, `INSERT INTO agents(id, name, spec, created_at, updated_at) VALUES (?, ?, ?, ?, ?)`,
		a.ID, a.Name, spec, a.CreatedAt, a.UpdatedAt)
	if isUnique(err) {
		return fmt.Errorf("agent name %q is taken: %w", a.Name, ErrConflict)
	}
	if err != nil {
		return fmt.Errorf("create agent: %w", err)
	}
	return nil
}

// UpdateAgent replaces the agent with a.ID.
func (s *Store) UpdateAgent(ctx context.Context, a agent.Agent) error {
	spec, err := json.Marshal(a)
	if err != nil {
		return fmt.Errorf("update agent: %w", err)
	}
	res, err := s.w.ExecContext(ctx, `UPDATE agents SET name = ?, spec = ?, updated_at = ? WHERE id = ?`, a.Name, spec, a.UpdatedAt, a.ID)
	if isUnique(err) {
		return fmt.Errorf("agent name %q is taken: %w", a.Name, ErrConflict)
	}
	if err != nil {
		return fmt.Errorf("update agent: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("agent %s: %w", a.ID, ErrNotFound)
	}
	return nil
}

// DeleteAgent removes the agent with id. Its runs keep their snapshot.
func (s *Store) DeleteAgent(ctx context.Context, id string) error {
	res, err := s.w.ExecContext(ctx, `DELETE FROM agents WHERE id = ?`, id)
	if err != nil {
		return fmt.Errorf("delete agent: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("agent %s: %w", id, ErrNotFound)
	}
	return nil
}

// GetAgent returns the agent whose id or name is key, or ErrNotFound.
func (s *Store) GetAgent(ctx context.Context, key string) (agent.Agent, error) {
	var spec []byte
	err := s.r.QueryRowContext(ctx, `SELECT spec FROM agents WHERE id = ? OR name = ? ORDER BY id = ? DESC LIMIT 1`, key, key, key).Scan(&spec)
	if errors.Is(err, sql.ErrNoRows) {
		return agent.Agent{}, fmt.Errorf("agent %s: %w", key, ErrNotFound)
	}
	if err != nil {
		return agent.Agent{}, fmt.Errorf("get agent %s: %w", key, err)
	}
	var a agent.Agent
	if err := json.Unmarshal(spec, &a); err != nil {
		return agent.Agent{}, fmt.Errorf("get agent %s: %w", key, err)
	}
	return a, nil
}

// ListAgents returns all agents by name.
func (s *Store) ListAgents(ctx context.Context) ([]agent.Agent, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT spec FROM agents ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("list agents: %w", err)
	}
	defer rows.Close()
	out := []agent.Agent{}
	for rows.Next() {
		var spec []byte
		if err := rows.Scan(&spec); err != nil {
			return nil, fmt.Errorf("list agents: %w", err)
		}
		var a agent.Agent
		if err := json.Unmarshal(spec, &a); err != nil {
			return nil, fmt.Errorf("list agents: %w", err)
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// SaveCommand records the first answer to a run's command_id. When the id
// was seen before it returns the first answer and true, and saves nothing.
func (s *Store) SaveCommand(ctx context.Context, runID, commandID, typ string, result []byte) ([]byte, bool, error) {
	res, err := s.w.ExecContext(ctx, `INSERT OR IGNORE INTO commands(run_id, command_id, type, result, created_at) VALUES (?, ?, ?, ?, ?)`,
		runID, commandID, typ, result, s.ms())
	if err != nil {
		return nil, false, fmt.Errorf("save command: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 1 {
		return result, false, nil
	}
	var first []byte
	if err := s.w.QueryRowContext(ctx, `SELECT result FROM commands WHERE run_id = ? AND command_id = ?`, runID, commandID).Scan(&first); err != nil {
		return nil, false, fmt.Errorf("save command: %w", err)
	}
	return first, true, nil
}

// LookupCommand returns the saved answer to a command id, if any.
func (s *Store) LookupCommand(ctx context.Context, runID, commandID string) ([]byte, bool, error) {
	var first []byte
	err := s.r.QueryRowContext(ctx, `SELECT result FROM commands WHERE run_id = ? AND command_id = ?`, runID, commandID).Scan(&first)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("lookup command: %w", err)
	}
	return first, true, nil
}

// CommandAccepted reports whether a command of type typ to runID was
// answered accepted.
func (s *Store) CommandAccepted(ctx context.Context, runID, typ string) (bool, error) {
	var n int
	err := s.r.QueryRowContext(ctx, `SELECT COUNT(*) FROM commands WHERE run_id = ? AND type = ? AND json_extract(result, '$.status') = 'accepted'`,
		runID, typ).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("accepted %s commands of %s: %w", typ, runID, err)
	}
	return n > 0, nil
}

func isUnique(err error) bool {
	return err != nil && strings.Contains(err.Error(), "UNIQUE constraint failed")
}
