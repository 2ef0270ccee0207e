package run

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"

	"steward/backend/event"
	"steward/backend/store"
)

// active is a run driven by this process. Its goroutine (drive) owns the
// run's progress; commands reach it through the fields below, under mu.
//
// st is the fold of the run's log, fed every committed event of the run.
// Every event this process writes to the run goes through emit, under mu,
// and is folded into st as it is emitted: the order of the log is the order
// of emission. The events others write (the inbox records approvals and
// answers, a replay its divergence, from this process or another one) are
// folded when the run next meets its log: at every sync, the seqs the
// store gave the run's own events tell whether others wrote in between, and
// follow then reads and folds what they wrote. The engine follows at once
// where it acts on what others write: after it opens an approval and after
// it is answered. (Others write only what decides a pending call, so their
// events fold the same a little after their place in the log.)
type active struct {
	svc    *Service
	cancel context.CancelCauseFunc
	done   chan struct{}
	wake   chan struct{} // a paused run's goroutine is told to look again

	mu      sync.Mutex
	st      *runState
	buf     []event.Event // emitted, not yet handed to the store
	pending []submitted   // handed to the store, commit not yet seen
	// folded is the seq up to which st holds every event of the log; own
	// are the run's own events folded and not known yet to be at or below
	// folded, in commit order; ownN counts the run's own events so far, ownAt
	// those at or below folded. behind says that others wrote events that st
	// has not folded yet. lost is the first commit that failed: st then
	// holds events the log does not, and own no longer says which events of
	// the log are the run's own, so following stops and every later sync
	// returns lost: the run can only end, failed, naming it.
	folded      int64
	own         []event.Event
	ownN, ownAt int64
	behind      bool
	lost        error
	followMu    sync.Mutex // one follow at a time
	// staged, while set, takes what emit records instead of buf, unfolded:
	// the events of a command's effect, which commit with its answer and are
	// folded only then (see apply).
	staged *[]event.Event
	// pauseAsked makes the run pause at its next safe point with
	// pauseReason; stepping pauses it after the current action.
	pauseAsked  bool
	pauseReason string
	stepping    bool
	// eliciting counts the servers' questions the run's calls wait on
	// (elicitations): the run waits while there is one.
	eliciting int
	// brokeAt remembers the calls a breakpoint already stopped before.
	brokeAt map[string]bool
	// files is the run's journal and watcher; nil without Config.Blobs.
	files *files
	// imagesRefused is set when the model refused a request with images:
	// none are sent again while this process drives the run.
	imagesRefused bool
}

// submitted is a hand-off to the store and the count of the run's own
// events up to its last.
type submitted struct {
	p    *store.Pending
	ownN int64
}

// newActive returns the active run of st, which folds the run's log up to
// its seq.
func newActive(svc *Service, st *runState, cancel context.CancelCauseFunc) *active {
	return &active{svc: svc, st: st, cancel: cancel, done: make(chan struct{}), wake: make(chan struct{}, 1), brokeAt: map[string]bool{},
		folded: st.seq}
}

// emit records an event; mu must be held. It is handed to the store at the
// next flush, with its neighbours, so the events of a step commit in one
// group. Every text of data that came from outside is redacted here, before
// the fold sees it: the log, the run's error and the conversation the model
// is sent all hold the same redacted text, before and after a restart.
// While a command is being answered (staged), its events wait to commit
// with the answer and are folded only after that commit.
func (a *active) emitLocked(typ event.Type, node string, data any) {
	ev := event.New(a.st.id, typ, node, event.Outside(data, a.svc.cfg.Redact))
	if a.staged != nil {
		*a.staged = append(*a.staged, ev)
		return
	}
	a.st.apply(ev)
	a.buf = append(a.buf, ev)
	a.ownLocked(ev)
}

// ownLocked notes ev, folded, as one of the run's own events; mu must be
// held. Events are noted in the order they commit.
func (a *active) ownLocked(ev event.Event) {
	a.own = append(a.own, ev)
	a.ownN++
}

// foldCommittedLocked folds the run's own events evs, which have committed
// (a command's effect); mu must be held.
func (a *active) foldCommittedLocked(evs []event.Event) {
	for _, ev := range evs {
		a.st.apply(ev)
		a.ownLocked(ev)
	}
}

func (a *active) emit(typ event.Type, node string, data any) {
	a.mu.Lock()
	a.emitLocked(typ, node, data)
	a.mu.Unlock()
}

// flush hands the emitted events to the store without waiting for their
// commit. The loop flushes before anything that may take a while (a model
// call, a wait for a person), so watchers see each event as it happens.
func (a *active) flush() {
	a.mu.Lock()
	a.flushLocked()
	a.mu.Unlock()
}

func (a *active) flushLocked() {
	if len(a.buf) > 0 {
		a.pending = append(a.pending, submitted{a.svc.cfg.Store.SubmitAll(a.buf), a.ownN})
		a.buf = nil
	}
}

// sync flushes and waits until every emitted event has committed; then, if
// others wrote to the run meanwhile, it folds what they wrote (follow).
func (a *active) sync() error {
	a.mu.Lock()
	a.flushLocked()
	pending := a.pending
	a.pending = nil
	a.mu.Unlock()
	for _, p := range pending {
		last, err := p.p.Wait()
		a.mu.Lock()
		if err != nil && a.lost == nil {
			a.lost = fmt.Errorf("the run's log lost events that did not commit: %w", err)
		} else if err == nil {
			a.committedLocked(p.ownN, last.Seq)
		}
		a.mu.Unlock()
	}
	a.mu.Lock()
	behind, lost := a.behind, a.lost
	a.mu.Unlock()
	if lost != nil {
		return lost
	}
	if behind {
		return a.follow(context.Background())
	}
	return nil
}

// committedLocked notes that the run's own events up to the ownN-th have
// committed, the last at seq; mu must be held. Seqs are dense: when the log
// holds no other event between folded and seq, st is the fold of the log up
// to seq; else others wrote in between, and follow must read it.
func (a *active) committedLocked(ownN, seq int64) {
	if a.lost != nil || seq <= a.folded || ownN <= a.ownAt {
		return
	}
	if mine := ownN - a.ownAt; seq-a.folded == mine {
		a.own = a.own[mine:]
		if len(a.own) == 0 {
			a.own = nil
		}
		a.ownAt, a.folded = ownN, seq
		return
	}
	a.behind = true
}

// follow folds the events others wrote to the run's log since st last met
// it, reading the log after folded: an event is the run's own when it is
// the next of own, and is folded (again) only when it is not.
func (a *active) follow(ctx context.Context) error {
	a.followMu.Lock()
	defer a.followMu.Unlock()
	a.mu.Lock()
	if a.lost != nil {
		err := a.lost
		a.mu.Unlock()
		return err
	}
	a.behind = false
	after := a.folded
	a.mu.Unlock()
	const page = 1000
	for {
		evs, err := a.svc.cfg.Store.Events(context.WithoutCancel(ctx), a.st.id, after, page)
		if err != nil {
			return fmt.Errorf("read the run's log: %w", err)
		}
		a.mu.Lock()
		for _, ev := range evs {
			if ev.Seq <= a.folded {
				continue
			}
			if len(a.own) > 0 && sameEvent(a.own[0], ev) {
				a.own = a.own[1:]
				a.ownAt++
			} else {
				a.st.apply(ev)
			}
			a.folded = ev.Seq
		}
		a.mu.Unlock()
		if len(evs) < page {
			return nil
		}
		after = evs[len(evs)-1].Seq
	}
}

// sameEvent reports whether ev, read from the log, is mine as it was
// emitted: the same type, node and payload (as JSON values: the log need
// not keep the bytes as they were written).
func sameEvent(mine, ev event.Event) bool {
	if mine.Type != ev.Type || mine.NodeID != ev.NodeID {
		return false
	}
	if bytes.Equal(mine.Data, ev.Data) {
		return true
	}
	var x, y any
	return json.Unmarshal(mine.Data, &x) == nil && json.Unmarshal(ev.Data, &y) == nil && reflect.DeepEqual(x, y)
}

// setStatusLocked records a change of status; mu must be held. A move the
// state machine does not allow is a bug: it is logged and not recorded.
func (a *active) setStatusLocked(to Status, reason, errMsg string, next *event.Next) bool {
	from := a.st.status
	if !CanTransition(from, to) {
		a.svc.cfg.Logf("run %s: illegal status change %s → %s (%s) ignored", a.st.id, from, to, reason)
		return false
	}
	a.emitLocked(event.RunStatus, "", event.RunStatusData{Status: string(to), Reason: reason, Error: errMsg, Next: next})
	return true
}

func (a *active) status() Status {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.st.status
}

// signal wakes the goroutine if it waits at a safe point.
func (a *active) signal() {
	select {
	case a.wake <- struct{}{}:
	default:
	}
}
