package event

import (
	"context"
	"errors"
	"sync"
)

// ErrSlow is the error of a subscription that was cut off because its
// subscriber did not keep up.
var ErrSlow = errors.New("subscriber too slow: disconnected")

// Bus delivers committed events to subscribers.
//
// Delivery rule: the store publishes each committed batch once, in commit
// order, so a subscriber sees the events of a run in seq order with no
// duplicates. Publish never blocks: a subscriber whose buffer is full is cut
// off (its channel is closed and Err returns ErrSlow) and must resubscribe
// from the last seq it saw, which Follow makes seamless. The engine is never
// slowed by a reader.
type Bus struct {
	mu    sync.Mutex
	byRun map[string]map[*Subscription]struct{}
	all   map[*Subscription]struct{} // run-level events of every run
}

// NewBus returns an empty bus.
func NewBus() *Bus {
	return &Bus{byRun: map[string]map[*Subscription]struct{}{}, all: map[*Subscription]struct{}{}}
}

// Subscription is one subscriber's feed.
type Subscription struct {
	runID string
	c     chan Event
	err   error // set before c is closed
}

// C returns the feed. It is closed when the subscription ends.
func (s *Subscription) C() <-chan Event { return s.c }

// Err says why C was closed: ErrSlow, or nil after Unsubscribe.
func (s *Subscription) Err() error { return s.err }

// Subscribe starts a feed of the events of runID, or, when runID is empty,
// of the run-level events (see Event.IsRunLevel) of every run. buffer bounds
// how far the subscriber may fall behind before it is cut off.
func (b *Bus) Subscribe(runID string, buffer int) *Subscription {
	if buffer < 1 {
		buffer = 1
	}
	s := &Subscription{runID: runID, c: make(chan Event, buffer)}
	b.mu.Lock()
	defer b.mu.Unlock()
	if runID == "" {
		b.all[s] = struct{}{}
		return s
	}
	set := b.byRun[runID]
	if set == nil {
		set = map[*Subscription]struct{}{}
		b.byRun[runID] = set
	}
	set[s] = struct{}{}
	return s
}

// Unsubscribe ends s. It is safe to call more than once, and after s was cut
// off.
func (b *Bus) Unsubscribe(s *Subscription) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.remove(s, nil)
}

// remove must be called with b.mu held.
func (b *Bus) remove(s *Subscription, err error) {
	if s.runID == "" {
		if _, ok := b.all[s]; !ok {
			return
		}
		delete(b.all, s)
	} else {
		set := b.byRun[s.runID]
		if _, ok := set[s]; !ok {
			return
		}
		delete(set, s)
		if len(set) == 0 {
			delete(b.byRun, s.runID)
		}
	}
	s.err = err
	close(s.c)
}

// Publish delivers committed events. It never blocks.
func (b *Bus) Publish(events []Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, ev := range events {
		for s := range b.byRun[ev.RunID] {
			b.offer(s, ev)
		}
		if ev.IsRunLevel() {
			for s := range b.all {
				b.offer(s, ev)
			}
		}
	}
}

func (b *Bus) offer(s *Subscription, ev Event) {
	select {
	case s.c <- ev:
	default:
		b.remove(s, ErrSlow)
	}
}

// Reader reads a run's log.
type Reader interface {
	Events(ctx context.Context, runID string, after int64, limit int) ([]Event, error)
}

// FollowOptions are the callbacks of Follow.
type FollowOptions struct {
	// Send delivers one event; an error ends Follow with that error.
	Send func(Event) error
	// Replay, when set, delivers the events read from the log instead of
	// Send. It may wait for a slow reader: the log does not fill up as a
	// live feed does, and a large history must not count as falling behind.
	Replay func(Event) error
	// CaughtUp is called once, after the replay, with the last seq sent (or
	// after, when there was nothing to replay).
	CaughtUp func(seq int64) error
	// Buffer is the live feed's buffer; 1024 when zero.
	Buffer int
}

// Follow sends the events of runID with seq > after: first those in the log,
// then live ones as they commit, each exactly once and in order. It returns
// when ctx ends (nil), when Send fails, or with ErrSlow when it fell behind
// the live feed.
func Follow(ctx context.Context, bus *Bus, r Reader, runID string, after int64, opts FollowOptions) error {
	buf := opts.Buffer
	if buf <= 0 {
		buf = 1024
	}
	// Subscribe before reading the log: every event committed from now on is
	// in the feed, everything earlier is in the log, so there is no gap.
	sub := bus.Subscribe(runID, buf)
	defer bus.Unsubscribe(sub)
	fromLog := opts.Send
	if opts.Replay != nil {
		fromLog = opts.Replay
	}
	last, err := replay(ctx, r, runID, after, fromLog)
	if err != nil {
		return err
	}
	if opts.CaughtUp != nil {
		if err := opts.CaughtUp(last); err != nil {
			return err
		}
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-sub.C():
			if !ok {
				return sub.Err()
			}
			if ev.Seq <= last {
				continue // already sent from the log
			}
			if ev.Seq > last+1 { // cannot happen with the rule above; heal anyway
				if last, err = replay(ctx, r, runID, last, fromLog); err != nil {
					return err
				}
				if ev.Seq <= last {
					continue
				}
			}
			if err := opts.Send(ev); err != nil {
				return err
			}
			last = ev.Seq
		}
	}
}

func replay(ctx context.Context, r Reader, runID string, after int64, send func(Event) error) (int64, error) {
	const page = 500
	for {
		evs, err := r.Events(ctx, runID, after, page)
		if err != nil {
			return after, err
		}
		for _, ev := range evs {
			if err := send(ev); err != nil {
				return after, err
			}
			after = ev.Seq
		}
		if len(evs) < page {
			return after, nil
		}
	}
}
