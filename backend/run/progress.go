package run

import (
	"sync"
	"time"

	"steward/backend/event"
	"steward/backend/tool"
)

// progressEvery is the least time between two tool.progress events of one
// call. A server may report thousands of times a second (one report per
// file of a copy); each event is a durable row and a message to every
// watcher, where a person reads a bar that moves a few times a second at
// most. Four a second is as smooth as the eye asks of a bar and keeps a
// call's progress to about 14,400 rows an hour whatever the server sends.
const progressEvery = 250 * time.Millisecond

// progressNotes records what a call's tool reports of its progress
// (tool.Env.Progress) as tool.progress events on the call's node, through
// emit like the engine's own: redacted, folded, handed to the store at
// once so that watchers see it move. It throttles: the first report is
// written at once; later ones at most once per progressEvery, and a report
// that comes sooner waits for the interval's end, replaced by any that
// comes after it (the latest says where the call stands; Skipped counts
// those left out). When the call returns, the report still waiting is
// written, so the log always ends with the last one heard; after that
// nothing is: a tool the deadline left behind must not write to the log
// after its node ended.
type progressNotes struct {
	write func(tool.Progress) // emits one event; called with mu held

	mu      sync.Mutex
	ended   bool
	last    time.Time      // when the last event was written; zero before the first
	pending *tool.Progress // the latest report not yet written
	skipped int            // the reports since the last event that were replaced, never to be written
	timer   *time.Timer    // writes pending at the interval's end; nil when none waits
}

func (n *progressNotes) note(p tool.Progress) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.ended {
		return
	}
	if wait := progressEvery - time.Since(n.last); !n.last.IsZero() && wait > 0 {
		if n.pending != nil {
			n.skipped++ // the one it replaces is never written
		}
		n.pending = &p
		if n.timer == nil {
			n.timer = time.AfterFunc(wait, n.tick)
		}
		return
	}
	// The interval is over and the tick that would write the waiting
	// report has not run yet: this one, the later, replaces it now.
	if n.pending != nil {
		n.skipped++
	}
	if n.timer != nil {
		n.timer.Stop()
		n.timer = nil
	}
	n.writeLocked(p)
}

// tick writes the report that waited for the interval's end.
func (n *progressNotes) tick() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.timer = nil
	if n.ended || n.pending == nil {
		return
	}
	n.writeLocked(*n.pending)
}

// end writes the report still waiting, if any, and stops the notes. The
// owner calls it when the call returns; a tick that fires after it writes
// nothing.
func (n *progressNotes) end() {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.ended {
		return
	}
	if n.timer != nil {
		n.timer.Stop()
		n.timer = nil
	}
	if n.pending != nil {
		n.writeLocked(*n.pending)
	}
	n.ended = true
}

// writeLocked emits p; n.mu must be held.
func (n *progressNotes) writeLocked(p tool.Progress) {
	p.Skipped = n.skipped
	n.pending, n.skipped, n.last = nil, 0, time.Now()
	n.write(p)
}

// newProgressNotes returns the notes of a's call node.
func newProgressNotes(a *active, node string) *progressNotes {
	return &progressNotes{write: func(p tool.Progress) {
		a.mu.Lock()
		a.emitLocked(event.ToolProgress, node, p)
		a.flushLocked()
		a.mu.Unlock()
	}}
}
