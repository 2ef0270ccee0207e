// Package queue holds Queue, a bounded FIFO whose memory follows what it
// holds. A buffered channel of the same bound holds all of it from the
// start: a subscriber allowed to fall 1024 events behind held 90 KB while it
// waited for nothing, and an idle WebSocket client about 230 KB (issue 15).
// A Queue holds nothing while empty and grows, doubling, up to its bound.
//
// Guarantees: items come out in the order they went in; Push never blocks
// (a full queue refuses the item, and the caller decides what that means);
// Ready signals after every Push and after Close, so a consumer that drains
// the queue on each signal never sleeps on an item.
package queue

import "sync"

// keep is the most room an empty queue keeps: after a burst, an idle queue
// returns to (nearly) nothing.
const keep = 8

// Queue is a bounded FIFO of T, safe for one or more producers and one
// consumer.
type Queue[T any] struct {
	mu     sync.Mutex
	buf    []T // a ring: n items from head
	head   int
	n      int
	limit  int
	closed bool
	ready  chan struct{}
}

// New returns an empty queue that holds at most limit items (at least 1).
func New[T any](limit int) *Queue[T] {
	return &Queue[T]{limit: max(limit, 1), ready: make(chan struct{}, 1)}
}

// Push appends v. It reports false, and keeps nothing, when the queue is
// full or closed.
func (q *Queue[T]) Push(v T) bool {
	q.mu.Lock()
	if q.closed || q.n == q.limit {
		q.mu.Unlock()
		return false
	}
	if q.n == len(q.buf) {
		q.grow()
	}
	q.buf[(q.head+q.n)%len(q.buf)] = v
	q.n++
	q.mu.Unlock()
	q.signal()
	return true
}

// grow doubles the ring, up to the limit; q.mu is held.
func (q *Queue[T]) grow() {
	buf := make([]T, min(max(2*len(q.buf), 4), q.limit))
	for i := range q.n {
		buf[i] = q.buf[(q.head+i)%len(q.buf)]
	}
	q.buf, q.head = buf, 0
}

// Pop removes and returns the oldest item; ok is false when the queue is
// empty.
func (q *Queue[T]) Pop() (v T, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.n == 0 {
		return v, false
	}
	var zero T
	v, q.buf[q.head] = q.buf[q.head], zero // the ring keeps no reference to what left it
	q.head = (q.head + 1) % len(q.buf)
	q.n--
	if q.n == 0 {
		q.head = 0
		if len(q.buf) > keep {
			q.buf = nil
		}
	}
	return v, true
}

// Len is the number of items queued.
func (q *Queue[T]) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.n
}

// Ready receives a value after a Push or a Close: drain the queue with Pop,
// then check Done.
func (q *Queue[T]) Ready() <-chan struct{} { return q.ready }

// Close refuses every later Push. What is queued can still be popped.
func (q *Queue[T]) Close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.signal()
}

// Done reports whether the queue is closed and drained: nothing will come
// out of it any more.
func (q *Queue[T]) Done() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.closed && q.n == 0
}

func (q *Queue[T]) signal() {
	select {
	case q.ready <- struct{}{}:
	default: // a signal is pending already
	}
}
