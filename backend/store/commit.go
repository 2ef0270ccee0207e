package store

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"slices"
	"strings"

	"steward/backend/event"
)

// group is one group commit in the making: its transaction and what the
// events placed so far changed.
//
// Each run's last seq is read inside the transaction, which holds the write
// lock, rather than cached across groups: another process (the CLI beside a
// server) may append to the same run between two groups.
type group struct {
	tx   *wtx
	now  int64
	seqs map[string]int64 // last seq per run in this group; -1: no such run
	// runs holds what the group changes in each run's row, written once per
	// run before the commit (flushRuns): a step used to update its run's
	// row three times (steps, usage, last_seq).
	runs  map[string]*runDelta
	order []string // the runs of runs, in the order the group first touched them
	// importing is set while an import's events are placed: a recording's
	// approvals are history, not questions.
	importing bool
}

// runDelta is the change a group makes to one runs row: counters added in
// SQL (steps = steps + ?), never read back into Go.
type runDelta struct {
	lastSeq int64
	steps   int64
	// One model call's usage at most: a second one in the same group writes
	// the row first, so that cost_usd is summed in the order of the log, one
	// addition per call, exactly as before.
	usage *usageDelta
}

type usageDelta struct {
	cost                 float64
	input, output, cache int64
}

func (g *group) run(id string) *runDelta {
	d := g.runs[id]
	if d == nil {
		d = &runDelta{}
		g.runs[id] = d
		g.order = append(g.order, id)
	}
	return d
}

// addUsage adds one model call's usage to run id's row.
func (g *group) addUsage(id string, u usageDelta) error {
	d := g.run(id)
	if d.usage != nil {
		if err := g.writeRun(id, d); err != nil {
			return err
		}
	}
	d.usage = &u
	return nil
}

// writeRun writes d into run id's row and clears it.
func (g *group) writeRun(id string, d *runDelta) error {
	var err error
	if u := d.usage; u != nil {
		_, err = g.tx.ExecContext(g.tx.ctx, qRunRowUsage, d.lastSeq, g.now, d.steps, u.cost, u.input, u.output, u.cache, id)
	} else {
		_, err = g.tx.ExecContext(g.tx.ctx, qRunRow, d.lastSeq, g.now, d.steps, id)
	}
	d.steps, d.usage = 0, nil
	return err
}

// flushRuns writes every run's row the group changed.
func (g *group) flushRuns() error {
	for _, id := range g.order {
		if err := g.writeRun(id, g.runs[id]); err != nil {
			return err
		}
	}
	g.runs, g.order = map[string]*runDelta{}, g.order[:0]
	return nil
}

// flushRun writes run id's row now, if the group changed it.
func (g *group) flushRun(id string) error {
	d, ok := g.runs[id]
	if !ok {
		return nil
	}
	g.drop(id)
	return g.writeRun(id, d)
}

// runMark is what a group knew of a run at a savepoint.
type runMark struct {
	seq    int64
	hasSeq bool
	delta  *runDelta // a copy; nil when the group had no change for the row
}

func (g *group) mark(id string) runMark {
	m := runMark{}
	m.seq, m.hasSeq = g.seqs[id]
	if d, ok := g.runs[id]; ok {
		c := *d
		if d.usage != nil {
			u := *d.usage
			c.usage = &u
		}
		m.delta = &c
	}
	return m
}

// restore takes the group back to m for run id: the transaction went back
// to the savepoint m was taken at.
func (g *group) restore(id string, m runMark) {
	if m.hasSeq {
		g.seqs[id] = m.seq
	} else {
		delete(g.seqs, id)
	}
	if m.delta == nil {
		g.drop(id)
		return
	}
	if _, ok := g.runs[id]; !ok {
		g.order = append(g.order, id)
	}
	g.runs[id] = m.delta
}

// drop forgets what the group would write into run id's row.
func (g *group) drop(id string) {
	if _, ok := g.runs[id]; !ok {
		return
	}
	delete(g.runs, id)
	for i, r := range g.order {
		if r == id {
			g.order = append(g.order[:i], g.order[i+1:]...)
			break
		}
	}
}

// commit writes one group of appends in one transaction. An item whose
// precondition fails is answered with its error and leaves no trace; any
// other failure fails the whole group.
func (s *Store) commit(batch []*appendReq) {
	committed := make([]event.Event, 0, 2*len(batch))
	texts := make([]string, 0, 2*len(batch)) // the data of committed, as stored
	err := s.inWriter(context.Background(), func(tx *wtx) error {
		g := &group{tx: tx, now: s.ms(), seqs: map[string]int64{}, runs: map[string]*runDelta{}}
		for _, req := range batch {
			if req.importedFrom != "" {
				evs, err := s.commitImport(g, req)
				if err != nil {
					return err
				}
				switch {
				case evs == nil:
				case len(committed) == 0:
					// An import is usually alone in its group: its events
					// are published as they are, not copied (Clip: an
					// append after them copies, never writes into them).
					committed, texts = slices.Clip(evs), slices.Clip(req.data)
				default:
					committed = append(committed, evs...)
					texts = append(texts, req.data...)
				}
				continue
			}
			if c := req.command; c != nil {
				res, err := tx.ExecContext(tx.ctx, qInsertCommand, c.RunID, c.CommandID, c.Type, c.Result, g.now)
				if err != nil {
					return fmt.Errorf("append: save command: %w", err)
				}
				if n, _ := res.RowsAffected(); n == 0 {
					req.err = fmt.Errorf("command %s of run %s was answered before: %w", c.CommandID, c.RunID, ErrConflict)
					continue // its effect is not recorded twice
				}
			}
			for i := range req.evs {
				ev := &req.evs[i]
				fatal, err := s.place(g, ev, req.refused(i))
				if fatal {
					return err
				}
				if err != nil {
					if req.err == nil {
						req.err = err // nothing was written for this event
					}
					continue
				}
				committed = append(committed, *ev)
				texts = append(texts, req.data[i])
			}
		}
		if err := insertEvents(tx, committed, texts); err != nil {
			return fmt.Errorf("append: %w", err)
		}
		if err := g.flushRuns(); err != nil {
			return fmt.Errorf("append: %w", err)
		}
		return nil
	})
	if err != nil {
		for _, req := range batch {
			if req.err == nil {
				req.err = err
			}
			close(req.done)
		}
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
// ev; refused, when not nil, is one (see appendReq.check). Any other error is
// fatal to the group.
func (s *Store) place(g *group, ev *event.Event, refused error) (fatal bool, err error) {
	last, known := g.seqs[ev.RunID]
	if !known {
		found, err := g.tx.queryRow(qRunLastSeq, []any{ev.RunID}, &last)
		switch {
		case err != nil:
			return true, fmt.Errorf("append: %w", err)
		case !found:
			last = -1 // no such run yet
		}
		g.seqs[ev.RunID] = last
	}
	switch {
	case ev.Type == event.RunCreated && last != -1:
		return false, fmt.Errorf("append run.created: run %s exists: %w", ev.RunID, ErrConflict)
	case ev.Type != event.RunCreated && last == -1:
		return false, fmt.Errorf("append %s: run %s: %w", ev.Type, ev.RunID, ErrNotFound)
	}
	if refused != nil {
		return false, refused
	}
	ev.Seq = max(last, 0) + 1
	if ev.TS == 0 {
		ev.TS = g.now
	}
	if err := project(g, *ev); err != nil {
		if errors.Is(err, ErrConflict) || errors.Is(err, ErrNotFound) || errors.Is(err, errBadPayload) {
			return false, err
		}
		return true, fmt.Errorf("append %s: %w", ev.Type, err)
	}
	g.seqs[ev.RunID] = ev.Seq
	g.run(ev.RunID).lastSeq = ev.Seq
	return false, nil
}

// insertChunks are the row counts of the prepared multi-row inserts: a group
// of n events takes a few statements, one per chunk, largest first. One
// statement of many rows costs SQLite far less than as many single-row ones
// (and than unpacking a JSON array, which cost more than the inserts).
var insertChunks = []int{64, 16, 4, 1}

// qInsertEvents holds the insert of n rows for each chunk size.
var qInsertEvents = func() map[int]string {
	m := map[int]string{}
	for _, n := range insertChunks {
		m[n] = `INSERT INTO events(run_id, seq, ts, type, node_id, data) VALUES ` +
			strings.TrimSuffix(strings.Repeat(`(?, ?, ?, ?, ?, ?), `, n), ", ")
	}
	return m
}()

// insertEvents writes a group's events, in order; texts holds the data of
// each, bound as text as it always was stored (a blob would read back the
// same in Go but not in SQLite's JSON functions).
func insertEvents(tx *wtx, evs []event.Event, texts []string) error {
	for _, n := range insertChunks {
		for len(evs) >= n {
			nv := tx.nv[:0]
			for i, ev := range evs[:n] {
				o := len(nv)
				nv = append(nv,
					namedValue(o+1, ev.RunID), namedValue(o+2, ev.Seq), namedValue(o+3, ev.TS),
					namedValue(o+4, string(ev.Type)), namedValue(o+5, ev.NodeID), namedValue(o+6, texts[i]))
			}
			tx.nv = nv
			if _, err := tx.execNamed(qInsertEvents[n], nv); err != nil {
				return err
			}
			evs, texts = evs[n:], texts[n:]
		}
	}
	return nil
}

func namedValue[T string | int64](ordinal int, v T) driver.NamedValue {
	return driver.NamedValue{Ordinal: ordinal, Value: v}
}

// commitImport places an import's events inside a savepoint of the group's
// transaction: a failed precondition rolls back the import alone and is its
// answer; other appends of the group go on.
func (s *Store) commitImport(g *group, req *appendReq) ([]event.Event, error) {
	if err := g.tx.raw("SAVEPOINT import"); err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	run := req.evs[0].RunID
	before := g.mark(run)
	undo := func(err error) ([]event.Event, error) {
		g.restore(run, before)
		if rerr := g.tx.raw("ROLLBACK TO import"); rerr != nil {
			return nil, fmt.Errorf("import: %w", rerr)
		}
		if rerr := g.tx.raw("RELEASE import"); rerr != nil {
			return nil, fmt.Errorf("import: %w", rerr)
		}
		req.err = err
		return nil, nil
	}
	g.importing = true
	defer func() { g.importing = false }()
	for i := range req.evs {
		ev := &req.evs[i]
		fatal, err := s.place(g, ev, req.refused(i))
		if fatal {
			return nil, err
		}
		if err != nil {
			return undo(fmt.Errorf("import: event %d (%s): %w", i+1, ev.Type, err))
		}
	}
	if _, err := g.tx.ExecContext(g.tx.ctx, qImported, req.importedFrom, run); err != nil {
		return undo(fmt.Errorf("import: %w", err))
	}
	// The run's row is written inside the savepoint: what the import
	// changed goes, or stays, as one.
	if err := g.flushRun(run); err != nil {
		return undo(fmt.Errorf("import: %w", err))
	}
	if err := g.tx.raw("RELEASE import"); err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	return req.evs, nil
}
