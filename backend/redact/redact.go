// Package redact removes secrets from text before anything leaves the
// machine (a recording, an OTLP export): the exact values it is given (the
// configured provider keys, the server token), Authorization header values,
// strings shaped like API keys, KEY=value assignments of secret-named keys,
// and the credentials of URLs. Each secret becomes "[REDACTED:<kind>]".
//
// A Redactor is made per export and counts what it replaced, by kind and by
// the "where" label its caller gives (an event, a blob, the manifest); the
// counts go into the export's manifest. Neither the counts nor anything
// else the package returns or logs ever holds a secret value. A Live is the
// same checks for the life of a process: the engine passes what comes back
// from providers, tools and web pages through it before recording or
// logging it (see live.go).
//
// Detection errs on the side of redacting: a random-looking value after a
// secret-named key is removed even if it was harmless. It stays cheap where
// there is nothing to find: every detector first looks for a literal anchor
// with a vectorised search (a rare run of a configured value, the '-' or
// '_' of a key prefix, "Bearer", ':' and '=') and only then examines the
// bytes around it, so ordinary prose costs a few scans and no regexp.
package redact

import (
	"slices"
	"strings"
	"sync"
)

// Kinds of secrets, as written in "[REDACTED:<kind>]" and in Finding.Kind.
const (
	// KindConfigured is a value given to New: a provider key, the server token.
	KindConfigured = "configured"
	// KindLearned is a value found as a secret elsewhere in the same export
	// (see Learning), removed where nothing else marks it as one.
	KindLearned = "learned"
	// KindAuthorization is the value of an Authorization or
	// Proxy-Authorization header, or a "Bearer <token>" anywhere.
	KindAuthorization = "authorization"
	// KindURLCredentials is the user:password of a URL.
	KindURLCredentials = "url_credentials"
	// KindAPIKey is a string shaped like a known API key (sk-..., ghp_...,
	// AKIA...) or the value of a secret-named assignment (API_KEY=...).
	KindAPIKey = "api_key"
	// KindBinary counts configured values found in a binary file, where
	// pattern detection is skipped (hence the name): they are masked in
	// place with as many '*', so the file keeps its size and layout.
	KindBinary = "skipped binary"
)

// kind indexes the counters of one call, so that a call that finds nothing
// allocates nothing.
type kind uint8

// Kinds by priority: when two detections overlap, the union is replaced
// and named after the earlier kind, the more certain one.
const (
	kConfigured kind = iota
	kLearned
	kAuthorization
	kURLCredentials
	kAPIKey
	kBinary
	numKinds
)

var kindNames = [numKinds]string{KindConfigured, KindLearned, KindAuthorization, KindURLCredentials, KindAPIKey, KindBinary}

// minSecretLen is the shortest configured value searched for: shorter ones
// ("test", "admin", a PIN) match ordinary text far too often.
const minSecretLen = 8

// Redactor removes secrets from text. It is safe for concurrent use. The
// zero Redactor has no configured values but detects every other kind.
type Redactor struct {
	// needles are the configured values and their escaped forms, longest
	// first; raw are the values alone, for binary files.
	needles []needle
	raw     []string
	skipped int

	mu     sync.Mutex
	counts map[findingKey]int
	// learned, when not nil, collects every secret the detectors find
	// (see Learning).
	learned map[string]bool
}

type findingKey struct{ kind, where string }

// New returns a redactor for these exact secret values (configured provider
// keys, the server token, ...). Surrounding white space is trimmed and empty
// values are dropped; values shorter than 8 bytes are ignored (too many
// false hits) and counted by Skipped.
func New(secrets ...string) *Redactor {
	r := &Redactor{}
	seen := map[string]bool{}
	for _, s := range secrets {
		s = strings.TrimSpace(s)
		switch {
		case s == "" || seen[s]:
			continue
		case len(s) < minSecretLen:
			r.skipped++
			seen[s] = true
			continue
		}
		seen[s] = true
		r.raw = append(r.raw, s)
		for _, v := range variants(s) {
			if !slices.ContainsFunc(r.needles, func(n needle) bool { return n.s == v }) {
				r.needles = append(r.needles, newNeedle(v))
			}
		}
	}
	// Longest first, whatever order they came in: overlapping finds are
	// merged anyway, but the work done is then the same for the same values.
	slices.SortStableFunc(r.raw, func(a, b string) int { return len(b) - len(a) })
	slices.SortStableFunc(r.needles, func(a, b needle) int { return len(b.s) - len(a.s) })
	return r
}

// Skipped returns how many values given to New were ignored because they
// are shorter than 8 bytes. It never says which.
func (r *Redactor) Skipped() int { return r.skipped }

// String returns s with every secret replaced by "[REDACTED:<kind>]" and
// counts what it replaced under where.
func (r *Redactor) String(where string, s string) string {
	out, t := r.redact(s, nil)
	r.record(where, &t)
	return out
}

// tally counts the secrets of one call by kind.
type tally [numKinds]int

func (t *tally) empty() bool { return *t == tally{} }

func (t *tally) addAll(o *tally) {
	for k, n := range o {
		t[k] += n
	}
}

// record adds the counts of one call to the report.
func (r *Redactor) record(where string, t *tally) {
	if t.empty() {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.counts == nil {
		r.counts = map[findingKey]int{}
	}
	for k, n := range t {
		if n > 0 {
			r.counts[findingKey{kindNames[k], where}] += n
		}
	}
}

// span is a detected secret: s[start:end].
type span struct {
	start, end int
	kind       kind
}

// redact returns s without its secrets and how many of each kind it
// replaced. spans is a scratch buffer the caller may reuse (nil is fine).
// When nothing is found it returns s itself.
func (r *Redactor) redact(s string, spans []span) (string, tally) {
	spans = r.detect(s, spans[:0])
	r.learn(s, spans)
	return replace(s, spans)
}

// Learning returns a redactor with r's values that remembers every secret
// its detectors find. Run it over everything an export holds, then make
// the export's redactor with Learned: a value found once as a secret (a
// key a command printed as AWS_SECRET_ACCESS_KEY=...) is then removed
// wherever else it appears, even where nothing marks it as one (the
// command line that printed it).
func (r *Redactor) Learning() *Redactor {
	return &Redactor{needles: r.needles, raw: r.raw, skipped: r.skipped, learned: map[string]bool{}}
}

// WithLearned returns a redactor with r's configured values that also
// removes learned, the values a Learning redactor found (reported as kind
// learned where no detector would have found them).
func (r *Redactor) WithLearned(learned []string) *Redactor {
	out := New(r.raw...)
	for _, s := range learned {
		s = strings.TrimSpace(s)
		if len(s) < minSecretLen || slices.Contains(out.raw, s) {
			continue
		}
		out.raw = append(out.raw, s)
		for _, v := range variants(s) {
			if !slices.ContainsFunc(out.needles, func(n needle) bool { return n.s == v }) {
				n := newNeedle(v)
				n.kind = kLearned
				out.needles = append(out.needles, n)
			}
		}
	}
	slices.SortStableFunc(out.raw, func(a, b string) int { return len(b) - len(a) })
	slices.SortStableFunc(out.needles, func(a, b needle) int { return len(b.s) - len(a.s) })
	return out
}

// Learned returns the secrets a Learning redactor found that are not among
// its configured values, longest first.
func (r *Redactor) Learned() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, 0, len(r.learned))
	for v := range r.learned {
		if !slices.Contains(r.raw, v) {
			out = append(out, v)
		}
	}
	slices.SortFunc(out, func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
	return out
}

// learn notes the secrets of s that spans found, when r is learning.
// Markers and short finds are not values worth searching for elsewhere.
func (r *Redactor) learn(s string, spans []span) {
	if r.learned == nil || len(spans) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, sp := range spans {
		v := strings.TrimSpace(s[sp.start:sp.end])
		if sp.kind != kConfigured && len(v) >= minSecretLen && !isMarker(v) {
			r.learned[v] = true
		}
	}
}

// detect appends every secret found in s to spans, in no particular order.
func (r *Redactor) detect(s string, spans []span) []span {
	if len(s) < 8 {
		// Too short to hold any secret any detector accepts.
		return spans
	}
	spans = r.findConfigured(s, spans)
	spans = findKeyShapes(s, spans)
	spans = findBearer(s, spans)
	spans = findPrivateKeys(s, spans)
	// Assignments, Authorization headers and URL credentials share the
	// separators they hang on (':' and '='): one pass finds all three.
	spans = findAtSeparators(s, spans)
	return spans
}

// merge sorts spans and merges overlapping ones: their union is replaced,
// so no part of either secret survives, and it takes the more certain
// kind. A span that is already a marker is dropped: text redacted twice
// (an event, then the manifest that quotes it) is counted once.
func merge(s string, spans []span) []span {
	if len(spans) == 0 {
		return spans
	}
	sortSpans(spans)
	merged := spans[:1]
	for _, sp := range spans[1:] {
		last := &merged[len(merged)-1]
		if sp.start < last.end {
			last.end = max(last.end, sp.end)
			last.kind = min(last.kind, sp.kind)
			continue
		}
		merged = append(merged, sp)
	}
	return slices.DeleteFunc(merged, func(sp span) bool { return isMarker(s[sp.start:sp.end]) })
}

// replace replaces each of spans, merged, with its marker.
func replace(s string, spans []span) (string, tally) {
	var t tally
	spans = merge(s, spans)
	if len(spans) == 0 {
		return s, t
	}
	var b strings.Builder
	b.Grow(len(s) + 16*len(spans))
	prev := 0
	for _, sp := range spans {
		b.WriteString(s[prev:sp.start])
		writeMarker(&b, sp.kind)
		prev = sp.end
		t[sp.kind]++
	}
	b.WriteString(s[prev:])
	return b.String(), t
}

func writeMarker(b *strings.Builder, k kind) {
	b.WriteString("[REDACTED:")
	b.WriteString(kindNames[k])
	b.WriteByte(']')
}

// isMarker reports whether w is a replacement this package wrote.
func isMarker(w string) bool {
	kind, ok := strings.CutPrefix(w, "[REDACTED:")
	return ok && slices.Contains(kindNames[:], strings.TrimSuffix(kind, "]")) && strings.HasSuffix(kind, "]")
}

// sortSpans orders spans by start, longest first.
func sortSpans(spans []span) {
	slices.SortFunc(spans, func(a, b span) int {
		if a.start != b.start {
			return a.start - b.start
		}
		return b.end - a.end
	})
}
