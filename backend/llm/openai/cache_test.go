package openai

import (
	"context"
	"net/http"
	"testing"

	"steward/backend/llm"
	"steward/backend/llm/llmtest"
)

// A provider that reuses the encodings of its last request sends, byte for
// byte, the body a new provider sends for the same request, whatever changed
// between the calls (what the body must hold is pinned by TestRequestMapping
// and TestRequestImages); and a request it cannot send keeps nothing.
func TestCachedBodiesMatchFresh(t *testing.T) {
	t.Parallel()
	srv, seen := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		sse(w, chunk(`{"content":"ok"}`, "stop"))
	})
	warm := newProvider(srv)
	var req llm.Request
	for _, e := range llmtest.Edits() {
		e.Apply(&req)
		if _, err := warm.Stream(context.Background(), req, nil); err != nil {
			t.Fatalf("%s: Stream: %v", e.Name, err)
		}
		if _, err := newProvider(srv).Stream(context.Background(), req, nil); err != nil {
			t.Fatalf("%s: Stream: %v", e.Name, err)
		}
		got := seen()
		if cached, fresh := got[len(got)-2].raw, got[len(got)-1].raw; cached != fresh {
			t.Errorf("%s: the body sent with the cached encodings\n%s\ndiffers from the fresh one\n%s", e.Name, cached, fresh)
		}
		// A bad request in between changes nothing of what the next reuses.
		bad := req
		bad.Messages = append(bad.Messages[:len(bad.Messages):len(bad.Messages)], llm.Message{Role: "robot"})
		if _, err := warm.Stream(context.Background(), bad, nil); err == nil {
			t.Fatalf("%s: a bad role was sent", e.Name)
		}
	}
	if n := len(seen()); n != 2*len(llmtest.Edits()) {
		t.Errorf("the server saw %d requests, want %d", n, 2*len(llmtest.Edits()))
	}
}

// A step costs the provider in proportion to what is new, not to the whole
// history: a call with 1,001 messages, two of them new, allocates about as
// much as one with 21 (encoding the whole history on every call, as the SDK
// does, allocated 18 times as much). Allocations are counted rather than
// time measured, so the test holds on a loaded machine; it is not parallel,
// so that no other test allocates meanwhile.
func TestStreamCostFollowsWhatIsNew(t *testing.T) {
	srv := benchServer(t)
	allocs := func(steps int) float64 {
		p := newProvider(srv)
		prefix := llmtest.History(steps - 1)
		i := 0
		return testing.AllocsPerRun(20, func() {
			i++
			req := llm.Request{System: llmtest.System, Tools: llmtest.Tools(), MaxTokens: 4096,
				Messages: append(prefix[:len(prefix):len(prefix)], llmtest.Step(steps+i)...)}
			if _, err := p.Stream(context.Background(), req, nil); err != nil {
				t.Fatal(err)
			}
		})
	}
	small, large := allocs(10), allocs(500)
	t.Logf("allocations per call: %.0f with 21 messages, %.0f with 1,001", small, large)
	if large > 2*small {
		t.Errorf("a call with 1,001 messages allocates %.0f times, %.1f times as much as one with 21 (%.0f): the whole history is encoded again",
			large, large/small, small)
	}
}
