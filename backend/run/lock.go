package run

import "sync"

// runLocks holds one command lock per run. A run's commands apply one at a
// time under it (so a repeated command_id finds the first answer), and so
// do its file restores, which check the run's status and then write: every
// move of a run into a status that acts (a continue, a step, a retry, a
// skip, the answer to its approval) takes the lock, so a restore that
// found the run stopped writes before the run can act again. Commands of
// different runs do not wait on each other. A run's lock exists while
// someone holds or waits for it.
type runLocks struct {
	mu sync.Mutex
	m  map[string]*runLock
}

type runLock struct {
	mu   sync.Mutex
	refs int // holders and waiters
}

// lock takes run id's lock and returns its release.
func (l *runLocks) lock(id string) (unlock func()) {
	l.mu.Lock()
	if l.m == nil {
		l.m = map[string]*runLock{}
	}
	rl := l.m[id]
	if rl == nil {
		rl = &runLock{}
		l.m[id] = rl
	}
	rl.refs++
	l.mu.Unlock()
	rl.mu.Lock()
	return func() {
		rl.mu.Unlock()
		l.mu.Lock()
		if rl.refs--; rl.refs == 0 {
			delete(l.m, id)
		}
		l.mu.Unlock()
	}
}
