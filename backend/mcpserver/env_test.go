package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"steward/backend/agent"
	"steward/backend/api"
	"steward/backend/config"
	"steward/backend/event"
	"steward/backend/exchange"
	"steward/backend/inbox"
	"steward/backend/mcpserver"
	"steward/backend/run"
	"steward/backend/store"
	"steward/backend/tool"
	fstools "steward/backend/tools/fs"
	"steward/backend/tools/git"
	"steward/backend/tools/interact"
	"steward/backend/tools/shell"
	"steward/backend/workspace"
)

// Every test ends its servers, sessions, runs and stores.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const token = "test-token-0123456789abcdef"

// waitTimeout bounds every wait: the demo script with no chunk delay takes
// milliseconds, so only a broken server reaches it.
const waitTimeout = 20 * time.Second

// env is the services composed as main.go's build does (the built-in demo
// script as the model), over a fresh database, with the MCP server on them.
type env struct {
	st      *store.Store
	bus     *event.Bus
	runs    *run.Service
	inbox   *inbox.Inbox
	agents  *agent.Service
	ex      *exchange.Service
	srv     *mcpserver.Server
	exports string
}

const uiBase = "http://127.0.0.1:8788/"

func newEnv(t *testing.T) *env {
	t.Helper()
	var n atomic.Int64
	newID := func(prefix string) string { return fmt.Sprintf("%s_%04d", prefix, n.Add(1)) }
	bus := event.NewBus()
	st, err := store.Open(filepath.Join(t.TempDir(), "steward.db"), &store.Options{Publisher: bus})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := st.Close(); err != nil {
			t.Errorf("close store: %v", err)
		}
	})
	tools := tool.NewRegistry()
	for _, tl := range slices.Concat(fstools.Tools(), shell.Tools(nil), git.Tools(git.Options{}), interact.Tools()) {
		if err := tools.Register(tl); err != nil {
			t.Fatal(err)
		}
	}
	in := inbox.New(st, tools, func() string { return newID("ia") })
	models := config.NewModels(config.Config{Home: t.TempDir()})
	models.ChunkDelay = 0
	blobs, err := workspace.NewBlobs(filepath.Join(t.TempDir(), "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	runs := run.New(run.Config{Store: st, Approver: in, Tools: tools, Models: models, NewID: newID, Logf: t.Logf, Grants: st, Blobs: blobs})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
		defer cancel()
		if err := runs.Shutdown(ctx); err != nil {
			t.Errorf("shut down runs: %v", err)
		}
	})
	agents := agent.NewService(st, func(name string) bool { _, ok := tools.Lookup(name); return ok }, newID, time.Now)
	if err := agents.EnsureDefault(context.Background()); err != nil {
		t.Fatal(err)
	}
	ex := exchange.New(exchange.Config{Store: st, Blobs: blobs, Version: "test", NewID: newID,
		Secrets: func() []string { return []string{token} },
		Player: func() ([]byte, error) {
			return []byte("<!doctype html><html><head><title>player</title></head><body></body></html>"), nil
		}})
	e := &env{st: st, bus: bus, runs: runs, inbox: in, agents: agents, ex: ex, exports: filepath.Join(t.TempDir(), "exports")}
	e.srv = mcpserver.New(mcpserver.Config{Version: "test", Runs: runs, Store: st, Agents: agents, Exchange: ex, Bus: bus,
		UI: uiBase, ExportDir: e.exports, NewID: newID, Logf: t.Logf})
	return e
}

// connect is a client session to the server over in-memory transports.
func (e *env) connect(t *testing.T) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := e.srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		_ = ss.Wait()
	})
	return cs
}

// served is the API server as startServer composes it, with the MCP
// endpoint, on loopback.
type served struct {
	url  string // http://127.0.0.1:PORT/mcp
	host string // 127.0.0.1:PORT
}

func (e *env) serve(t *testing.T) served {
	t.Helper()
	h := api.New(api.Config{Token: token, Version: "test", Runs: e.runs, Inbox: e.inbox, Store: e.st, Agents: e.agents,
		Exchange: e.ex, Bus: e.bus, UI: fstest.MapFS{"index.html": {Data: []byte("<!doctype html>")}}, Logf: t.Logf,
		MCP: e.srv.Handler()})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	h.SetPort(port)
	host := fmt.Sprintf("127.0.0.1:%d", port)
	return served{url: "http://" + host + "/mcp", host: host}
}

// headers sets the given headers on every request it carries.
type headers struct {
	set  map[string]string
	base http.RoundTripper
}

func (h headers) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h.set {
		if k == "Host" {
			r.Host = v
			continue
		}
		r.Header.Set(k, v)
	}
	return h.base.RoundTrip(r)
}

// connectHTTP is a client session over streamable HTTP with the given
// headers on every request.
func connectHTTP(t *testing.T, url string, set map[string]string) (*mcp.ClientSession, error) {
	t.Helper()
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	ct := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: headers{set: set, base: tr}, Timeout: waitTimeout}}
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs, nil
}

// call calls tool with args and decodes its structured result into out (nil
// for none); it fails the test on a protocol error, and returns the result.
func call(t *testing.T, cs *mcp.ClientSession, tool string, args any, out any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error: %v", tool, err)
	}
	if out != nil && !res.IsError {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: structured content %s: %v", tool, b, err)
		}
	}
	return res
}

// text is the result's text content.
func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// mustOK calls tool and fails the test if it is a tool error.
func mustOK(t *testing.T, cs *mcp.ClientSession, tool string, args any, out any) {
	t.Helper()
	if res := call(t, cs, tool, args, out); res.IsError {
		t.Fatalf("%s(%v): tool error: %s", tool, args, text(res))
	}
}
