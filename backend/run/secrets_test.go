package run_test

// Secrets that come back from outside (issue 14, §5): a model server that
// echoes the key, a tool whose output or failure holds one. None may be
// written: not in an event, not in the run's error, not in the log, and the
// model is not sent it either.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"steward/backend/event"
	"steward/backend/llm"
	"steward/backend/llm/anthropic"
	"steward/backend/llm/openai"
	"steward/backend/redact"
	"steward/backend/run"
	"steward/backend/tool"
)

// Secret values without the shape of any known key, so that only the
// configured values can find them: a test that passes proves they reach
// the redactor.
const (
	echoedKey  = "k3y0f7h3p3rs0n0nly9fjw2mzq84xv"
	toolSecret = "t0k3n1nAf1l3wq8e7r6t5y4u3i2o1p"
)

// logs captures what the engine logs.
type logs struct {
	mu    sync.Mutex
	lines []string
}

func (l *logs) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

func (l *logs) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// echoServer answers every request like the provider's API refusing a key,
// and quotes the request's headers in its message as a careless server (or
// proxy) does: first a 503, which the engine retries (an llm.attempt),
// then a 401, which fails the call and the run.
func echoServer(t *testing.T, provider string) *httptest.Server {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		echo := fmt.Sprintf("Authorization: %s; x-api-key: %s; your key %s is not valid",
			r.Header.Get("Authorization"), r.Header.Get("X-Api-Key"), strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
		status := http.StatusUnauthorized
		if n.Add(1) == 1 {
			status = http.StatusServiceUnavailable
			w.Header().Set("Retry-After-Ms", "1")
		}
		msg, _ := json.Marshal(echo)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		switch provider {
		case "openai":
			fmt.Fprintf(w, `{"error":{"message":%s,"type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`, msg)
		case "anthropic":
			fmt.Fprintf(w, `{"type":"error","error":{"type":"authentication_error","message":%s}}`, msg)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestProviderEchoedKeyIsNeverWritten(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		provider func(base string) llm.Provider
	}{
		{"openai", func(base string) llm.Provider {
			return openai.New(openai.Config{APIKey: echoedKey, BaseURL: base + "/v1", Model: "gpt-test"})
		}},
		{"anthropic", func(base string) llm.Provider {
			return anthropic.New(anthropic.Config{APIKey: echoedKey, BaseURL: base, Model: "claude-test"})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := echoServer(t, tt.name)
			h := newHarness(t, fixed(tt.provider(srv.URL)))
			var log logs
			svc := h.service(t, func(c *run.Config) {
				c.Logf = log.logf
				c.Redact = redact.NewLive(func() []string { return []string{echoedKey} }).String
			})
			r, err := svc.Start(context.Background(), run.StartParams{Agent: testAgent(), Instructions: "hello", Workspace: h.ws})
			if err != nil {
				t.Fatal(err)
			}
			<-svc.Done(r.ID)
			end, err := h.st.GetRun(context.Background(), r.ID)
			if err != nil {
				t.Fatal(err)
			}
			if end.Status != string(run.Failed) || !strings.Contains(end.Error, "[REDACTED:configured]") {
				t.Errorf("run ended %s with error %q, want failed and the key redacted", end.Status, end.Error)
			}
			if strings.Contains(end.Error, echoedKey) {
				t.Errorf("the run's error holds the key: %q", end.Error)
			}
			evs := h.events(t, r.ID)
			attempts := 0
			for _, ev := range evs {
				if strings.Contains(string(ev.Data), echoedKey) {
					t.Errorf("event %d (%s) holds the key: %s", ev.Seq, ev.Type, ev.Data)
				}
				if ev.Type == event.LLMAttempt {
					attempts++
				}
			}
			if attempts != 1 {
				t.Errorf("%d llm.attempt events, want 1 (the 503 is retried once)", attempts)
			}
			if strings.Contains(log.String(), echoedKey) {
				t.Errorf("the log holds the key:\n%s", log.String())
			}
		})
	}
}

// TestToolSecretsAreRedacted: what a tool returns, or fails with, reaches
// the log, the events and the model without the secrets in it.
func TestToolSecretsAreRedacted(t *testing.T) {
	t.Parallel()
	leaky := tool.Must(tool.New("leaky", "Prints the environment.", tool.RiskRead,
		func(context.Context, tool.Env, struct{}) (tool.Result, error) {
			return tool.Result{Output: "HOME=/home/dev\nSTEWARD_TOKEN=" + toolSecret + "\nAWS_SECRET_ACCESS_KEY=" + strings.Repeat("aB3/", 10) + "\n"}, nil
		}))
	broken := tool.Must(tool.New("broken", "Fails inside.", tool.RiskRead,
		func(context.Context, tool.Env, struct{}) (tool.Result, error) {
			return tool.Result{}, errors.New("dial proxy with " + toolSecret + ": refused")
		}))
	rec := &recording{next: scripted(t, `{"turns": [
		{"text": "Looking.", "tool_calls": [{"name": "leaky", "arguments": {}}, {"name": "broken", "arguments": {}}]},
		{"text": "Done."}
	]}`)}
	h := newHarness(t, fixed(rec), leaky, broken)
	var log logs
	svc := h.service(t, func(c *run.Config) {
		c.Logf = log.logf
		c.Redact = redact.NewLive(func() []string { return []string{toolSecret} }).String
	})
	a := testAgent("leaky", "broken")
	r, err := svc.Start(context.Background(), run.StartParams{Agent: a, Instructions: "look around", Workspace: h.ws})
	if err != nil {
		t.Fatal(err)
	}
	<-svc.Done(r.ID)
	evs := h.events(t, r.ID)
	checkLog(t, evs)
	for _, ev := range evs {
		if strings.Contains(string(ev.Data), toolSecret) || strings.Contains(string(ev.Data), "aB3/aB3/") {
			t.Errorf("event %d (%s) holds a secret: %s", ev.Seq, ev.Type, ev.Data)
		}
	}
	if out := finished(t, evs, "n4").Output; !strings.Contains(out, "STEWARD_TOKEN=[REDACTED:") || !strings.Contains(out, "HOME=/home/dev") {
		t.Errorf("leaky's output = %q, want the token redacted and the rest kept", out)
	}
	if strings.Contains(log.String(), toolSecret) || !strings.Contains(log.String(), "[REDACTED:configured]") {
		t.Errorf("the log holds the secret, or lacks the failure:\n%s", log.String())
	}
	reqs := rec.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls, want 2", len(reqs))
	}
	for _, id := range []string{"call_1_0", "call_1_1"} {
		if m := toolMessage(t, reqs[1], id); strings.Contains(m.Text, toolSecret) {
			t.Errorf("the model was sent the secret in the result of %s: %q", id, m.Text)
		}
	}
}

// TestStreamedTextKeepsSecretsWhole: a secret the model streams in pieces
// is redacted in the llm.delta events, which never cut it in two.
func TestStreamedTextKeepsSecretsWhole(t *testing.T) {
	t.Parallel()
	text := "Your key is " + echoedKey + " and it works."
	p := &provider{stream: func(_ context.Context, _ llm.Request, onDelta func(llm.Delta)) (*llm.Response, error) {
		for i := 0; i < len(text); i += 5 {
			onDelta(llm.Delta{Kind: llm.DeltaText, Text: text[i:min(i+5, len(text))]})
		}
		return &llm.Response{Text: text, StopReason: "end_turn"}, nil
	}}
	h := newHarness(t, fixed(p))
	svc := h.service(t, func(c *run.Config) {
		c.DeltaFlush = -1 // every piece is due at once: the worst case
		c.Redact = redact.NewLive(func() []string { return []string{echoedKey} }).String
	})
	r, err := svc.Start(context.Background(), run.StartParams{Agent: testAgent(), Instructions: "tell me", Workspace: h.ws})
	if err != nil {
		t.Fatal(err)
	}
	<-svc.Done(r.ID)
	var streamed strings.Builder
	for _, ev := range h.events(t, r.ID) {
		if ev.Type == event.LLMDelta {
			streamed.WriteString(decode[event.LLMDeltaData](t, ev).Text)
		}
		for i := 6; i <= len(echoedKey); i++ { // no piece of it either
			if strings.Contains(string(ev.Data), echoedKey[:i]) {
				t.Fatalf("event %d (%s) holds %d bytes of the key: %s", ev.Seq, ev.Type, i, ev.Data)
			}
		}
	}
	if want := "Your key is [REDACTED:configured] and it works."; streamed.String() != want {
		t.Errorf("streamed text %q, want %q", streamed.String(), want)
	}
}
