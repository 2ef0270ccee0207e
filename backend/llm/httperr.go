package llm

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// KindForStatus classifies an HTTP error status of a model server: 429 is
// rate limited, 401 and 403 auth, 408 and 5xx (Anthropic's 529 "overloaded"
// among them) a server error worth a retry, any other 4xx invalid.
func KindForStatus(status int) ErrorKind {
	switch {
	case status == http.StatusTooManyRequests:
		return ErrRateLimited
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return ErrAuth
	case status == http.StatusRequestTimeout || status >= 500:
		return ErrServer
	case status >= 400:
		return ErrInvalid
	}
	return ErrBadResponse
}

// RetryAfter reads how long the server asks us to wait: retry-after-ms
// (milliseconds, which OpenAI and Anthropic send next to Retry-After), else
// Retry-After in seconds or as an HTTP date. It is 0 when there is neither,
// or the date has passed.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s <= 0 {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// NetworkReason says in a few words why a connection to a model server
// failed, for messages such as "cannot reach model server at URL: REASON".
func NetworkReason(err error) string {
	var dnsErr *net.DNSError
	var netErr net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case errors.As(err, &dnsErr):
		return fmt.Sprintf("cannot resolve host %s", dnsErr.Name)
	case errors.As(err, &netErr) && netErr.Timeout():
		return "timed out"
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return "the connection closed unexpectedly"
	}
	// A *url.Error repeats the method and URL; its cause is enough.
	if u := errors.Unwrap(err); u != nil {
		return u.Error()
	}
	return err.Error()
}
