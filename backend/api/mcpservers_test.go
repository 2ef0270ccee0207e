package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"steward/backend/api"
	"steward/backend/config"
	"steward/backend/tool"
	"steward/backend/tools/mcp"
	"steward/backend/tools/mcp/mcptest"
)

// mcpSettings is what the composition root gives the API (internal/cli):
// the client's view and tests, and config.json's changes.
type mcpSettings struct {
	*mcp.Manager
	s *config.Settings
}

func (m mcpSettings) Put(ctx context.Context, name string, entry json.RawMessage) error {
	return m.s.PutMCPServer(ctx, name, entry)
}
func (m mcpSettings) Remove(ctx context.Context, name string) error {
	return m.s.RemoveMCPServer(ctx, name)
}
func (m mcpSettings) SetState(ctx context.Context, name string, st config.MCPState) error {
	return m.s.SetMCPState(ctx, name, st)
}

// The settings screen's MCP servers over the API, against a real server on
// loopback (streamable HTTP) and a closed port: listed without secrets,
// tested, added, refused when bad, disabled, trusted and removed, each
// change in config.json and in force at once.
func TestMCPServersOverTheAPI(t *testing.T) {
	t.Parallel()
	srv := mcptest.Server(false)
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	const secret = "Bearer tok-never-shown-123"
	m := mcp.New(mcp.Options{})
	t.Cleanup(func() { _ = m.Close() })
	reg := tool.NewRegistry()
	if err := m.Register(reg); err != nil {
		t.Fatal(err)
	}
	var home string
	e := newEnvWith(t, func(c *api.Config) {
		s := c.Settings.(*config.Settings)
		s.OnMCPServers(func(servers map[string]mcp.Server) {
			if err := m.SetServers(servers); err != nil {
				t.Errorf("apply: %v", err)
			}
		})
		c.MCPServers = mcpSettings{Manager: m, s: s}
		var v config.SettingsView
		v, _ = s.View(context.Background())
		home = filepath.Dir(v.ConfigFile)
	})
	list := func() []mcp.ServerView {
		var l struct{ Servers []mcp.ServerView }
		e.call("GET", "/api/v1/mcp/servers", nil, http.StatusOK, &l)
		return l.Servers
	}

	e.call("PUT", "/api/v1/mcp/servers/gone", map[string]any{"type": "http", "url": "http://127.0.0.1:1/mcp", "headers": map[string]string{"Authorization": secret}}, http.StatusOK, nil)
	r := e.do("GET", "/api/v1/mcp/servers", nil)
	if r.status != http.StatusOK || strings.Contains(string(r.body), "tok-never-shown") {
		t.Fatalf("GET servers = %d %s", r.status, r.body)
	}
	var res mcp.ConnectionTest
	e.call("POST", "/api/v1/mcp/servers/gone/test", nil, http.StatusOK, &res)
	if res.OK || !strings.Contains(res.Error, "MCP server gone could not be started") {
		t.Errorf("test of a closed port: %+v", res)
	}
	if msg := wantError(t, e.do("POST", "/api/v1/mcp/servers/nope/test", nil), http.StatusNotFound, "not_found"); !strings.Contains(msg, `"nope"`) {
		t.Errorf("unknown server: %q", msg)
	}

	// Added as pasted: in config.json as it came, offered at once.
	entry := `{"type": "http", "url": "` + hs.URL + `", "headers": {"X-Team": "${TEAM:-core}"}}`
	e.call("PUT", "/api/v1/mcp/servers/fx", json.RawMessage(entry), http.StatusOK, nil)
	if l := list(); len(l) != 2 || l[0].Name != "fx" || l[0].Disabled {
		t.Fatalf("after adding fx: %+v", l)
	}
	if !reg.Known("mcp__fx__*") {
		t.Error("fx's tools are not offered after it was added")
	}
	b, err := os.ReadFile(filepath.Join(home, config.FileName))
	if err != nil || !strings.Contains(string(b), "${TEAM:-core}") {
		t.Errorf("config.json after adding fx: %v\n%s", err, b)
	}
	e.call("POST", "/api/v1/mcp/servers/fx/test", nil, http.StatusOK, &res)
	if !res.OK || len(res.Tools) == 0 {
		t.Fatalf("test of fx: %+v", res)
	}
	for _, v := range res.Tools {
		if v.Remote == "echo" && v.Risk != tool.RiskNetwork {
			t.Errorf("echo of an untrusted http server has risk %s", v.Risk)
		}
	}

	// A bad entry changes nothing and says what is wrong.
	msg := wantError(t, e.do("PUT", "/api/v1/mcp/servers/bad", json.RawMessage(`{"command": "  "}`)), http.StatusBadRequest, "invalid")
	if !strings.Contains(msg, "mcpServers.bad") || !strings.Contains(msg, "command is missing") {
		t.Errorf("bad entry: %q", msg)
	}
	wantError(t, e.do("PUT", "/api/v1/mcp/servers/bad__name", json.RawMessage(`{"command": "x"}`)), http.StatusBadRequest, "invalid")
	wantError(t, e.do("PUT", "/api/v1/mcp/servers/bad", json.RawMessage(`["x"]`)), http.StatusBadRequest, "invalid")
	if l := list(); len(l) != 2 {
		t.Errorf("a refused entry changed the servers: %+v", l)
	}

	// Disabled: configured, offering nothing; trusted: its annotations count.
	e.call("PUT", "/api/v1/mcp/servers/fx/state", map[string]bool{"disabled": true}, http.StatusOK, nil)
	if l := list(); !l[0].Disabled || reg.Known("mcp__fx__*") {
		t.Errorf("disabled fx: %+v, known %v", l[0], reg.Known("mcp__fx__*"))
	}
	e.call("PUT", "/api/v1/mcp/servers/fx/state", map[string]bool{"disabled": false, "trusted": true}, http.StatusOK, nil)
	if l := list(); l[0].Disabled || !l[0].Trusted || !reg.Known("mcp__fx__*") {
		t.Errorf("enabled and trusted fx: %+v", l[0])
	}
	if spec, ok := reg.Lookup("mcp__fx__echo"); !ok || spec.Risk != tool.RiskRead {
		t.Errorf("echo of a trusted fx: %+v %v", spec, ok)
	}
	b, _ = os.ReadFile(filepath.Join(home, config.FileName))
	if !strings.Contains(string(b), "${TEAM:-core}") || strings.Contains(string(b), `"disabled"`) {
		t.Errorf("config.json after the state changes:\n%s", b)
	}
	wantError(t, e.do("PUT", "/api/v1/mcp/servers/nope/state", map[string]bool{"trusted": true}), http.StatusNotFound, "not_found")

	e.call("DELETE", "/api/v1/mcp/servers/fx", nil, http.StatusOK, nil)
	if l := list(); len(l) != 1 || reg.Known("mcp__fx__*") {
		t.Errorf("after removing fx: %+v", l)
	}
	wantError(t, e.do("DELETE", "/api/v1/mcp/servers/fx", nil), http.StatusNotFound, "not_found")
	wantError(t, e.do("GET", "/api/v1/mcp/servers", nil, noAuth), http.StatusUnauthorized, "unauthorized")

	bare := newEnv(t)
	wantError(t, bare.do("GET", "/api/v1/mcp/servers", nil), http.StatusNotImplemented, "unsupported")
}
