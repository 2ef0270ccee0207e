package mcp_test

import (
	"strings"
	"testing"

	"steward/backend/event"
	"steward/backend/tool"
	"steward/backend/tools/mcp"
	"steward/backend/tools/mcp/mcptest"
)

// Settings → MCP servers shows what last became of a server in a run and
// the end of its stderr across its sessions, its secrets redacted.
func TestServerStatusAndLog(t *testing.T) {
	t.Parallel()
	const secret = "ghp-status-secret-0123456789"
	srv := mcptest.Stdio(map[string]string{"API_TOKEN": secret, mcptest.SayEnv: "fixture: my token is " + secret})
	reg, m, _ := setup(t, map[string]mcp.Server{"fx": srv}, nil)
	view := func() mcp.ServerView {
		t.Helper()
		vs := m.Servers()
		if len(vs) != 1 {
			t.Fatalf("views %+v", vs)
		}
		return vs[0]
	}
	if v := view(); v.Status != nil || v.Log != "" {
		t.Errorf("before any run: status %+v, log %q", v.Status, v.Log)
	}
	env := tool.Env{RunID: "run_1"}
	if res := call(t, reg, env, "mcp__fx__echo", `{"text":"hi"}`); res.IsError {
		t.Fatalf("echo: %+v", res)
	}
	if v := view(); v.Status == nil || v.Status.State != event.MCPConnected || v.Status.Run != "run_1" || v.Status.At == 0 {
		t.Errorf("after a call: %+v", v.Status)
	}
	call(t, reg, env, "mcp__fx__exit", `{}`)
	v := view()
	if v.Status == nil || v.Status.State != event.MCPCrashed || v.Status.Reason != "exit status 3" {
		t.Errorf("after a crash: %+v", v.Status)
	}
	if !strings.Contains(v.Log, "exiting in the middle of a call") || !strings.Contains(v.Log, "fixture: my token is [REDACTED") {
		t.Errorf("log %q: want the server's stderr, its secret redacted", v.Log)
	}
	if strings.Contains(v.Log, secret) {
		t.Errorf("the log shows the secret: %q", v.Log)
	}
}
