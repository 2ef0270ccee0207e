package anthropic

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"steward/backend/llm"
)

func TestHTTPErrors(t *testing.T) {
	t.Parallel()
	apiError := func(typ, msg string) string {
		return fmt.Sprintf(`{"type":"error","error":{"type":%q,"message":%q},"request_id":"req_011CSHoEeqs5C35K2UUqR7Fy"}`, typ, msg)
	}
	tests := []struct {
		name       string
		status     int
		header     map[string]string
		body       string
		kind       llm.ErrorKind
		message    string
		retryAfter time.Duration
		retryable  bool
	}{
		{"400", 400, nil, apiError("invalid_request_error", "max_tokens: Field required"),
			llm.ErrInvalid, "max_tokens: Field required", 0, false},
		{"401", 401, nil, apiError("authentication_error", "invalid x-api-key"),
			llm.ErrAuth, "invalid x-api-key", 0, false},
		{"403", 403, nil, apiError("permission_error", "Your API key does not have permission to use the specified resource."),
			llm.ErrAuth, "Your API key does not have permission to use the specified resource.", 0, false},
		{"404", 404, nil, apiError("not_found_error", "model: claude-nope"), llm.ErrInvalid, "model: claude-nope", 0, false},
		{"413", 413, nil, apiError("request_too_large", "Request exceeds the maximum allowed number of bytes."),
			llm.ErrInvalid, "Request exceeds the maximum allowed number of bytes.", 0, false},
		{"429 with Retry-After", 429, map[string]string{"Retry-After": "3"},
			apiError("rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit"),
			llm.ErrRateLimited, "Number of request tokens has exceeded your per-minute rate limit", 3 * time.Second, true},
		{"429 with retry-after-ms", 429, map[string]string{"Retry-After": "2", "Retry-After-Ms": "1500"},
			apiError("rate_limit_error", "slow down"), llm.ErrRateLimited, "slow down", 1500 * time.Millisecond, true},
		{"500", 500, nil, apiError("api_error", "Internal server error"), llm.ErrServer, "Internal server error", 0, true},
		{"529", 529, nil, apiError("overloaded_error", "Overloaded"), llm.ErrServer, "Overloaded", 0, true},
		{"408", 408, nil, apiError("timeout_error", "Request timed out"), llm.ErrServer, "Request timed out", 0, true},
		// What a proxy in front of the API may answer.
		{"503 plain text", 503, map[string]string{"Content-Type": "text/plain", "Retry-After": "10"}, "upstream connect error\n",
			llm.ErrServer, "upstream connect error", 10 * time.Second, true},
		{"502 empty body", 502, nil, "", llm.ErrServer, "Bad Gateway", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, seen := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.Header().Set("request-id", "req_011CSHoEeqs5C35K2UUqR7Fy")
				for k, v := range tt.header {
					w.Header().Set(k, v)
				}
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.body)
			})
			_, err := newProvider(srv).Stream(context.Background(), simpleRequest(), nil)
			var le *llm.Error
			if !errors.As(err, &le) {
				t.Fatalf("err = %v (%T), want *llm.Error", err, err)
			}
			if le.Kind != tt.kind || le.StatusCode != tt.status || le.Message != tt.message {
				t.Errorf("got kind %q status %d message %q, want %q %d %q", le.Kind, le.StatusCode, le.Message, tt.kind, tt.status, tt.message)
			}
			if le.RetryAfter != tt.retryAfter {
				t.Errorf("RetryAfter = %v, want %v", le.RetryAfter, tt.retryAfter)
			}
			if !strings.Contains(err.Error(), fmt.Sprint(tt.status)) {
				t.Errorf("Error() = %q does not name the status", err.Error())
			}
			if got := llm.Retryable(err); got != tt.retryable {
				t.Errorf("Retryable = %v, want %v", got, tt.retryable)
			}
			// The SDK must not retry: the engine does.
			if n := len(seen()); n != 1 {
				t.Errorf("server saw %d requests, want 1", n)
			}
		})
	}
}

// closedAddr returns the address of a port that was just free and is closed now.
func closedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

func TestUnreachable(t *testing.T) {
	t.Parallel()
	addr := closedAddr(t)
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	p := New(Config{BaseURL: "http://" + addr + "/v1/", Model: "m", HTTPClient: &http.Client{Transport: tr}})
	_, err := p.Stream(context.Background(), simpleRequest(), nil)
	var le *llm.Error
	if !errors.As(err, &le) || le.Kind != llm.ErrUnavailable {
		t.Fatalf("err = %v, want unavailable", err)
	}
	want := fmt.Sprintf("cannot reach model server at http://%s: connection refused", addr)
	if le.Message != want {
		t.Errorf("message = %q, want %q", le.Message, want)
	}
	if !llm.Retryable(err) {
		t.Error("Retryable = false, want true")
	}
}

func TestDroppedConnection(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		handle http.HandlerFunc
	}{
		{
			// The connection dies inside a chunked body: the client reads
			// an unexpected EOF.
			name: "cut inside the body",
			handle: func(w http.ResponseWriter, r *http.Request) {
				sse(w, messageStart(startUsage), textStart(0), textDelta(0, "Hel"))
				conn, _, err := http.NewResponseController(w).Hijack()
				if err != nil {
					t.Errorf("hijack: %v", err)
					return
				}
				conn.Close()
			},
		},
		{
			// A body without length ends when the connection closes, so the
			// stream looks complete but has no stop reason.
			name: "closed between events",
			handle: func(w http.ResponseWriter, r *http.Request) {
				conn, buf, err := http.NewResponseController(w).Hijack()
				if err != nil {
					t.Errorf("hijack: %v", err)
					return
				}
				defer conn.Close()
				buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n")
				buf.WriteString(messageStart(startUsage) + textStart(0) + textDelta(0, "Hel"))
				buf.Flush()
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, _ := newServer(t, tt.handle)
			onDelta, deltas := collect()
			_, err := newProvider(srv).Stream(context.Background(), simpleRequest(), onDelta)
			var le *llm.Error
			if !errors.As(err, &le) || (le.Kind != llm.ErrUnavailable && le.Kind != llm.ErrServer) {
				t.Fatalf("err = %v, want unavailable or server_error", err)
			}
			if !llm.Retryable(err) {
				t.Errorf("Retryable(%v) = false, want true", err)
			}
			if le.Kind == llm.ErrUnavailable && !strings.Contains(le.Message, "lost connection to model server at "+srv.URL) {
				t.Errorf("message = %q, want it to name the lost connection and %s", le.Message, srv.URL)
			}
			if n := len(deltas()); n != 1 {
				t.Errorf("got %d deltas before the drop, want 1", n)
			}
		})
	}
}
