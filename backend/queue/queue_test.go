package queue_test

import (
	"sync"
	"testing"

	"steward/backend/queue"
)

func TestOrderBoundAndClose(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		limit int
		push  int
		want  int // items accepted
	}{
		{"under the bound", 10, 7, 7},
		{"at the bound", 10, 10, 10},
		{"over the bound", 10, 25, 10},
		{"bound of one", 1, 3, 1},
		{"bound below one counts as one", 0, 3, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			q := queue.New[int](tt.limit)
			accepted := 0
			for i := range tt.push {
				if q.Push(i) {
					accepted++
				}
			}
			if accepted != tt.want || q.Len() != tt.want {
				t.Fatalf("accepted %d, len %d; want %d", accepted, q.Len(), tt.want)
			}
			q.Close()
			if q.Push(99) {
				t.Error("a closed queue took an item")
			}
			if q.Done() {
				t.Error("Done with items still queued")
			}
			for i := range tt.want {
				v, ok := q.Pop()
				if !ok || v != i {
					t.Fatalf("pop %d = %d, %v; want %d", i, v, ok, i)
				}
			}
			if _, ok := q.Pop(); ok {
				t.Error("pop from an empty queue")
			}
			if !q.Done() {
				t.Error("not Done once closed and drained")
			}
		})
	}
}

// The ring wraps: items pushed while others are popped keep their order.
func TestInterleavedPushPopKeepsOrder(t *testing.T) {
	t.Parallel()
	q := queue.New[int](6)
	next, want := 0, 0
	for range 50 {
		for range 4 {
			if q.Push(next) {
				next++
			}
		}
		for range 3 {
			v, ok := q.Pop()
			if !ok {
				t.Fatal("empty too early")
			}
			if v != want {
				t.Fatalf("popped %d, want %d", v, want)
			}
			want++
		}
	}
}

// Ready fires after a Push and after Close, so a consumer that drains on
// each signal and then checks Done sees every item and the end.
func TestConsumerSeesEveryItemThenTheEnd(t *testing.T) {
	t.Parallel()
	q := queue.New[int](1 << 20)
	const producers, each = 4, 5000
	var wg sync.WaitGroup
	for p := range producers {
		wg.Go(func() {
			for i := range each {
				if !q.Push(p*each + i) {
					t.Errorf("push refused")
					return
				}
			}
		})
	}
	go func() { wg.Wait(); q.Close() }()
	last := make([]int, producers)
	for i := range last {
		last[i] = -1
	}
	got := 0
	for !q.Done() {
		<-q.Ready()
		for {
			v, ok := q.Pop()
			if !ok {
				break
			}
			p, i := v/each, v%each
			if i <= last[p] {
				t.Fatalf("producer %d: item %d after %d", p, i, last[p])
			}
			last[p] = i
			got++
		}
	}
	if got != producers*each {
		t.Fatalf("consumed %d items, want %d", got, producers*each)
	}
}

// An idle queue holds (nearly) nothing, also after a burst filled it. (Not
// parallel: AllocsPerRun counts the whole process's allocations.)
func TestIdleQueueHoldsNoBuffer(t *testing.T) {
	q := queue.New[[64]byte](1024)
	allocs := testing.AllocsPerRun(10, func() {
		for range 1024 {
			q.Push([64]byte{})
		}
		for {
			if _, ok := q.Pop(); !ok {
				break
			}
		}
	})
	// Doubling from 4 to 1024 is 9 allocations; a queue that kept its
	// burst's ring would allocate nothing on the later runs.
	if allocs < 9 {
		t.Errorf("%.0f allocations per burst: the drained queue kept its ring", allocs)
	}
}
