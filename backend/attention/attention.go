// Package attention keeps count of what waits on a person: the interactions
// (approvals and questions) pending across every run. A Watcher reports the
// count whenever it changes, with a Notice when an interaction has just been
// requested, for a surface that lives outside the UI: the desktop window's
// title and the system's notifications.
//
// The count always comes from the store, never from adding up events: it is
// read when Run starts (so interactions left pending before a restart count),
// again after every run-level event that can open or close an interaction,
// and every Options.Resync, which catches answers and requests that another
// process sharing the database (the CLI beside the window) wrote without a
// word on this process's bus. Events only say when to look.
//
// Run starts no goroutine: it runs on its caller's, which owns it and ends it
// by cancelling the context.
package attention

import (
	"context"
	"time"

	"steward/backend/event"
	"steward/backend/store"
)

// Store is what the watcher needs of the database.
type Store interface {
	ListInteractions(ctx context.Context, f store.InteractionFilter) ([]store.Interaction, error)
}

// Bus is what the watcher needs of the event bus: the feed of run-level
// events of every run (runID "").
type Bus interface {
	Subscribe(runID string, buffer int) *event.Subscription
	Unsubscribe(s *event.Subscription)
}

var (
	_ Store = (*store.Store)(nil)
	_ Bus   = (*event.Bus)(nil)
)

// Attention is what waits on a person, as a Watcher reports it.
type Attention struct {
	// Pending counts the interactions waiting for an answer, across runs.
	Pending int
	// Notify is set when an interaction has been requested since the last
	// report: tell the person. It is nil in the first report of Run, which
	// counts what was already waiting.
	Notify *Notice
}

// Notice is a short message for a desktop notification.
type Notice struct {
	Title, Body string
}

// Options configure a Watcher; nil means the defaults.
type Options struct {
	// Resync is how often the count is read even without an event, for
	// interactions opened or answered by another process. 10 s when zero;
	// negative turns it off.
	Resync time.Duration
	// Logf receives store errors (once per run of failures); nil discards.
	Logf func(format string, args ...any)
}

const (
	defaultResync = 10 * time.Second
	// buffer bounds the events queued while a report is being read or
	// delivered; the feed carries run-level events only, a few per step.
	// Falling further behind costs nothing but a new subscription: the
	// count is read from the store, not rebuilt from the events.
	buffer = 64
	// maxPending bounds one read. A person with more pending interactions
	// than this sees this many; the newest are always among them.
	maxPending = 1000
)

// Watcher counts pending interactions. It holds only its configuration, so
// Run may be called more than once, concurrently too.
type Watcher struct {
	store  Store
	bus    Bus
	resync time.Duration
	logf   func(string, ...any)
}

// New returns a watcher over st, woken by bus.
func New(st Store, bus Bus, opts *Options) *Watcher {
	w := &Watcher{store: st, bus: bus, resync: defaultResync, logf: func(string, ...any) {}}
	if opts != nil {
		if opts.Resync != 0 {
			w.resync = opts.Resync
		}
		if opts.Logf != nil {
			w.logf = opts.Logf
		}
	}
	return w
}

// Run calls report with the first count, then whenever the count changes or
// an interaction is requested, until ctx ends. report runs on Run's goroutine:
// events that arrive meanwhile are taken together, so a slow report delays
// the next one but loses nothing. Store errors do not end Run: they are
// logged, and the count is read again at the next event or resync.
func (w *Watcher) Run(ctx context.Context, report func(Attention)) {
	var s state
	for ctx.Err() == nil {
		// Subscribe before reading, so that nothing committed after the
		// read goes unseen. A subscription cut off for falling behind ends
		// follow; the loop subscribes and reads again.
		sub := w.bus.Subscribe("", buffer)
		w.follow(ctx, sub, &s, report)
		w.bus.Unsubscribe(sub)
	}
}

// state is what one Run remembers between reads.
type state struct {
	known   map[string]bool // ids pending at the last read; nil before the first
	failing bool            // the last read failed (and was logged)
}

// follow reads the count, then again on every relevant event and tick, until
// ctx ends or sub is cut off.
func (w *Watcher) follow(ctx context.Context, sub *event.Subscription, s *state, report func(Attention)) {
	w.refresh(ctx, s, report)
	var tick <-chan time.Time
	if w.resync > 0 {
		t := time.NewTicker(w.resync)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick:
			w.refresh(ctx, s, report)
		case ev, ok := <-sub.C():
			if !ok {
				return
			}
			// Take whatever else is queued: one read answers them all.
			relevant := concerns(ev)
			for more := true; more; {
				select {
				case ev, ok := <-sub.C():
					if !ok {
						return
					}
					relevant = relevant || concerns(ev)
				default:
					more = false
				}
			}
			if relevant {
				w.refresh(ctx, s, report)
			}
		}
	}
}

// concerns reports whether ev can open or close an interaction: a request,
// an answer, or a run status (a run that ends cancels what it left open).
func concerns(ev event.Event) bool {
	switch ev.Type {
	case event.ApprovalRequested, event.ApprovalDecided, event.RunStatus:
		return true
	}
	return false
}

// refresh reads the pending interactions and reports them if the count
// changed or one is new.
func (w *Watcher) refresh(ctx context.Context, s *state, report func(Attention)) {
	list, err := w.store.ListInteractions(ctx, store.InteractionFilter{Status: event.InteractionPending, Limit: maxPending})
	if err != nil {
		if ctx.Err() == nil && !s.failing {
			w.logf("attention: read pending interactions: %v", err)
		}
		s.failing = true
		return
	}
	s.failing = false
	first := s.known == nil
	ids := make(map[string]bool, len(list))
	var fresh []store.Interaction // newest first, like list
	for _, it := range list {
		ids[it.ID] = true
		if !first && !s.known[it.ID] {
			fresh = append(fresh, it)
		}
	}
	changed := first || len(ids) != len(s.known)
	s.known = ids
	if !changed && len(fresh) == 0 {
		return
	}
	report(Attention{Pending: len(list), Notify: notice(fresh)})
}
