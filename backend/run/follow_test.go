package run_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"steward/backend/event"
)

// follower collects what event.Follow sends.
type follower struct {
	mu     sync.Mutex
	got    []event.Event
	caught chan int64
	errc   chan error
}

func follow(ctx context.Context, h *harness, runID string, after int64) *follower {
	f := &follower{caught: make(chan int64, 1), errc: make(chan error, 1)}
	go func() {
		f.errc <- event.Follow(ctx, h.bus, h.st, runID, after, event.FollowOptions{
			Send: func(ev event.Event) error {
				f.mu.Lock()
				f.got = append(f.got, ev)
				f.mu.Unlock()
				return nil
			},
			CaughtUp: func(seq int64) error { f.caught <- seq; return nil },
			// Small, so that a slow follower would be cut off, not
			// silently buffered.
			Buffer: 64,
		})
	}()
	return f
}

func (f *follower) events() []event.Event {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]event.Event(nil), f.got...)
}

func (f *follower) last() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.got) == 0 {
		return 0
	}
	return f.got[len(f.got)-1].Seq
}

func TestFollowMidRun(t *testing.T) {
	t.Parallel()
	h := newHarness(t, fixed(scripted(t, `{"turns": [
		{"text": "Writing first.", "tool_calls": [{"name": "write_file", "arguments": {"path": "a.txt", "content": "A"}}]},
		{"text": "Now reading it back, twice.", "tool_calls": [
			{"name": "read_file", "arguments": {"path": "a.txt"}},
			{"name": "read_file", "arguments": {"path": "a.txt"}},
			{"name": "list_dir"}]},
		{"text": "One more look.", "tool_calls": [{"name": "list_dir"}]},
		{"text": "All done: {{last_tool_output}}"}
	]}`)))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	r := h.start(t, testAgent(), "write and read")
	it := h.pending(t, r.ID)

	// A starts while the run waits: part replay, part live.
	a := follow(ctx, h, r.ID, 0)
	var caughtA int64
	select {
	case caughtA = <-a.caught:
	case <-time.After(5 * time.Second):
		t.Fatal("follower A never caught up")
	}
	if caughtA == 0 {
		t.Fatal("follower A caught up on nothing; the run had events")
	}
	if _, err := h.in.Answer(context.Background(), it.ID, inboxApprove); err != nil {
		t.Fatal(err)
	}
	// B starts while the run is producing events, from the middle of the log.
	b := follow(ctx, h, r.ID, 3)

	end := h.waitEnd(t, r.ID, 5*time.Second)
	if end.Status != "completed" {
		t.Fatalf("run = %+v", end)
	}
	waitFor(t, 5*time.Second, "both followers to reach the last event", func() bool {
		return a.last() == end.LastSeq && b.last() == end.LastSeq
	})
	cancel()
	for name, f := range map[string]*follower{"A": a, "B": b} {
		if err := <-f.errc; err != nil {
			t.Errorf("Follow %s: %v", name, err)
		}
	}

	all := h.events(t, r.ID)
	checkLog(t, all)
	if diff := cmp.Diff(all, a.events()); diff != "" {
		t.Errorf("follower A (-log +sent):\n%s", diff)
	}
	if diff := cmp.Diff(all[3:], b.events()); diff != "" {
		t.Errorf("follower B (-log +sent):\n%s", diff)
	}
	if caughtA >= end.LastSeq {
		t.Errorf("A caught up at %d of %d: it saw nothing live", caughtA, end.LastSeq)
	}
}
