package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"steward/backend/event"
)

// Run is the projection row of a run.
type Run struct {
	ID               string
	AgentID          string
	AgentName        string
	Status           string
	Reason           string
	Error            string
	Instructions     string
	Workspace        string
	Mode             string
	Provider         string
	Model            string
	Demo             bool
	Unattended       bool
	MaxSteps         int
	CreatedAt        int64
	UpdatedAt        int64
	LastSeq          int64
	Steps            int
	InputTokens      int64
	OutputTokens     int64
	CachedTokens     int64
	CostUSD          float64
	PendingApprovals int
	// Next is the JSON of event.Next while the run is paused, else empty.
	Next       string
	ForkedFrom string
	// ImportedFrom is the id the run had where it was recorded, for a run
	// imported from a recording (read-only); empty for a run of this
	// machine.
	ImportedFrom string
	// ReplayOf is the id of the recorded run this run replays; empty for a
	// run that is not a replay.
	ReplayOf string
}

const runCols = `r.id, r.agent_id, r.agent_name, r.status, r.reason, r.error, r.instructions, r.workspace, r.mode,
	r.provider, r.model, r.demo, r.unattended, r.max_steps, r.created_at, r.updated_at, r.last_seq, r.steps,
	r.input_tokens, r.output_tokens, r.cached_tokens, r.cost_usd,
	CASE WHEN r.imported_from = '' THEN (SELECT COUNT(*) FROM interactions i WHERE i.run_id = r.id AND i.status = 'pending') ELSE 0 END,
	r.next, r.forked_from, r.imported_from, r.replay_of`

func scanRun(row interface{ Scan(...any) error }) (Run, error) {
	var r Run
	err := row.Scan(&r.ID, &r.AgentID, &r.AgentName, &r.Status, &r.Reason, &r.Error, &r.Instructions, &r.Workspace,
		&r.Mode, &r.Provider, &r.Model, &r.Demo, &r.Unattended, &r.MaxSteps, &r.CreatedAt, &r.UpdatedAt, &r.LastSeq,
		&r.Steps, &r.InputTokens, &r.OutputTokens, &r.CachedTokens, &r.CostUSD, &r.PendingApprovals, &r.Next, &r.ForkedFrom, &r.ImportedFrom, &r.ReplayOf)
	return r, err
}

// GetRun returns the run with id, or ErrNotFound.
func (s *Store) GetRun(ctx context.Context, id string) (Run, error) {
	r, err := scanRun(s.r.QueryRowContext(ctx, `SELECT `+runCols+` FROM runs r WHERE r.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Run{}, fmt.Errorf("run %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return Run{}, fmt.Errorf("get run %s: %w", id, err)
	}
	return r, nil
}

// Events returns up to limit events of a run with seq > after, in order.
func (s *Store) Events(ctx context.Context, runID string, after int64, limit int) ([]event.Event, error) {
	if limit <= 0 {
		limit = 1000
	}
	rows, err := s.r.QueryContext(ctx, `SELECT seq, ts, type, node_id, data FROM events
		WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?`, runID, after, limit)
	if err != nil {
		return nil, fmt.Errorf("events of %s: %w", runID, err)
	}
	defer rows.Close()
	out := []event.Event{}
	for rows.Next() {
		ev := event.Event{RunID: runID}
		var typ string
		var data []byte
		if err := rows.Scan(&ev.Seq, &ev.TS, &typ, &ev.NodeID, &data); err != nil {
			return nil, fmt.Errorf("events of %s: %w", runID, err)
		}
		ev.Type = event.Type(typ)
		ev.Data = data
		out = append(out, ev)
	}
	return out, rows.Err()
}

// Node is the projection row of a graph node.
type Node struct {
	ID         string
	Kind       string
	Status     string
	Label      string
	Parent     string
	Tool       string
	StartedAt  int64
	FinishedAt *int64
	DurationMS int64
	Error      string
	Attempts   int // failed attempts that were retried
	// Tokens and cost of a model call.
	InputTokens, OutputTokens, CachedTokens int64
	CostUSD                                 float64
}

// Edge links two nodes; Kind is parent or after.
type Edge struct {
	From, To, Kind string
}

// Graph returns the nodes (in start order) and edges of a run.
func (s *Store) Graph(ctx context.Context, runID string) ([]Node, []Edge, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT id, kind, status, label, parent, tool, started_at, finished_at,
		duration_ms, error, attempts, input_tokens, output_tokens, cached_tokens, cost_usd
		FROM nodes WHERE run_id = ? ORDER BY seq`, runID)
	if err != nil {
		return nil, nil, fmt.Errorf("graph of %s: %w", runID, err)
	}
	defer rows.Close()
	nodes := []Node{}
	for rows.Next() {
		var n Node
		var fin sql.NullInt64
		if err := rows.Scan(&n.ID, &n.Kind, &n.Status, &n.Label, &n.Parent, &n.Tool, &n.StartedAt, &fin,
			&n.DurationMS, &n.Error, &n.Attempts, &n.InputTokens, &n.OutputTokens, &n.CachedTokens, &n.CostUSD); err != nil {
			return nil, nil, fmt.Errorf("graph of %s: %w", runID, err)
		}
		if fin.Valid {
			n.FinishedAt = &fin.Int64
		}
		nodes = append(nodes, n)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("graph of %s: %w", runID, err)
	}
	// A parent edge is the child's parent column (none is stored; see
	// migration 0012): the same edges as a table of them, in the same order.
	erows, err := s.r.QueryContext(ctx, `SELECT src, dst, kind FROM edges WHERE run_id = ?1
		UNION ALL SELECT parent, id, 'parent' FROM nodes WHERE run_id = ?1 AND parent != ''
		ORDER BY 1, 2, 3`, runID)
	if err != nil {
		return nil, nil, fmt.Errorf("graph of %s: %w", runID, err)
	}
	defer erows.Close()
	edges := []Edge{}
	for erows.Next() {
		var e Edge
		if err := erows.Scan(&e.From, &e.To, &e.Kind); err != nil {
			return nil, nil, fmt.Errorf("graph of %s: %w", runID, err)
		}
		edges = append(edges, e)
	}
	return nodes, edges, erows.Err()
}

// NodeEvents returns the events of one node of a run, in order.
func (s *Store) NodeEvents(ctx context.Context, runID, nodeID string) ([]event.Event, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT seq, ts, type, data FROM events
		WHERE run_id = ? AND node_id = ? ORDER BY seq`, runID, nodeID)
	if err != nil {
		return nil, fmt.Errorf("events of node %s: %w", nodeID, err)
	}
	defer rows.Close()
	out := []event.Event{}
	for rows.Next() {
		ev := event.Event{RunID: runID, NodeID: nodeID}
		var typ string
		var data []byte
		if err := rows.Scan(&ev.Seq, &ev.TS, &typ, &data); err != nil {
			return nil, fmt.Errorf("events of node %s: %w", nodeID, err)
		}
		ev.Type, ev.Data = event.Type(typ), data
		out = append(out, ev)
	}
	return out, rows.Err()
}
