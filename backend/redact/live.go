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
// Live learns as it goes, as an export does (see Learning): a value its
// detectors found once (a key a command printed as AWS_SECRET_ACCESS_KEY=...)
// is removed from every later text, where nothing may mark it as one, and
// Learned hands the values to the exports this process makes, since the
// text that marked them is redacted in the log. Learned values are kept in
// memory only, up to maxLiveLearned.
//
// Live keeps no counts (a process has no manifest to write them to). It is
// safe for concurrent use.
type Live struct {
	secrets func() []string

	mu  sync.Mutex // serialises changes of cur
	cur atomic.Pointer[liveSet]
}

// maxLiveLearned bounds what a process learns: a run that prints secrets
// by the thousand (or a detector's false hits) must not grow it for ever.
// Past it, the detectors still find what they find.
const maxLiveLearned = 1000

// liveSet is the redactor of the values known so far; never changed once
// published.
type liveSet struct {
	r          *Redactor
	known      map[string]bool // every value given or learned, trimmed, short ones included
	configured []string
	learned    []string
}

// NewLive returns a Live that asks secrets for the values in force at each
// call (nil asks nothing: the detectors run alone).
func NewLive(secrets func() []string) *Live {
	if secrets == nil {
		secrets = func() []string { return nil }
	}
	l := &Live{secrets: secrets}
	l.cur.Store(&liveSet{r: New(), known: map[string]bool{}})
	return l
}

// current returns the set of every value known, those in force now
// included.
func (l *Live) current() *liveSet {
	set := l.cur.Load()
	vals := l.secrets()
	for _, v := range vals {
		if v = strings.TrimSpace(v); v != "" && !set.known[v] {
			return l.add(vals, nil)
		}
	}
	return set
}

// add publishes a set with configured and learned values added to the
// known ones.
func (l *Live) add(configured, learned []string) *liveSet {
	l.mu.Lock()
	defer l.mu.Unlock()
	old := l.cur.Load()
	next := &liveSet{known: make(map[string]bool, len(old.known)+len(configured)+len(learned)),
		configured: slices.Clone(old.configured), learned: slices.Clone(old.learned)}
	for v := range old.known {
		next.known[v] = true
	}
	for _, v := range configured {
		if v = strings.TrimSpace(v); v != "" && !next.known[v] {
			next.known[v] = true
			next.configured = append(next.configured, v)
		}
	}
	for _, v := range learned {
		if !next.known[v] && len(next.learned) < maxLiveLearned {
			next.known[v] = true
			next.learned = append(next.learned, v)
		}
	}
	next.r = New(next.configured...).WithLearned(next.learned)
	l.cur.Store(next)
	return next
}

// String returns s with every secret replaced by "[REDACTED:<kind>]", or s
// itself when it holds none.
func (l *Live) String(s string) string {
	if len(s) < minSecretLen {
		return s // too short for any secret: most errors and outputs of a step are ""
	}
	set := l.current()
	spans := set.r.detect(s, nil)
	if len(spans) == 0 {
		return s
	}
	var learned []string
	for _, sp := range spans {
		if sp.kind == kConfigured || sp.kind == kLearned {
			continue
		}
		if v := strings.TrimSpace(s[sp.start:sp.end]); len(v) >= minSecretLen && !isMarker(v) && !set.known[v] {
			learned = append(learned, v)
		}
	}
	if len(learned) > 0 && len(set.learned) < maxLiveLearned {
		l.add(nil, learned)
	}
	out, _ := replace(s, spans)
	return out
}

// Secrets returns every configured value Live was given so far, those in
// force now included: what an export must remove as well.
func (l *Live) Secrets() []string { return slices.Clone(l.current().configured) }

// Learned returns the values Live learned so far (see WithLearned).
func (l *Live) Learned() []string { return slices.Clone(l.cur.Load().learned) }

// Writer returns a writer that redacts each write before it passes it to
// w: a log.Logger writes each entry whole, so the lines of a log are
// redacted one by one.
func (l *Live) Writer(w io.Writer) io.Writer { return &liveWriter{l: l, w: w} }

type liveWriter struct {
	l *Live
	w io.Writer
}

func (lw *liveWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(lw.w, lw.l.String(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil // all of p was taken, whatever its redacted length
}
