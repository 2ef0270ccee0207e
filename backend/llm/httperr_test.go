package llm

import (
	"net/http"
	"testing"
	"time"
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
		if got := RetryAfter(h, now); got != tt.want {
			t.Errorf("%s: retryAfter = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestKindForStatus(t *testing.T) {
	t.Parallel()
	for status, want := range map[int]ErrorKind{400: ErrInvalid, 401: ErrAuth, 403: ErrAuth, 404: ErrInvalid, 408: ErrServer,
		429: ErrRateLimited, 500: ErrServer, 529: ErrServer, 302: ErrBadResponse} {
		if got := KindForStatus(status); got != want {
			t.Errorf("KindForStatus(%d) = %s, want %s", status, got, want)
		}
	}
}
