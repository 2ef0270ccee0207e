package store

import (
	"encoding/json"
	"errors"
	"fmt"

	"steward/backend/event"
)

// errBadPayload marks an event whose data does not decode; it is refused
// before anything is written.
var errBadPayload = errors.New("bad event payload")

// The statements of the append path, prepared once per connection.
const (
	qRunLastSeq = `SELECT last_seq FROM runs WHERE id = ?`
	// qRunRow and qRunRowUsage write a group's changes to a runs row (see
	// runDelta).
	qRunRow      = `UPDATE runs SET last_seq = ?, updated_at = ?, steps = steps + ? WHERE id = ?`
	qRunRowUsage = `UPDATE runs SET last_seq = ?, updated_at = ?, steps = steps + ?, cost_usd = cost_usd + ?,
				input_tokens = input_tokens + ?, output_tokens = output_tokens + ?, cached_tokens = cached_tokens + ? WHERE id = ?`
	qInsertCommand = `INSERT OR IGNORE INTO commands(run_id, command_id, type, result, created_at) VALUES (?, ?, ?, ?, ?)`
	qImported      = `UPDATE runs SET imported_from = ? WHERE id = ?`
	qInsertRun     = `INSERT INTO runs(id, agent_id, agent_name, status, instructions, workspace, mode,
			provider, model, demo, unattended, max_steps, created_at, updated_at, forked_from, replay_of)
			VALUES (?, ?, ?, 'queued', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	qRunStatus  = `UPDATE runs SET status = ?, reason = ?, error = ?, next = ? WHERE id = ?`
	qCancelOpen = `UPDATE interactions SET status = 'cancelled', answered_at = ?
				WHERE run_id = ? AND status = 'pending'`
	// A node's parent edge is not stored: it is the node's parent column,
	// which Graph reads as an edge.
	qInsertNode = `INSERT INTO nodes(run_id, id, seq, kind, status, label, parent, tool, started_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`
	qAfterEdge  = `INSERT OR IGNORE INTO edges(run_id, src, dst, kind) VALUES (?, ?, ?, 'after')`
	qForkEdge   = `INSERT OR IGNORE INTO edges(run_id, src, dst, kind) VALUES (?, ?, ?, 'fork')`
	qFinishNode = `UPDATE nodes SET status = ?, finished_at = ?, duration_ms = ?, error = ?,
			input_tokens = ?, output_tokens = ?, cached_tokens = ?, cost_usd = ? WHERE run_id = ? AND id = ?`
	qAttempt           = `UPDATE nodes SET attempts = attempts + 1 WHERE run_id = ? AND id = ?`
	qInsertInteraction = `INSERT INTO interactions(id, run_id, node_id, kind, status, tool, arguments, risk, reason, created_at,
			group_id, group_size, expires_at, default_decision, question, key, preview, schema)
			VALUES (?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	qNodeWaiting = `UPDATE nodes SET status = 'waiting' WHERE run_id = ? AND id = ?`
	qAnswer      = `UPDATE interactions SET status = 'answered', decision = ?, feedback = ?, source = ?, answered_at = ?, answer = ?
			WHERE id = ? AND run_id = ? AND status = 'pending'`
	qInteractionStatus = `SELECT status FROM interactions WHERE id = ? AND run_id = ?`
	qNodeStatus        = `UPDATE nodes SET status = ? WHERE run_id = ? AND id = ?`
	qNodeResumed       = `UPDATE nodes SET status = 'running' WHERE run_id = ? AND id = ? AND status = 'waiting'`
	qFileChange        = `INSERT INTO file_changes(run_id, seq, node_id, op, path, before, after, before_unknown, size, source, undoes, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
)

func forkedFrom(r *event.NodeRef) string {
	if r == nil {
		return ""
	}
	return r.RunID
}

// terminal run statuses close every open interaction of the run.
var terminal = map[string]bool{"completed": true, "failed": true, "cancelled": true}

// project applies ev to the projection tables inside g's transaction.
// Preconditions are checked before the first write, so an ErrConflict or
// ErrNotFound leaves no trace.
func project(g *group, ev event.Event) error {
	tx, ctx := g.tx, g.tx.ctx
	decode := func(v any) error {
		if err := ev.Decode(v); err != nil {
			return fmt.Errorf("%w: %s: %v", errBadPayload, ev.Type, err)
		}
		return nil
	}
	switch ev.Type {
	case event.RunCreated:
		var d event.RunCreatedData
		if err := decode(&d); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, qInsertRun,
			ev.RunID, d.Agent.ID, d.Agent.Name, d.Instructions, d.Workspace, d.Mode,
			d.Agent.Provider, d.Agent.Model, d.Agent.Demo, d.Unattended, d.MaxSteps, ev.TS, ev.TS, forkedFrom(d.ForkedFrom), d.ReplayOf)
		return err

	case event.RunStatus:
		var d event.RunStatusData
		if err := decode(&d); err != nil {
			return err
		}
		next := ""
		if d.Next != nil {
			b, _ := json.Marshal(d.Next) // a decoded Next always marshals
			next = string(b)
		}
		if _, err := tx.ExecContext(ctx, qRunStatus,
			d.Status, d.Reason, d.Error, next, ev.RunID); err != nil {
			return err
		}
		if terminal[d.Status] {
			_, err := tx.ExecContext(ctx, qCancelOpen, ev.TS, ev.RunID)
			return err
		}
		return nil

	case event.NodeStarted:
		var d event.NodeStartedData
		if err := decode(&d); err != nil {
			return err
		}
		status := event.NodeRunning
		if d.Kind == event.KindUser {
			status = event.NodeSucceeded
		}
		if _, err := tx.ExecContext(ctx, qInsertNode, ev.RunID, ev.NodeID, ev.Seq, d.Kind, status, d.Label, d.Parent, d.Tool, ev.TS); err != nil {
			return err
		}
		for _, a := range d.After {
			if _, err := tx.ExecContext(ctx, qAfterEdge,
				ev.RunID, a, ev.NodeID); err != nil {
				return err
			}
		}
		if d.Kind == event.KindLLM {
			g.run(ev.RunID).steps++
		}
		return nil

	case event.NodeFinished:
		var d event.NodeFinishedData
		if err := decode(&d); err != nil {
			return err
		}
		var u event.Usage
		if d.Usage != nil {
			u = *d.Usage
		}
		if _, err := tx.ExecContext(ctx, qFinishNode, d.Status, ev.TS, d.DurationMS, d.Error,
			u.InputTokens, u.OutputTokens, u.CachedTokens, d.CostUSD, ev.RunID, ev.NodeID); err != nil {
			return err
		}
		if u := d.Usage; u != nil {
			return g.addUsage(ev.RunID, usageDelta{cost: d.CostUSD, input: u.InputTokens, output: u.OutputTokens, cache: u.CachedTokens})
		}
		return nil

	case event.ApprovalRequested:
		var d event.ApprovalRequestedData
		if err := decode(&d); err != nil {
			return err
		}
		args := string(d.Arguments)
		if args == "" {
			args = "{}"
		}
		kind := d.Kind
		if kind == "" {
			kind = event.InteractionApproval
		}
		question := ""
		if d.Question != nil {
			b, err := json.Marshal(d.Question)
			if err != nil {
				return err
			}
			question = string(b)
		}
		preview := ""
		if d.Preview != nil {
			b, err := json.Marshal(d.Preview)
			if err != nil {
				return err
			}
			preview = string(b)
		}
		if g.importing {
			// A recording's approvals are history: the node shows that it
			// waited, and no interaction opens in the inbox.
			_, err := tx.ExecContext(ctx, qNodeWaiting, ev.RunID, ev.NodeID)
			return err
		}
		if _, err := tx.ExecContext(ctx, qInsertInteraction,
			d.InteractionID, ev.RunID, ev.NodeID, kind, d.Tool, args, d.Risk, d.Reason, ev.TS,
			d.Group, d.GroupSize, d.ExpiresAt, d.DefaultDecision, question, d.Key, preview, string(d.Schema)); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, qNodeWaiting, ev.RunID, ev.NodeID)
		return err

	case event.FileChanged:
		var d event.FileChangedData
		if err := decode(&d); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, qFileChange, ev.RunID, ev.Seq, ev.NodeID, d.Op, d.Path, d.Before, d.After,
			d.BeforeUnknown, d.Size, d.Source, d.Undoes, ev.TS)
		return err

	case event.LLMAttempt:
		_, err := tx.ExecContext(ctx, qAttempt, ev.RunID, ev.NodeID)
		return err

	case event.RunForked:
		var d event.RunForkedData
		if err := decode(&d); err != nil {
			return err
		}
		// A fork edge leads from the node to the new run ("run:<id>").
		_, err := tx.ExecContext(ctx, qForkEdge, ev.RunID, d.NodeID, "run:"+d.Fork)
		return err

	case event.ApprovalDecided:
		var d event.ApprovalDecidedData
		if err := decode(&d); err != nil {
			return err
		}
		if g.importing {
			return nil // no interaction was opened (see ApprovalRequested)
		}
		// First answer wins: the update only matches a pending interaction.
		answer := ""
		if len(d.Arguments) > 0 || d.Text != "" || len(d.Choices) > 0 || len(d.Content) > 0 {
			b, err := json.Marshal(AnswerDetail{Arguments: d.Arguments, Text: d.Text, Choices: d.Choices, Content: d.Content})
			if err != nil {
				return err
			}
			answer = string(b)
		}
		res, err := tx.ExecContext(ctx, qAnswer, d.Decision, d.Feedback, d.Source, ev.TS, answer, d.InteractionID, ev.RunID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			var status string
			found, err := tx.queryRow(qInteractionStatus, []any{d.InteractionID, ev.RunID}, &status)
			if err != nil {
				return err
			}
			if !found {
				return fmt.Errorf("interaction %s: %w", d.InteractionID, ErrNotFound)
			}
			return fmt.Errorf("interaction %s is already %s: %w", d.InteractionID, status, ErrConflict)
		}
		if d.Kind == event.InteractionElicitation {
			// The call goes on, answered or declined; one that ended
			// meanwhile (interrupted at a restart) keeps its end.
			_, err = tx.ExecContext(ctx, qNodeResumed, ev.RunID, ev.NodeID)
			return err
		}
		status := event.NodeRunning
		if d.Decision == event.DecisionDeny {
			status = event.NodeDenied
		}
		_, err = tx.ExecContext(ctx, qNodeStatus, status, ev.RunID, ev.NodeID)
		return err
	}
	return nil
}
