package run

import (
	"sync"
	"testing"
	"time"
)

// TestRunLocks: a run's lock is held by one at a time, another run's is
// not held up by it, and no lock outlives its last holder.
func TestRunLocks(t *testing.T) {
	t.Parallel()
	var l runLocks
	unlockA := l.lock("run_a")
	got := make(chan string, 2)
	var wg sync.WaitGroup
	for _, id := range []string{"run_a", "run_b"} {
		wg.Go(func() {
			unlock := l.lock(id)
			got <- id[len("run_"):]
			unlock()
		})
	}
	select {
	case who := <-got:
		if who != "b" {
			t.Fatalf("run_a's lock was taken twice")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("run_b waited for run_a's lock")
	}
	select {
	case <-got:
		t.Fatal("run_a's lock was taken while held")
	case <-time.After(50 * time.Millisecond):
	}
	unlockA()
	if who := <-got; who != "a" {
		t.Fatalf("got %s, want the waiter of run_a", who)
	}
	wg.Wait()
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.m) != 0 {
		t.Errorf("%d locks kept after their holders left", len(l.m))
	}
}
