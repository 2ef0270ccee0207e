package run

import (
	"context"
	"sync"

	"steward/backend/event"
	"steward/backend/store"
)

// active is a run driven by this process. Its goroutine (drive) owns the
// run's progress; commands reach it through the fields below, under mu. Every
// event of the run written by this process goes through emit, under mu, and
// is folded into st as it is emitted, so the order of the log is the order of
// emission and st is always the fold of the log.
type active struct {
	svc    *Service
	cancel context.CancelCauseFunc
	done   chan struct{}
	wake   chan struct{} // a paused run's goroutine is told to look again

	mu      sync.Mutex
	st      *runState
	buf     []event.Event    // emitted, not yet handed to the store
	pending []*store.Pending // handed to the store, commit not yet seen
	// staged, while set, takes what emit records instead of buf, unfolded:
	// the events of a command's effect, which commit with its answer and are
	// folded only then (see apply).
	staged *[]event.Event
	// pauseAsked makes the run pause at its next safe point with
	// pauseReason; stepping pauses it after the current action.
	pauseAsked  bool
	pauseReason string
	stepping    bool
	// brokeAt remembers the calls a breakpoint already stopped before.
	brokeAt map[string]bool
	// files is the run's journal and watcher; nil without Config.Blobs.
	files *files
	// imagesRefused is set when the model refused a request with images:
	// none are sent again while this process drives the run.
	imagesRefused bool
}

func newActive(svc *Service, st *runState, cancel context.CancelCauseFunc) *active {
	return &active{svc: svc, st: st, cancel: cancel, done: make(chan struct{}), wake: make(chan struct{}, 1), brokeAt: map[string]bool{}}
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
		a.pending = append(a.pending, a.svc.cfg.Store.SubmitAll(a.buf))
		a.buf = nil
	}
}

// sync flushes and waits until every emitted event has committed.
func (a *active) sync() error {
	a.mu.Lock()
	a.flushLocked()
	pending := a.pending
	a.pending = nil
	a.mu.Unlock()
	var first error
	for _, p := range pending {
		if _, err := p.Wait(); err != nil && first == nil {
			first = err
		}
	}
	return first
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
