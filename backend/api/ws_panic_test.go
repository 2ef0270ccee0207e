package api_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"steward/backend/api"
	"steward/backend/run"
)

// panickingRuns is the engine, except that a command panics.
type panickingRuns struct{ api.Runs }

func (panickingRuns) Command(context.Context, string, run.Command) (run.CommandResult, error) {
	panic("boom in Command")
}

// TestWSPanicEndsTheConnectionNotTheServer: a panic while handling a
// WebSocket message is recovered as a request's is: the connection closes
// with 1011 and the log has the panic, and the server goes on answering.
// The connection's goroutines run outside any handler, so before, the
// panic ended the process (the test binary died).
func TestWSPanicEndsTheConnectionNotTheServer(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var logged []string
	e := newEnvWith(t, func(c *api.Config) {
		c.Runs = panickingRuns{c.Runs}
		logf := c.Logf
		c.Logf = func(format string, args ...any) {
			logf(format, args...)
			mu.Lock()
			logged = append(logged, format)
			mu.Unlock()
		}
	})
	c := e.dial(nil)
	send(t, c, map[string]any{"type": "command", "id": "1", "run_id": "run_x", "command": map[string]any{"command_id": "c1", "type": "pause"}})
	c.SetReadDeadline(time.Now().Add(waitTimeout))
	var err error
	for err == nil {
		_, _, err = c.ReadMessage()
	}
	var ce *websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != websocket.CloseInternalServerErr {
		t.Fatalf("the connection ended with %v, want a close 1011", err)
	}
	mu.Lock()
	found := false
	for _, l := range logged {
		found = found || strings.Contains(l, "panic in a WebSocket connection")
	}
	mu.Unlock()
	if !found {
		t.Error("the panic is not in the server's log")
	}
	e.call("GET", "/api/v1/runs", nil, http.StatusOK, nil)
	e.dial(nil) // and takes new connections
}
