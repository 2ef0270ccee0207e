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

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		header map[string]string
		want   time.Duration
	}{
		{"none", nil, 0},
		{"seconds", map[string]string{"Retry-After": "3"}, 3 * time.Second},
		{"fractional seconds", map[string]string{"Retry-After": "0.5"}, 500 * time.Millisecond},
		{"spaces", map[string]string{"Retry-After": " 7 "}, 7 * time.Second},
		{"HTTP date", map[string]string{"Retry-After": "Sun, 01 Mar 2026 12:00:42 GMT"}, 42 * time.Second},
		{"past HTTP date", map[string]string{"Retry-After": "Sun, 01 Mar 2026 11:00:00 GMT"}, 0},
		{"milliseconds alone", map[string]string{"Retry-After-Ms": "250"}, 250 * time.Millisecond},
		{"milliseconds win", map[string]string{"Retry-After": "3", "Retry-After-Ms": "2500"}, 2500 * time.Millisecond},
		{"bad milliseconds fall back", map[string]string{"Retry-After": "3", "Retry-After-Ms": "soon"}, 3 * time.Second},
		{"zero milliseconds fall back", map[string]string{"Retry-After": "2", "Retry-After-Ms": "0"}, 2 * time.Second},
		{"garbage", map[string]string{"Retry-After": "later"}, 0},
		{"zero", map[string]string{"Retry-After": "0"}, 0},
		{"negative", map[string]string{"Retry-After": "-5"}, 0},
	}
	for _, tt := range tests {
		h := http.Header{}
		for k, v := range tt.header {
			h.Set(k, v)
		}
		if got := llm.RetryAfter(h, now); got != tt.want {
			t.Errorf("%s: retryAfter = %v, want %v", tt.name, got, tt.want)
		}
	}
}

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
