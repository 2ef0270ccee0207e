package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"

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
	evs []event.Event
	// data holds each event's data as the text the log stores, and bad,
	// when not nil, why an event's data cannot be stored (see check).
	data []string
	bad  []error
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
	return s.submit(newReq(evs))
}

func newReq(evs []event.Event) *appendReq {
	req := &appendReq{evs: evs, done: make(chan struct{})}
	req.check()
	return req
}

// check readies the data of req's events for the log, in the goroutine that
// submits them rather than in the one writer, all of whose time is the
// store's throughput: each event's data is checked to be JSON and made
// compact, as SQLite's JSON functions stored it when the rows went in as one
// JSON array (json.Compact writes the same bytes). Data that is no JSON is
// refused, alone, before anything is written.
func (req *appendReq) check() {
	req.data = make([]string, len(req.evs))
	var buf bytes.Buffer
	for i := range req.evs {
		ev := &req.evs[i]
		buf.Reset()
		if err := json.Compact(&buf, ev.Data); err != nil {
			if req.bad == nil {
				req.bad = make([]error, len(req.evs))
			}
			req.bad[i] = fmt.Errorf("%w: %s: data is not JSON: %v", errBadPayload, ev.Type, err)
			continue
		}
		if buf.Len() != len(ev.Data) {
			ev.Data = bytes.Clone(buf.Bytes())
		}
		req.data[i] = string(ev.Data)
	}
}

// refused is why event i of req cannot be stored, or nil.
func (req *appendReq) refused(i int) error {
	if req.bad == nil {
		return nil
	}
	return req.bad[i]
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
	req := newReq(evs)
	req.command = &cmd
	return s.submit(req)
}

// Append adds ev to its run's log, assigning seq (and ts when zero), applies
// it to the projections in the same transaction, and returns the stored
// event once committed. A run.created event creates its run; any other event
// for an unknown run fails with ErrNotFound. An approval.decided event for an
// interaction that is no longer pending fails with ErrConflict and is not
// stored. Once submitted, the append completes even if ctx ends, so that a
// caller never has to guess whether an event was written.
func (s *Store) Append(ctx context.Context, ev event.Event) (event.Event, error) {
	req := newReq([]event.Event{ev})
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
			// The batch's array outlives the group: without this it holds
			// the last group's requests, all their events and texts (an
			// import of 100,000 events is tens of MiB), until the next
			// append overwrites them, which on an idle server is never.
			clear(batch)
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

// ImportRun appends the whole log of a run recorded elsewhere, as a new run
// marked imported from importedFrom: every event commits or none does (the
// first failure is returned and nothing is written), and the approvals in it
// open no interactions. The events must be one run's, run.created first;
// their seqs are given anew from 1 and their times kept. ImportRun takes
// evs: they are given their seqs in place, and the slice is the store's
// from the call on (a log of 100,000 events is not copied again).
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
	req := newReq(evs)
	req.importedFrom = importedFrom
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
