package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Interaction is the projection row of an approval request (later also a
// question).
type Interaction struct {
	ID         string
	RunID      string
	NodeID     string
	Kind       string
	Status     string
	Tool       string
	Arguments  string // JSON
	Risk       string
	Reason     string
	CreatedAt  int64
	AnsweredAt *int64
	Decision   string
	Feedback   string
	Source     string
	// Group and GroupSize tie together the approvals of one model turn.
	Group     string
	GroupSize int
	// ExpiresAt (unix ms, 0 for never) is when DefaultDecision is taken.
	ExpiresAt       int64
	DefaultDecision string
	// Question is the JSON of an ask_user question (event.Question), and
	// Answer the JSON of an AnswerDetail; both empty when not set.
	Question string
	Answer   string
	// Key is the key the tool gave the call when it was asked about, nil
	// for a tool that gives none.
	Key *string
	// Preview is the JSON of what the call would change (event.Preview),
	// empty when its tool could not tell.
	Preview string
	// Schema is the JSON schema of the tool's arguments when the call was
	// asked about, empty when unknown.
	Schema string
}

// AnswerDetail is what an answer holds beyond its decision.
type AnswerDetail struct {
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Text      string          `json:"text,omitempty"`
	Choices   []string        `json:"choices,omitempty"`
	Content   json.RawMessage `json:"content,omitempty"`
}

const interactionCols = `id, run_id, node_id, kind, status, tool, arguments, risk, reason, created_at, answered_at, decision, feedback, source,
	group_id, group_size, expires_at, default_decision, question, answer, key, preview, schema`

func scanInteraction(row interface{ Scan(...any) error }) (Interaction, error) {
	var i Interaction
	var at sql.NullInt64
	var key sql.NullString
	err := row.Scan(&i.ID, &i.RunID, &i.NodeID, &i.Kind, &i.Status, &i.Tool, &i.Arguments, &i.Risk, &i.Reason,
		&i.CreatedAt, &at, &i.Decision, &i.Feedback, &i.Source,
		&i.Group, &i.GroupSize, &i.ExpiresAt, &i.DefaultDecision, &i.Question, &i.Answer, &key, &i.Preview, &i.Schema)
	if at.Valid {
		i.AnsweredAt = &at.Int64
	}
	if key.Valid {
		i.Key = &key.String
	}
	return i, err
}

// GetInteraction returns the interaction with id, or ErrNotFound.
func (s *Store) GetInteraction(ctx context.Context, id string) (Interaction, error) {
	i, err := scanInteraction(s.r.QueryRowContext(ctx, `SELECT `+interactionCols+` FROM interactions WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Interaction{}, fmt.Errorf("interaction %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return Interaction{}, fmt.Errorf("get interaction %s: %w", id, err)
	}
	return i, nil
}

// InteractionFilter selects interactions; empty fields match everything.
type InteractionFilter struct {
	Status string
	RunID  string
	Limit  int // 200 when zero
}

// ListInteractions returns interactions newest first.
func (s *Store) ListInteractions(ctx context.Context, f InteractionFilter) ([]Interaction, error) {
	var where []string
	var args []any
	if f.Status != "" {
		where = append(where, "status = ?")
		args = append(args, f.Status)
	}
	if f.RunID != "" {
		where = append(where, "run_id = ?")
		args = append(args, f.RunID)
	}
	q := `SELECT ` + interactionCols + ` FROM interactions`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	limit := f.Limit
	if limit <= 0 {
		limit = 200
	}
	q += " ORDER BY created_at DESC, id DESC LIMIT ?"
	args = append(args, limit)
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list interactions: %w", err)
	}
	defer rows.Close()
	out := []Interaction{}
	for rows.Next() {
		i, err := scanInteraction(rows)
		if err != nil {
			return nil, fmt.Errorf("list interactions: %w", err)
		}
		out = append(out, i)
	}
	return out, rows.Err()
}
