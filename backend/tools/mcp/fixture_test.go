package mcp_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"steward/backend/tool"
	"steward/backend/tools/mcp"
	"steward/backend/tools/mcp/mcptest"
)

func TestMain(m *testing.M) {
	mcptest.ServeIfAsked()
	conformanceClientIfAsked()
	goleak.VerifyTestMain(m)
}

// httpFixture serves the fixture over streamable HTTP on 127.0.0.1 and
// records the Authorization headers it receives.
type httpFixture struct {
	*httptest.Server
	mu    sync.Mutex
	auths []string
}

func newHTTPFixture(t *testing.T) *httpFixture { return newHTTPFixtureOf(t, nil) }

// newHTTPFixtureOf serves with the handler's options o: Stateless serves
// the 2026-07-28 era only, else the SDK's handler speaks 2025-11-25.
func newHTTPFixtureOf(t *testing.T, o *sdk.StreamableHTTPOptions) *httpFixture {
	t.Helper()
	f := &httpFixture{}
	srv := mcptest.Server(false)
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, o)
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.auths = append(f.auths, r.Header.Get("Authorization"))
		f.mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(f.Close)
	return f
}

// newSSEFixture serves the fixture over the deprecated HTTP+SSE transport.
func newSSEFixture(t *testing.T) *httptest.Server {
	t.Helper()
	srv := mcptest.Server(false)
	s := httptest.NewServer(sdk.NewSSEHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	t.Cleanup(s.Close)
	return s
}

func (f *httpFixture) authorizations() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.auths...)
}

// logs collects what a Manager logs.
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

// setup returns a registry with the servers' tools as sources, and the
// Manager, whose runs are ended at cleanup.
func setup(t *testing.T, servers map[string]mcp.Server, getenv func(string) string) (*tool.Registry, *mcp.Manager, *logs) {
	t.Helper()
	l := &logs{}
	m := mcp.New(mcp.Options{Servers: servers, Getenv: getenv, Logf: l.logf, Version: "test"})
	reg := tool.NewRegistry()
	for _, src := range m.Sources() {
		if err := reg.AddSource(src); err != nil {
			t.Fatal(err)
		}
	}
	reg.AddRunEnder(m)
	t.Cleanup(func() {
		for _, id := range []string{"run_1", "run_2", ""} {
			if _, err := reg.EndRun(context.Background(), tool.Env{RunID: id}); err != nil {
				t.Errorf("end run %s: %v", id, err)
			}
		}
	})
	return reg, m, l
}
