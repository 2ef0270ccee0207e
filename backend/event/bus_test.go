package event_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"steward/backend/event"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func ev(run string, seq int64, typ event.Type) event.Event {
	return event.Event{RunID: run, Seq: seq, Type: typ, Data: []byte(`{}`)}
}

func TestBusDeliversInOrderToMatchingSubscribers(t *testing.T) {
	t.Parallel()
	bus := event.NewBus()
	a := bus.Subscribe("a", 10)
	b := bus.Subscribe("b", 10)
	all := bus.Subscribe("", 10)
	bus.Publish([]event.Event{ev("a", 1, event.RunCreated), ev("a", 2, event.LLMDelta), ev("b", 1, event.RunCreated), ev("a", 3, event.RunStatus)})
	bus.Unsubscribe(a)
	bus.Unsubscribe(b)
	bus.Unsubscribe(all)
	bus.Unsubscribe(all) // twice is fine
	got := func(s *event.Subscription) (out []string) {
		for e := range s.C() {
			out = append(out, fmt.Sprintf("%s/%d", e.RunID, e.Seq))
		}
		return out
	}
	if g := fmt.Sprint(got(a)); g != "[a/1 a/2 a/3]" {
		t.Errorf("run a got %s", g)
	}
	if g := fmt.Sprint(got(b)); g != "[b/1]" {
		t.Errorf("run b got %s", g)
	}
	// The all-runs feed carries only run-level events.
	if g := fmt.Sprint(got(all)); g != "[a/1 b/1 a/3]" {
		t.Errorf("all-runs feed got %s", g)
	}
	if a.Err() != nil {
		t.Errorf("unsubscribed feed has error %v", a.Err())
	}
}

func TestBusCutsOffSlowSubscriberWithoutBlocking(t *testing.T) {
	t.Parallel()
	bus := event.NewBus()
	slow := bus.Subscribe("r", 2)
	fast := bus.Subscribe("r", 100)
	done := make(chan struct{})
	go func() {
		for i := int64(1); i <= 50; i++ {
			bus.Publish([]event.Event{ev("r", i, event.LLMDelta)})
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Publish blocked on a slow subscriber")
	}
	n := 0
	for range slow.C() {
		n++
	}
	if n != 2 || !errors.Is(slow.Err(), event.ErrSlow) {
		t.Errorf("slow subscriber got %d events, err %v; want 2 and ErrSlow", n, slow.Err())
	}
	if len(fast.C()) != 50 {
		t.Errorf("fast subscriber has %d events, want 50", len(fast.C()))
	}
	bus.Unsubscribe(fast)
	bus.Unsubscribe(slow) // after being cut off: no panic
}

// memLog is an event.Reader over a slice that a writer appends to, publishing
// after each "commit" as the store does.
type memLog struct {
	mu  sync.Mutex
	evs []event.Event
	bus *event.Bus
}

func (m *memLog) Events(_ context.Context, run string, after int64, limit int) ([]event.Event, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []event.Event
	for _, e := range m.evs {
		if e.Seq > after && (limit <= 0 || len(out) < limit) {
			out = append(out, e)
		}
	}
	return out, nil
}

func (m *memLog) append() {
	m.mu.Lock()
	e := ev("r", int64(len(m.evs)+1), event.LLMDelta)
	m.evs = append(m.evs, e)
	m.mu.Unlock()
	m.bus.Publish([]event.Event{e})
}

func TestFollowReplaysThenGoesLiveExactlyOnce(t *testing.T) {
	t.Parallel()
	for _, after := range []int64{0, 5, 700} {
		t.Run(fmt.Sprint("after ", after), func(t *testing.T) {
			t.Parallel()
			bus := event.NewBus()
			log := &memLog{bus: bus}
			for range 700 { // more than one replay page
				log.append()
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var got []int64
			caught := int64(-1)
			done := make(chan error, 1)
			go func() {
				done <- event.Follow(ctx, bus, log, "r", after, event.FollowOptions{
					Send: func(e event.Event) error {
						got = append(got, e.Seq)
						if e.Seq == 1000 {
							cancel()
						}
						return nil
					},
					CaughtUp: func(seq int64) error { caught = seq; return nil },
				})
			}()
			// Live appends race the replay; Follow must neither skip nor repeat.
			for range 300 {
				log.append()
			}
			if err := <-done; err != nil {
				t.Fatalf("Follow: %v", err)
			}
			if caught < 700 {
				t.Errorf("caught up at %d, want at least the 700 events logged before", caught)
			}
			want := after + 1
			for _, s := range got {
				if s != want {
					t.Fatalf("got seq %d, want %d (no gaps, no repeats)", s, want)
				}
				want++
			}
			if want != 1001 {
				t.Errorf("ended at %d, want 1000", want-1)
			}
		})
	}
}

func TestFollowEndsWithErrSlowAndOnSendError(t *testing.T) {
	t.Parallel()
	bus := event.NewBus()
	log := &memLog{bus: bus}
	log.append()
	stalled, block := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- event.Follow(context.Background(), bus, log, "r", 0, event.FollowOptions{
			Buffer: 1,
			Send: func(e event.Event) error {
				if e.Seq == 1 {
					close(stalled) // subscribed (before the replay) and now stuck
					<-block
				}
				return nil
			},
		})
	}()
	<-stalled
	for range 10 {
		log.append()
	}
	close(block)
	if err := <-done; !errors.Is(err, event.ErrSlow) {
		t.Errorf("Follow of a stalled reader = %v, want ErrSlow", err)
	}
	boom := errors.New("client gone")
	err := event.Follow(context.Background(), bus, log, "r", 0, event.FollowOptions{Send: func(event.Event) error { return boom }})
	if !errors.Is(err, boom) {
		t.Errorf("Follow with a failing Send = %v", err)
	}
}

// drainFeed takes everything f holds until it ends.
func drainFeed(f *event.Feed) (out []string) {
	for !f.Done() {
		<-f.Ready()
		for {
			e, ok := f.Next()
			if !ok {
				break
			}
			out = append(out, fmt.Sprintf("%s/%d", e.RunID, e.Seq))
		}
	}
	return out
}

// A Feed keeps the bus's delivery rule as a Subscription does: in order, to
// the matching subscribers, and cut off without blocking when its bound is
// reached, after what it holds.
func TestFeedDeliversInOrderAndCutsOffSlowSubscriber(t *testing.T) {
	t.Parallel()
	bus := event.NewBus()
	a := bus.Feed("a", 10)
	all := bus.Feed("", 10)
	slow := bus.Feed("r", 2)
	bus.Publish([]event.Event{ev("a", 1, event.RunCreated), ev("a", 2, event.LLMDelta), ev("b", 1, event.RunCreated), ev("a", 3, event.RunStatus)})
	done := make(chan struct{})
	go func() {
		for i := int64(1); i <= 50; i++ {
			bus.Publish([]event.Event{ev("r", i, event.LLMDelta)})
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Publish blocked on a slow feed")
	}
	a.Close()
	all.Close()
	all.Close() // twice is fine
	if g := fmt.Sprint(drainFeed(a)); g != "[a/1 a/2 a/3]" {
		t.Errorf("run a got %s", g)
	}
	if g := fmt.Sprint(drainFeed(all)); g != "[a/1 b/1 a/3]" {
		t.Errorf("all-runs feed got %s", g)
	}
	if a.Err() != nil {
		t.Errorf("closed feed has error %v", a.Err())
	}
	if g := fmt.Sprint(drainFeed(slow)); g != "[r/1 r/2]" || !errors.Is(slow.Err(), event.ErrSlow) {
		t.Errorf("slow feed got %s, err %v; want [r/1 r/2] and ErrSlow", g, slow.Err())
	}
	slow.Close() // after being cut off: no panic
}
