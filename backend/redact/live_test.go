package redact_test

import (
	"log"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"steward/backend/redact"
)

// TestLiveFollowsTheKeysInForce: a key saved while the program runs is
// redacted from the next call on, and the key it replaced still is.
func TestLiveFollowsTheKeysInForce(t *testing.T) {
	t.Parallel()
	first := fake(21, 30, "abcdefghijklmnopqrstuvwxyz0123456789")
	second := fake(22, 30, "abcdefghijklmnopqrstuvwxyz0123456789")
	var inForce atomic.Value
	inForce.Store([]string{first})
	l := redact.NewLive(func() []string { return inForce.Load().([]string) })

	tests := []struct {
		name   string
		keys   []string // in force for this step
		in     string
		want   string
		secret []string // all of them, for Secrets
	}{
		{"the key in force", []string{first}, "echo " + first, "echo [REDACTED:configured]", []string{first}},
		{"not yet given", []string{first}, "echo " + second, "echo " + second, []string{first}},
		{"saved in Settings", []string{second}, "echo " + second, "echo [REDACTED:configured]", []string{first, second}},
		{"the replaced key", []string{second}, "old " + first, "old [REDACTED:configured]", []string{first, second}},
		{"white space is not a value", []string{" " + second + "\n", ""}, "x " + second, "x [REDACTED:configured]", []string{first, second}},
		{"detection still runs", []string{second}, "Authorization: Bearer " + opaqueBearer, "Authorization: Bearer [REDACTED:authorization]", []string{first, second}},
		{"nothing to find", []string{second}, "plain words", "plain words", []string{first, second}},
	}
	for _, tt := range tests { // in order: each step builds on the last
		inForce.Store(tt.keys)
		if got := l.String(tt.in); got != tt.want {
			t.Errorf("%s: String(%q) = %q, want %q", tt.name, tt.in, got, tt.want)
		}
		if got := l.Secrets(); strings.Join(got, ",") != strings.Join(tt.secret, ",") {
			t.Errorf("%s: Secrets() = %q, want %q", tt.name, got, tt.secret)
		}
	}
}

// TestLiveWriterRedactsLogLines: a logger writing through Live writes no
// secret, and its callers see their whole line taken.
func TestLiveWriterRedactsLogLines(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	l := redact.NewLive(func() []string { return []string{serverToken} })
	lg := log.New(l.Writer(&out), "steward: ", 0)
	lg.Printf("tool failed: %s", "token="+serverToken)
	lg.Printf("upstream said: Authorization: Bearer %s", opaqueBearer)
	lg.Printf("nothing here")
	want := "steward: tool failed: token=[REDACTED:configured]\n" +
		"steward: upstream said: Authorization: Bearer [REDACTED:authorization]\n" +
		"steward: nothing here\n"
	if out.String() != want {
		t.Errorf("log:\n%s\nwant:\n%s", out.String(), want)
	}
	line := []byte("x " + serverToken + "\n")
	if n, err := l.Writer(&out).Write(line); n != len(line) || err != nil {
		t.Errorf("Write = %d, %v; want %d, nil", n, err, len(line))
	}
}

// TestLiveConcurrent: keys that change while many goroutines redact are
// never missed once in force (run with -race).
func TestLiveConcurrent(t *testing.T) {
	t.Parallel()
	keys := make([]string, 8)
	for i := range keys {
		keys[i] = fake(uint64(30+i), 24, "abcdefghijklmnopqrstuvwxyz0123456789")
	}
	var n atomic.Int64
	n.Store(1)
	l := redact.NewLive(func() []string { return keys[:n.Load()] })
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 200 {
				k := int(n.Load())
				if g == 0 && i%25 == 0 && k < len(keys) {
					n.Add(1)
				}
				s := "v=" + keys[k-1] + " end"
				if got := l.String(s); strings.Contains(got, keys[k-1]) {
					t.Errorf("key %d in force but not redacted: %q", k-1, got)
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestLiveLearns: a value a detector found once is removed from later texts
// where nothing marks it as a secret, and handed to exports by Learned.
func TestLiveLearns(t *testing.T) {
	t.Parallel()
	l := redact.NewLive(nil)
	if got := l.String("printf %s " + awsSecret); got != "printf %s "+awsSecret {
		t.Fatalf("a bare value was redacted before it was learned: %q", got)
	}
	if got := l.String("AWS_SECRET_ACCESS_KEY=" + awsSecret); got != "AWS_SECRET_ACCESS_KEY=[REDACTED:api_key]" {
		t.Errorf("the assignment: %q", got)
	}
	if got := l.String("the key was " + awsSecret + "."); got != "the key was [REDACTED:learned]." {
		t.Errorf("the value alone, after it was learned: %q", got)
	}
	if got := l.Learned(); len(got) != 1 || got[0] != awsSecret {
		t.Errorf("Learned() = %q, want the one value", got)
	}
	if got := l.Secrets(); len(got) != 0 {
		t.Errorf("Secrets() = %q: a learned value is not a configured one", got)
	}
	// An export made with what Live learned removes it from text written
	// before it was learned.
	r := redact.New(l.Secrets()...).WithLearned(l.Learned())
	if got := r.String("event", "printf %s "+awsSecret); got != "printf %s [REDACTED:learned]" {
		t.Errorf("export: %q", got)
	}
}
