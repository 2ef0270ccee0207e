package api_test

import (
	"net/http"
	"strings"
	"testing"

	"steward/backend/api"
	"steward/backend/event"
	"steward/backend/sandbox"
	"steward/backend/sandbox/sandboxtest"
)

// TestSandboxSettingsOverTheAPI: agents and runs take the sandbox settings,
// refuse values that are not one of theirs with a message naming the
// setting, and GET /info says whether the sandbox works here.
func TestSandboxSettingsOverTheAPI(t *testing.T) {
	t.Parallel()
	broken := sandbox.New(sandbox.Options{Bwrap: "/nonexistent/bwrap"})
	e := newEnvWith(t, func(c *api.Config) { c.Sandbox = broken })
	ws := t.TempDir()

	for _, tt := range []struct {
		name, path string
		body       any
		mention    string
	}{
		{"agent sandbox", "/api/v1/agents", api.AgentInput{Name: "s1", Sandbox: "maybe"}, `sandbox "maybe" is not one of auto, on, off`},
		{"agent network", "/api/v1/agents", api.AgentInput{Name: "s2", SandboxNetwork: "lan"}, `sandbox_network "lan" is not one of off, on`},
		{"run sandbox", "/api/v1/runs", api.StartRun{Agent: "default", Instructions: "x", Workspace: ws, Sandbox: "always"}, `sandbox "always"`},
		{"run network", "/api/v1/runs", api.StartRun{Agent: "default", Instructions: "x", Workspace: ws, SandboxNetwork: "yes"}, `sandbox_network "yes"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			msg := wantError(t, e.with(t).do("POST", tt.path, tt.body), http.StatusBadRequest, "invalid")
			if !strings.Contains(msg, tt.mention) {
				t.Errorf("message %q does not mention %q", msg, tt.mention)
			}
		})
	}

	var def api.Agent
	e.call("GET", "/api/v1/agents/default", nil, http.StatusOK, &def)
	if def.Sandbox != "auto" || def.SandboxNetwork != "off" {
		t.Errorf("default agent: sandbox %q, sandbox_network %q; want auto, off", def.Sandbox, def.SandboxNetwork)
	}
	var made api.Agent
	e.call("POST", "/api/v1/agents", api.AgentInput{Name: "strict", Sandbox: "on", SandboxNetwork: "on"}, http.StatusCreated, &made)
	if made.Sandbox != "on" || made.SandboxNetwork != "on" {
		t.Errorf("created agent: sandbox %q, sandbox_network %q", made.Sandbox, made.SandboxNetwork)
	}

	var info api.Info
	e.call("GET", "/api/v1/info", nil, http.StatusOK, &info)
	if info.Sandbox.Available || !strings.Contains(info.Sandbox.Reason, "bubblewrap is not at /nonexistent/bwrap") {
		t.Errorf("info sandbox %+v on a machine where it cannot work", info.Sandbox)
	}

	var r api.Run
	e.call("POST", "/api/v1/runs", api.StartRun{Agent: "strict", Instructions: "hello", Workspace: ws, Sandbox: "off"}, http.StatusCreated, &r)
	var created event.RunCreatedData
	for _, ev := range e.events(r.ID) {
		if ev.Type == event.RunCreated {
			if err := ev.Decode(&created); err != nil {
				t.Fatal(err)
			}
		}
	}
	if created.Sandbox == nil || created.Sandbox.Mode != "off" || created.Sandbox.Network != "on" || created.Sandbox.Confined {
		t.Errorf("run.created sandbox %+v, want mode off (the run's), network on (the agent's), not confined", created.Sandbox)
	}
}

func TestInfoSandboxWhereItWorks(t *testing.T) {
	t.Parallel()
	working := sandbox.New(sandbox.Options{})
	sandboxtest.Require(t, working)
	e := newEnvWith(t, func(c *api.Config) { c.Sandbox = working })
	var info api.Info
	e.call("GET", "/api/v1/info", nil, http.StatusOK, &info)
	if !info.Sandbox.Available || info.Sandbox.Reason != "" {
		t.Errorf("info sandbox %+v where it works", info.Sandbox)
	}
}
