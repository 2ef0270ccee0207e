package openai

import (
	"context"
	"errors"
	"io"
	"net/http"
	"testing"
	"time"

	"steward/backend/llm"
)

// TestHTTPErrorRetryAfter checks that the wait a server asks for reaches the
// engine through (*llm.Error).RetryAfter, whatever the status.
func TestHTTPErrorRetryAfter(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		status int
		header map[string]string
		kind   llm.ErrorKind
		want   time.Duration
	}{
		{"429 with Retry-After", 429, map[string]string{"Retry-After": "20"}, llm.ErrRateLimited, 20 * time.Second},
		{"429 with retry-after-ms", 429, map[string]string{"Retry-After": "1", "Retry-After-Ms": "1500"}, llm.ErrRateLimited, 1500 * time.Millisecond},
		{"429 without", 429, nil, llm.ErrRateLimited, 0},
		{"503 with Retry-After", 503, map[string]string{"Retry-After": "10"}, llm.ErrServer, 10 * time.Second},
		{"400 with Retry-After", 400, map[string]string{"Retry-After": "5"}, llm.ErrInvalid, 5 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, seen := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				for k, v := range tt.header {
					w.Header().Set(k, v)
				}
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tt.status)
				io.WriteString(w, `{"error":{"message":"slow down","type":"requests"}}`)
			})
			_, err := newProvider(srv).Stream(context.Background(), simpleRequest(), nil)
			var le *llm.Error
			if !errors.As(err, &le) {
				t.Fatalf("err = %v (%T), want *llm.Error", err, err)
			}
			if le.Kind != tt.kind || le.StatusCode != tt.status || le.Message != "slow down" {
				t.Errorf("got kind %q status %d message %q", le.Kind, le.StatusCode, le.Message)
			}
			if le.RetryAfter != tt.want {
				t.Errorf("RetryAfter = %v, want %v", le.RetryAfter, tt.want)
			}
			if n := len(seen()); n != 1 {
				t.Errorf("server saw %d requests, want 1", n)
			}
		})
	}
}
