package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// FileChange is one row of a run's journal of workspace files (the
// projection of a file.changed event).
type FileChange struct {
	RunID         string
	Seq           int64
	NodeID        string
	Op            string
	Path          string
	Before        string // SHA-256 of the content before; "" = did not exist
	After         string // "" = deleted
	BeforeUnknown bool
	Size          int64
	Source        string
	Undoes        string
	CreatedAt     int64
}

// FileChanges returns the journal of run runID in the order of its log.
func (s *Store) FileChanges(ctx context.Context, runID string) ([]FileChange, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT run_id, seq, node_id, op, path, before, after, before_unknown, size, source, undoes, created_at
		FROM file_changes WHERE run_id = ? ORDER BY seq`, runID)
	if err != nil {
		return nil, fmt.Errorf("file changes of %s: %w", runID, err)
	}
	defer rows.Close()
	out := []FileChange{}
	for rows.Next() {
		var c FileChange
		if err := rows.Scan(&c.RunID, &c.Seq, &c.NodeID, &c.Op, &c.Path, &c.Before, &c.After, &c.BeforeUnknown,
			&c.Size, &c.Source, &c.Undoes, &c.CreatedAt); err != nil {
			return nil, fmt.Errorf("file changes of %s: %w", runID, err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// NodeSeq returns the seq of the event that started node nodeID of run
// runID, or ErrNotFound.
func (s *Store) NodeSeq(ctx context.Context, runID, nodeID string) (int64, error) {
	var seq int64
	err := s.r.QueryRowContext(ctx, `SELECT seq FROM nodes WHERE run_id = ? AND id = ?`, runID, nodeID).Scan(&seq)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("node %s of run %s: %w", nodeID, runID, ErrNotFound)
	}
	if err != nil {
		return 0, fmt.Errorf("node %s of run %s: %w", nodeID, runID, err)
	}
	return seq, nil
}
