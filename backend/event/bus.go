package event

import (
	"context"
	"errors"
	"sync"

	"steward/backend/queue"
)

// ErrSlow is the error of a subscription that was cut off because its
// subscriber did not keep up.
var ErrSlow = errors.New("subscriber too slow: disconnected")

// Bus delivers committed events to subscribers.
//
// Delivery rule: the store publishes each committed batch once, in commit
// order, so a subscriber sees the events of a run in seq order with no
// duplicates. Publish never blocks: a subscriber whose buffer is full is cut
// off (its feed ends and Err returns ErrSlow) and must resubscribe from the
// last seq it saw, which Follow makes seamless. The engine is never slowed
// by a reader.
//
// A subscriber reads a Subscription (a channel, whose buffer is allocated
// whole at the start) or a Feed (a queue that holds only what is pending:
// for the many long-lived subscribers of the WebSocket, most of them idle).
// Both are held to the same rule and the same bound.
type Bus struct {
	mu    sync.Mutex
	byRun map[string]map[subscriber]struct{}
	all   map[subscriber]struct{} // run-level events of every run
}

// subscriber is a Subscription or a Feed, as the bus sees it.
type subscriber interface {
	// offer queues ev without blocking and reports false when the buffer is
	// full.
	offer(ev Event) bool
	// end closes the feed for err; the bus calls it once, with b.mu held.
	end(err error)
}

// NewBus returns an empty bus.
func NewBus() *Bus {
	return &Bus{byRun: map[string]map[subscriber]struct{}{}, all: map[subscriber]struct{}{}}
}

// Subscription is one subscriber's feed, as a channel.
type Subscription struct {
	runID string
	c     chan Event
	err   error // set before c is closed
}

// C returns the feed. It is closed when the subscription ends.
func (s *Subscription) C() <-chan Event { return s.c }

// Err says why C was closed: ErrSlow, or nil after Unsubscribe.
func (s *Subscription) Err() error { return s.err }

func (s *Subscription) offer(ev Event) bool {
	select {
	case s.c <- ev:
		return true
	default:
		return false
	}
}

func (s *Subscription) end(err error) {
	s.err = err
	close(s.c)
}

// Subscribe starts a feed of the events of runID, or, when runID is empty,
// of the run-level events (see Event.IsRunLevel) of every run. buffer bounds
// how far the subscriber may fall behind before it is cut off.
func (b *Bus) Subscribe(runID string, buffer int) *Subscription {
	s := &Subscription{runID: runID, c: make(chan Event, max(buffer, 1))}
	b.add(runID, s)
	return s
}

// Unsubscribe ends s. It is safe to call more than once, and after s was cut
// off.
func (b *Bus) Unsubscribe(s *Subscription) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.remove(s.runID, s, nil)
}

// Feed is one subscriber's feed, as a queue: like a Subscription, but its
// buffer holds only the events not yet taken, so an idle subscriber holds
// none. Wait on Ready, take the events with Next, then check Done.
type Feed struct {
	bus   *Bus
	runID string
	q     *queue.Queue[Event]
	err   error // set before q is closed
}

// Feed starts a feed of the events of runID, or, when runID is empty, of the
// run-level events of every run. buffer bounds how far the subscriber may
// fall behind before it is cut off, as Subscribe's does.
func (b *Bus) Feed(runID string, buffer int) *Feed {
	f := &Feed{bus: b, runID: runID, q: queue.New[Event](buffer)}
	b.add(runID, f)
	return f
}

// Ready receives a value when events arrived or the feed ended.
func (f *Feed) Ready() <-chan struct{} { return f.q.Ready() }

// Next returns the oldest event not yet taken; ok is false when there is
// none.
func (f *Feed) Next() (ev Event, ok bool) { return f.q.Pop() }

// Done reports whether the feed ended and every event it held was taken;
// Err then says why.
func (f *Feed) Done() bool { return f.q.Done() }

// Err says why the feed ended: ErrSlow, or nil after Close.
func (f *Feed) Err() error {
	f.bus.mu.Lock()
	defer f.bus.mu.Unlock()
	return f.err
}

// Close ends f. It is safe to call more than once, and after f was cut off.
func (f *Feed) Close() {
	f.bus.mu.Lock()
	defer f.bus.mu.Unlock()
	f.bus.remove(f.runID, f, nil)
}

func (f *Feed) offer(ev Event) bool { return f.q.Push(ev) }

func (f *Feed) end(err error) {
	f.err = err
	f.q.Close()
}

func (b *Bus) add(runID string, s subscriber) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if runID == "" {
		b.all[s] = struct{}{}
		return
	}
	set := b.byRun[runID]
	if set == nil {
		set = map[subscriber]struct{}{}
		b.byRun[runID] = set
	}
	set[s] = struct{}{}
}

// remove must be called with b.mu held.
func (b *Bus) remove(runID string, s subscriber, err error) {
	if runID == "" {
		if _, ok := b.all[s]; !ok {
			return
		}
		delete(b.all, s)
	} else {
		set := b.byRun[runID]
		if _, ok := set[s]; !ok {
			return
		}
		delete(set, s)
		if len(set) == 0 {
			delete(b.byRun, runID)
		}
	}
	s.end(err)
}

// Publish delivers committed events. It never blocks.
func (b *Bus) Publish(events []Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, ev := range events {
		for s := range b.byRun[ev.RunID] {
			if !s.offer(ev) {
				b.remove(ev.RunID, s, ErrSlow)
			}
		}
		if ev.IsRunLevel() {
			for s := range b.all {
				if !s.offer(ev) {
					b.remove("", s, ErrSlow)
				}
			}
		}
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
	feed := bus.Feed(runID, buf)
	defer feed.Close()
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
		case <-feed.Ready():
		}
		for {
			ev, ok := feed.Next()
			if !ok {
				break
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
		if feed.Done() {
			return feed.Err()
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
