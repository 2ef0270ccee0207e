package redact

import (
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Live is a Redactor for the whole life of a process: the engine passes
// every text that comes back from a provider, a tool or a web page through
// it before the text becomes an event, an error or a log line. Its
// configured values are looked up at each call, since they change while the
// program runs (a key saved in Settings), and it keeps every value it was
// ever given: a run started with the old key may still get it echoed back
// after the person has replaced it.
//
// Live keeps no counts (a process has no manifest to write them to). It is
// safe for concurrent use.
type Live struct {
	secrets func() []string

	mu  sync.Mutex // serialises rebuilds
	cur atomic.Pointer[liveSet]
}

// liveSet is the redactor of the values known so far; never changed once
// published.
type liveSet struct {
	r     *Redactor
	known map[string]bool // every value given, trimmed, short ones included
	vals  []string
}

// NewLive returns a Live that asks secrets for the values in force at each
// call (nil asks nothing: only the detectors run).
func NewLive(secrets func() []string) *Live {
	if secrets == nil {
		secrets = func() []string { return nil }
	}
	l := &Live{secrets: secrets}
	l.cur.Store(&liveSet{r: New(), known: map[string]bool{}})
	return l
}

// redactor returns the redactor of every value known, including those in
// force now.
func (l *Live) redactor() *Redactor {
	set := l.cur.Load()
	vals := l.secrets()
	for _, v := range vals {
		if v = strings.TrimSpace(v); v != "" && !set.known[v] {
			return l.add(vals).r
		}
	}
	return set.r
}

// add publishes a set with vals added to the known ones.
func (l *Live) add(vals []string) *liveSet {
	l.mu.Lock()
	defer l.mu.Unlock()
	old := l.cur.Load()
	next := &liveSet{known: make(map[string]bool, len(old.known)+len(vals)), vals: slices.Clone(old.vals)}
	for v := range old.known {
		next.known[v] = true
	}
	for _, v := range vals {
		if v = strings.TrimSpace(v); v != "" && !next.known[v] {
			next.known[v] = true
			next.vals = append(next.vals, v)
		}
	}
	next.r = New(next.vals...)
	l.cur.Store(next)
	return next
}

// String returns s with every secret replaced by "[REDACTED:<kind>]", or s
// itself when it holds none.
func (l *Live) String(s string) string {
	out, _ := l.redactor().redact(s, nil)
	return out
}

// Secrets returns every value Live was given so far, those in force now
// included: what an export must remove as well.
func (l *Live) Secrets() []string {
	l.redactor()
	return slices.Clone(l.cur.Load().vals)
}

// Writer returns a writer that redacts each write before it passes it to
// w: a log.Logger writes each entry whole, so the lines of a log are
// redacted one by one.
func (l *Live) Writer(w io.Writer) io.Writer { return &liveWriter{l: l, w: w} }

type liveWriter struct {
	l *Live
	w io.Writer
}

func (lw *liveWriter) Write(p []byte) (int, error) {
	s := string(p)
	out := lw.l.String(s)
	if _, err := io.WriteString(lw.w, out); err != nil {
		return 0, err
	}
	return len(p), nil // all of p was taken, whatever its redacted length
}
