package run_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"steward/backend/agent"
	"steward/backend/event"
	"steward/backend/llm/openai"
	"steward/backend/run"
)

// modelServer is a fake OpenAI-compatible server: its nth answer (from 1)
// is answer(n, ...). It records when each request arrived.
type modelServer struct {
	srv *httptest.Server
	mu  sync.Mutex
	at  []time.Time
}

func newModelServer(t *testing.T, answer func(t *testing.T, n int, w http.ResponseWriter)) *modelServer {
	t.Helper()
	s := &modelServer{}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		s.mu.Lock()
		s.at = append(s.at, time.Now())
		n := len(s.at)
		s.mu.Unlock()
		if r.URL.Path != "/v1/chat/completions" {
			t.Errorf("request to %s", r.URL.Path)
		}
		answer(t, n, w)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *modelServer) requests() []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Time(nil), s.at...)
}

// models resolves every agent to the real OpenAI provider talking to s.
func (s *modelServer) models() *models {
	p := openai.New(openai.Config{BaseURL: s.srv.URL + "/v1", APIKey: "x", Model: "m", HTTPClient: s.srv.Client()})
	return &models{resolve: func(context.Context, agent.Agent) (run.Model, error) {
		return run.Model{Provider: p, Name: "openai", Model: "m"}, nil
	}}
}

// chunkJSON is one Chat Completions stream chunk.
func chunkJSON(delta, finish string) string {
	fr := "null"
	if finish != "" {
		fr = fmt.Sprintf("%q", finish)
	}
	return fmt.Sprintf(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"m","choices":[{"index":0,"delta":%s,"finish_reason":%s}]}`, delta, fr)
}

// answerText streams text in two pieces, as the API does, and ends the
// answer.
func answerText(w http.ResponseWriter, text string) {
	w.Header().Set("Content-Type", "text/event-stream")
	f := w.(http.Flusher)
	half := len(text) / 2
	for _, part := range []string{text[:half], text[half:]} {
		fmt.Fprintf(w, "data: %s\n\n", chunkJSON(fmt.Sprintf(`{"content":%q}`, part), ""))
		f.Flush()
	}
	fmt.Fprintf(w, "data: %s\n\n", chunkJSON(`{}`, "stop"))
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// answerError answers status with an OpenAI error body and the headers.
func answerError(w http.ResponseWriter, status int, msg string, header ...string) {
	for i := 0; i+1 < len(header); i += 2 {
		w.Header().Set(header[i], header[i+1])
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"error":{"message":%q,"type":"error"}}`, msg)
}

// answerDropped starts an answer, then drops the connection mid-stream.
func answerDropped(t *testing.T, w http.ResponseWriter, partial string) {
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprintf(w, "data: %s\n\n", chunkJSON(fmt.Sprintf(`{"content":%q}`, partial), ""))
	w.(http.Flusher).Flush()
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		t.Errorf("hijack: %v", err)
		return
	}
	conn.Close()
}

// TestModelCallRetries drives runs through the real OpenAI provider against
// a server that fails in the ways a retry may or may not cure.
func TestModelCallRetries(t *testing.T) {
	t.Parallel()
	const rateLimit = "Rate limit reached for requests"
	const serverError = "The server had an error while processing your request."
	type attempt struct {
		n    int
		kind string
		in   string // in its error
	}
	tests := []struct {
		name     string
		retries  int // Config.ModelRetries; 0 is the default, 2
		answer   func(t *testing.T, n int, w http.ResponseWriter)
		requests int
		status   run.Status
		attempts []attempt
		wait     func(t *testing.T, i int, ms int64) // checks the wait before retry i+1
		errs     []string                            // in the run's error, when it failed
	}{
		{
			name: "429 with Retry-After, then an answer",
			answer: func(t *testing.T, n int, w http.ResponseWriter) {
				if n == 1 {
					answerError(w, http.StatusTooManyRequests, rateLimit, "Retry-After", "1")
					return
				}
				answerText(w, "Hello there.")
			},
			requests: 2, status: run.Completed,
			attempts: []attempt{{1, "rate_limited", rateLimit}},
			wait: func(t *testing.T, _ int, ms int64) {
				if ms != 1000 {
					t.Errorf("retry_in_ms = %d, want the server's 1000", ms)
				}
			},
		},
		{
			name: "500 twice, then an answer",
			answer: func(t *testing.T, n int, w http.ResponseWriter) {
				if n <= 2 {
					answerError(w, http.StatusInternalServerError, serverError, "Retry-After-Ms", "5")
					return
				}
				answerText(w, "Hello there.")
			},
			requests: 3, status: run.Completed,
			attempts: []attempt{{1, "server_error", serverError}, {2, "server_error", serverError}},
			wait: func(t *testing.T, _ int, ms int64) {
				if ms != 5 {
					t.Errorf("retry_in_ms = %d, want the server's 5", ms)
				}
			},
		},
		{
			name: "500 three times",
			answer: func(t *testing.T, n int, w http.ResponseWriter) {
				answerError(w, http.StatusInternalServerError, serverError, "Retry-After-Ms", "5")
			},
			requests: 3, status: run.Failed,
			attempts: []attempt{{1, "server_error", serverError}, {2, "server_error", serverError}},
			errs:     []string{serverError, "500"},
		},
		{
			name:    "500 without retries",
			retries: -1,
			answer: func(t *testing.T, n int, w http.ResponseWriter) {
				answerError(w, http.StatusInternalServerError, serverError)
			},
			requests: 1, status: run.Failed,
			errs: []string{serverError, "500"},
		},
		{
			name: "400",
			answer: func(t *testing.T, n int, w http.ResponseWriter) {
				answerError(w, http.StatusBadRequest, "Invalid value for 'model': 'm'.")
			},
			requests: 1, status: run.Failed,
			errs: []string{"Invalid value for 'model': 'm'.", "400"},
		},
		{
			name: "connection dropped mid-stream, then an answer",
			answer: func(t *testing.T, n int, w http.ResponseWriter) {
				if n == 1 {
					answerDropped(t, w, "Hel")
					return
				}
				answerText(w, "Hello there.")
			},
			requests: 2, status: run.Completed,
			attempts: []attempt{{1, "unavailable", "lost connection to model server"}},
			wait: func(t *testing.T, _ int, ms int64) {
				// No Retry-After: 500 ms, ±25%.
				if ms < 375 || ms > 625 {
					t.Errorf("retry_in_ms = %d, want 500 ± 25%%", ms)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newModelServer(t, tt.answer)
			h := newHarness(t, srv.models())
			if tt.retries != 0 {
				h.svc = h.service(t, func(c *run.Config) { c.ModelRetries = tt.retries })
			}
			r := h.start(t, testAgent(), "hello")
			end := h.waitEnd(t, r.ID, 10*time.Second)
			if end.Status != string(tt.status) {
				t.Errorf("run = %+v, want %s", end, tt.status)
			}
			at := srv.requests()
			if len(at) != tt.requests {
				t.Errorf("the server saw %d requests, want %d", len(at), tt.requests)
			}
			evs := h.events(t, r.ID)
			checkLog(t, evs)

			var got []attempt
			var waits []int64
			text := "" // streamed since the last failed attempt
			for _, ev := range evs {
				switch ev.Type {
				case event.LLMAttempt:
					d := decode[event.LLMAttemptData](t, ev)
					if ev.NodeID != "n3" {
						t.Errorf("llm.attempt on %s", ev.NodeID)
					}
					a := attempt{d.Attempt, d.Kind, ""}
					for _, want := range tt.attempts {
						if want.n == d.Attempt && strings.Contains(d.Error, want.in) {
							a.in = want.in
						}
					}
					got = append(got, a)
					waits = append(waits, d.RetryInMS)
					text = "" // what the failed attempt streamed is void
				case event.LLMDelta:
					text += decode[event.LLMDeltaData](t, ev).Text
				}
			}
			if diff := cmp.Diff(tt.attempts, got, cmp.AllowUnexported(attempt{})); diff != "" {
				t.Errorf("attempts (-want +got):\n%s", diff)
			}
			for i, ms := range waits {
				if tt.wait != nil {
					tt.wait(t, i, ms)
				}
				// The engine waited as long as it said before the next
				// request.
				if i+1 < len(at) {
					if gap := at[i+1].Sub(at[i]); gap < time.Duration(ms)*time.Millisecond {
						t.Errorf("retry %d came %v after the failure, before the %d ms announced", i+1, gap, ms)
					}
				}
			}
			llmNode := finished(t, evs, "n3")
			switch tt.status {
			case run.Completed:
				if llmNode.Status != event.NodeSucceeded || llmNode.Text != "Hello there." || text != llmNode.Text {
					t.Errorf("model node %+v; streamed after the last failure %q", llmNode, text)
				}
			case run.Failed:
				for _, w := range tt.errs {
					if !strings.Contains(end.Error, w) || !strings.Contains(llmNode.Error, w) {
						t.Errorf("run error %q, node error %q: want both to contain %q", end.Error, llmNode.Error, w)
					}
				}
			}
		})
	}
}
