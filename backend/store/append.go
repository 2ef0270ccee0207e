package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"

	"steward/backend/event"
)

// Group-commit lingering: after a group of more than lingerAbove events the
// writer yields up to lingerYields times while the queue is empty.
const (
	lingerAbove  = 16
	lingerYields = 4
)

// appendReq is one submission: one event, or several from one writer that
// commit together and in order.
type appendReq struct {
	evs  []event.Event
	err  error // the first failure among evs
	done chan struct{}
	// importedFrom marks an import: its events commit all or none, the run
	// they create is marked imported from this id, and they open no
	// interactions (a recording's approvals are history, not questions).
	importedFrom string
	// command, when set, is the answer to a control command whose effect
	// evs are: it commits with them, in the same transaction.
	command *CommandRecord
}

// Pending is an append that was submitted and may not have committed yet.
type Pending struct{ req *appendReq }

// Wait blocks until the append committed (or failed) and returns the stored
// event (the last one, for SubmitAll).
func (p *Pending) Wait() (event.Event, error) {
	<-p.req.done
	if len(p.req.evs) == 0 {
		return event.Event{}, p.req.err
	}
	return p.req.evs[len(p.req.evs)-1], p.req.err
}

// Submit queues ev for the next group commit and returns without waiting, so
// a writer that emits several events in a row pays for one commit. Events
// submitted from one goroutine commit in submission order. Wait on the last
// one before acting on the assumption that they are durable.
func (s *Store) Submit(ev event.Event) *Pending { return s.SubmitAll([]event.Event{ev}) }

// SubmitAll queues several events that commit together, in order, in one
// group; it is one hand-off to the writer where Submit would be several. An
// event whose precondition fails is skipped and its error reported by Wait.
func (s *Store) SubmitAll(evs []event.Event) *Pending {
	return s.submit(&appendReq{evs: evs, done: make(chan struct{})})
}

// submit hands req to the writer, or fails it at once when the store is
// closed.
func (s *Store) submit(req *appendReq) *Pending {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		req.err = ErrClosed
		close(req.done)
		return &Pending{req}
	}
	s.appends <- req
	return &Pending{req}
}

// CommandRecord is the answer to a run's control command.
type CommandRecord struct {
	RunID, CommandID, Type string
	Result                 []byte // JSON of the answer, returned again on a repeat
}

// SubmitCommand queues evs, the effect of a command, to commit together with
// the command's answer in one transaction, so that an answer is never saved
// without its effect nor an effect recorded without its answer: after a crash
// a repeated command_id finds the answer exactly when the effect is in the
// log. When the command id was answered before, Wait reports ErrConflict and
// nothing of evs is written.
func (s *Store) SubmitCommand(cmd CommandRecord, evs []event.Event) *Pending {
	return s.submit(&appendReq{evs: evs, done: make(chan struct{}), command: &cmd})
}

// Append adds ev to its run's log, assigning seq (and ts when zero), applies
// it to the projections in the same transaction, and returns the stored
// event once committed. A run.created event creates its run; any other event
// for an unknown run fails with ErrNotFound. An approval.decided event for an
// interaction that is no longer pending fails with ErrConflict and is not
// stored. Once submitted, the append completes even if ctx ends, so that a
// caller never has to guess whether an event was written.
func (s *Store) Append(ctx context.Context, ev event.Event) (event.Event, error) {
	req := &appendReq{evs: []event.Event{ev}, done: make(chan struct{})}
	s.mu.RLock()
	if s.closed {
		s.mu.RUnlock()
		return event.Event{}, ErrClosed
	}
	select {
	case s.appends <- req:
	case <-ctx.Done():
		s.mu.RUnlock()
		return event.Event{}, ctx.Err()
	}
	s.mu.RUnlock()
	<-req.done
	return req.evs[0], req.err
}

func (s *Store) writeLoop() {
	defer close(s.done)
	batch := make([]*appendReq, 0, s.maxBatch)
	last := 0 // size of the previous group
	for {
		select {
		case req := <-s.appends:
			batch = append(batch[:0], req)
			// Group commit: take everything that is queued. When the last
			// group was large, many writers are active, and the ones the last
			// commit released are about to queue again: yield a few times to
			// let them, so one commit serves them all. A lone writer (the
			// engine of a single run) never waits here.
			yields := 0
		drain:
			for len(batch) < s.maxBatch {
				select {
				case r := <-s.appends:
					batch = append(batch, r)
				default:
					if last < lingerAbove || yields >= lingerYields {
						break drain
					}
					yields++
					runtime.Gosched()
				}
			}
			last = len(batch)
			s.commit(batch)
		case <-s.quit:
			// Close holds the lock until no appender can still be sending, so
			// what is buffered now is all there will ever be.
			for {
				select {
				case req := <-s.appends:
					s.commit([]*appendReq{req})
				default:
					return
				}
			}
		}
	}
}

// commit writes one group of appends in one transaction. An item whose
// precondition fails is answered with its error and leaves no trace; any
// other failure fails the whole group.
//
// Each run's last seq is read inside the transaction, which holds the write
// lock, rather than cached across groups: another process (the CLI beside a
// server) may append to the same run between two groups.
func (s *Store) commit(batch []*appendReq) {
	now := s.ms()
	seqs := map[string]int64{}    // last seq per run in this group; -1: no such run
	touched := map[string]int64{} // runs this group appended to
	fail := func(err error) {
		for _, req := range batch {
			if req.err == nil {
				req.err = err
			}
			close(req.done)
		}
	}
	ctx := context.Background()
	sqltx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		fail(fmt.Errorf("append: begin: %w", err))
		return
	}
	tx := &stmtTx{Tx: sqltx, s: s, stmts: map[string]*sql.Stmt{}}
	committed := make([]event.Event, 0, 2*len(batch))
	for _, req := range batch {
		if req.importedFrom != "" {
			evs, err := s.commitImport(ctx, tx, req, seqs, now)
			if err != nil {
				tx.Rollback()
				fail(err)
				return
			}
			for _, ev := range evs {
				touched[ev.RunID] = ev.Seq
			}
			committed = append(committed, evs...)
			continue
		}
		if c := req.command; c != nil {
			res, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO commands(run_id, command_id, type, result, created_at) VALUES (?, ?, ?, ?, ?)`,
				c.RunID, c.CommandID, c.Type, c.Result, now)
			if err != nil {
				tx.Rollback()
				fail(fmt.Errorf("append: save command: %w", err))
				return
			}
			if n, _ := res.RowsAffected(); n == 0 {
				req.err = fmt.Errorf("command %s of run %s was answered before: %w", c.CommandID, c.RunID, ErrConflict)
				continue // its effect is not recorded twice
			}
		}
		for i := range req.evs {
			ev := &req.evs[i]
			fatal, err := s.place(ctx, tx, ev, seqs, now)
			if fatal {
				tx.Rollback()
				fail(err)
				return
			}
			if err != nil {
				if req.err == nil {
					req.err = err // nothing was written for this event
				}
				continue
			}
			touched[ev.RunID] = ev.Seq
			committed = append(committed, *ev)
		}
	}
	if err := insertEvents(ctx, tx, committed); err != nil {
		tx.Rollback()
		fail(fmt.Errorf("append: %w", err))
		return
	}
	for run, seq := range touched {
		if _, err := tx.ExecContext(ctx, qLastSeq, seq, now, run); err != nil {
			tx.Rollback()
			fail(fmt.Errorf("append: %w", err))
			return
		}
	}
	if err := tx.Commit(); err != nil {
		fail(fmt.Errorf("append: commit: %w", err))
		return
	}
	if s.pub != nil && len(committed) > 0 {
		s.pub.Publish(committed)
	}
	for _, req := range batch {
		close(req.done)
	}
}

// place gives ev its seq and time and applies it to the projections. A
// failed precondition is an error with fatal false: nothing was written for
// ev. Any other error is fatal to the group.
func (s *Store) place(ctx context.Context, tx *stmtTx, ev *event.Event, seqs map[string]int64, now int64) (fatal bool, err error) {
	last, known := seqs[ev.RunID]
	if !known {
		err := tx.QueryRowContext(ctx, `SELECT last_seq FROM runs WHERE id = ?`, ev.RunID).Scan(&last)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			last = -1 // no such run yet
		case err != nil:
			return true, fmt.Errorf("append: %w", err)
		}
		seqs[ev.RunID] = last
	}
	switch {
	case ev.Type == event.RunCreated && last != -1:
		return false, fmt.Errorf("append run.created: run %s exists: %w", ev.RunID, ErrConflict)
	case ev.Type != event.RunCreated && last == -1:
		return false, fmt.Errorf("append %s: run %s: %w", ev.Type, ev.RunID, ErrNotFound)
	}
	ev.Seq = max(last, 0) + 1
	if ev.TS == 0 {
		ev.TS = now
	}
	if err := project(ctx, tx, *ev); err != nil {
		if errors.Is(err, ErrConflict) || errors.Is(err, ErrNotFound) || errors.Is(err, errBadPayload) {
			return false, err
		}
		return true, fmt.Errorf("append %s: %w", ev.Type, err)
	}
	seqs[ev.RunID] = ev.Seq
	return false, nil
}

// stmtTx runs the statements of one group commit through statements the
// writer prepared once: preparing costs more than executing an insert.
type stmtTx struct {
	*sql.Tx
	s     *Store
	stmts map[string]*sql.Stmt
}

// ExecContext executes query through the writer's prepared statement when
// there is one (all queries of the projection are prepared at Open), else
// directly.
func (t *stmtTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	st, ok := t.stmts[query]
	if !ok {
		prepared, found := t.s.stmts[query]
		if !found {
			return t.Tx.ExecContext(ctx, query, args...)
		}
		st = t.Tx.StmtContext(ctx, prepared)
		t.stmts[query] = st
	}
	return st.ExecContext(ctx, args...)
}

// prepareWriter prepares the statements of the append path once. It must run
// before the writer starts: the writer's one connection is busy inside each
// group commit, so preparing there would wait for itself.
func (s *Store) prepareWriter(ctx context.Context) error {
	for _, q := range writerQueries {
		st, err := s.w.PrepareContext(ctx, q)
		if err != nil {
			return fmt.Errorf("prepare %q: %w", q, err)
		}
		s.stmts[q] = st
	}
	return nil
}

// insertEvents writes a group's events with one statement: the rows travel as
// one JSON array that SQLite unpacks itself. Binding six values per row
// through cgo cost more than the inserts; one bound value per group makes the
// log several times faster.
func insertEvents(ctx context.Context, tx *stmtTx, evs []event.Event) error {
	if len(evs) == 0 {
		return nil
	}
	buf := make([]byte, 0, 128*len(evs))
	buf = append(buf, '[')
	for i, ev := range evs {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, '[')
		buf = appendJSONString(buf, ev.RunID)
		buf = append(buf, ',')
		buf = strconv.AppendInt(buf, ev.Seq, 10)
		buf = append(buf, ',')
		buf = strconv.AppendInt(buf, ev.TS, 10)
		buf = append(buf, ',')
		buf = appendJSONString(buf, string(ev.Type))
		buf = append(buf, ',')
		buf = appendJSONString(buf, ev.NodeID)
		buf = append(buf, ',')
		buf = append(buf, ev.Data...)
		buf = append(buf, ']')
	}
	buf = append(buf, ']')
	_, err := tx.ExecContext(ctx, qInsertEvents, string(buf))
	return err
}

// appendJSONString appends s as a JSON string. Ids and type names are plain
// ASCII and take the fast path.
func appendJSONString(buf []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			b, _ := json.Marshal(s) // a string always marshals
			return append(buf, b...)
		}
	}
	buf = append(buf, '"')
	buf = append(buf, s...)
	return append(buf, '"')
}

// ImportRun appends the whole log of a run recorded elsewhere, as a new run
// marked imported from importedFrom: every event commits or none does (the
// first failure is returned and nothing is written), and the approvals in it
// open no interactions. The events must be one run's, run.created first;
// their seqs are given anew from 1 and their times kept.
func (s *Store) ImportRun(ctx context.Context, evs []event.Event, importedFrom string) ([]event.Event, error) {
	if len(evs) == 0 || evs[0].Type != event.RunCreated {
		return nil, fmt.Errorf("import: the log must start with run.created: %w", ErrConflict)
	}
	if importedFrom == "" {
		return nil, errors.New("import: the id the run was recorded as is required")
	}
	for _, ev := range evs {
		if ev.RunID != evs[0].RunID {
			return nil, fmt.Errorf("import: events of two runs (%s, %s): %w", evs[0].RunID, ev.RunID, ErrConflict)
		}
	}
	req := &appendReq{evs: slices.Clone(evs), done: make(chan struct{}), importedFrom: importedFrom}
	s.mu.RLock()
	if s.closed {
		s.mu.RUnlock()
		return nil, ErrClosed
	}
	select {
	case s.appends <- req:
	case <-ctx.Done():
		s.mu.RUnlock()
		return nil, ctx.Err()
	}
	s.mu.RUnlock()
	<-req.done
	if req.err != nil {
		return nil, req.err
	}
	return req.evs, nil
}

// commitImport places an import's events inside a savepoint of the group's
// transaction: a failed precondition rolls back the import alone and is its
// answer; other appends of the group go on.
func (s *Store) commitImport(ctx context.Context, tx *stmtTx, req *appendReq, seqs map[string]int64, now int64) ([]event.Event, error) {
	if _, err := tx.Tx.ExecContext(ctx, "SAVEPOINT import"); err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	ictx := context.WithValue(ctx, importingKey{}, true)
	undo := func(err error) ([]event.Event, error) {
		delete(seqs, req.evs[0].RunID)
		if _, rerr := tx.Tx.ExecContext(ctx, "ROLLBACK TO import"); rerr != nil {
			return nil, fmt.Errorf("import: %w", rerr)
		}
		if _, rerr := tx.Tx.ExecContext(ctx, "RELEASE import"); rerr != nil {
			return nil, fmt.Errorf("import: %w", rerr)
		}
		req.err = err
		return nil, nil
	}
	for i := range req.evs {
		ev := &req.evs[i]
		fatal, err := s.place(ictx, tx, ev, seqs, now)
		if fatal {
			return nil, err
		}
		if err != nil {
			return undo(fmt.Errorf("import: event %d (%s): %w", i+1, ev.Type, err))
		}
	}
	if _, err := tx.Tx.ExecContext(ctx, `UPDATE runs SET imported_from = ? WHERE id = ?`, req.importedFrom, req.evs[0].RunID); err != nil {
		return undo(fmt.Errorf("import: %w", err))
	}
	if _, err := tx.Tx.ExecContext(ctx, "RELEASE import"); err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	return req.evs, nil
}

// importingKey marks the context of an import's projection.
type importingKey struct{}

func importing(ctx context.Context) bool { v, _ := ctx.Value(importingKey{}).(bool); return v }
