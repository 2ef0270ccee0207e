package replay_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"steward/backend/agent"
	"steward/backend/event"
	"steward/backend/replay"
	"steward/backend/run"
	"steward/backend/tools/mcp"
	"steward/backend/tools/mcp/mcptest"
)

// A run whose MCP server crashed and was started again replays with the
// recorded results without starting the server: the calls are answered
// from the recording, so no mcp.server event is made, and the replay ends
// as the run did.
func TestReplayOfAnMCPRunStartsNoServer(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	starts := filepath.Join(t.TempDir(), "starts")
	m := mcp.New(mcp.Options{Servers: map[string]mcp.Server{"fx": mcptest.Stdio(map[string]string{mcptest.StartsEnv: starts})}, Logf: t.Logf})
	for _, src := range m.Sources() {
		if err := e.reg.AddSource(src); err != nil {
			t.Fatal(err)
		}
	}
	e.reg.AddRunEnder(m)
	svc := e.service(t, run.Config{Models: fixedModels{scripted(t, `{"turns": [
		{"tool_calls": [{"name": "mcp__fx__exit", "arguments": {}}]},
		{"tool_calls": [{"name": "mcp__fx__echo", "arguments": {"text": "back"}}]},
		{"text": "Done: {{last_tool_output}}"}
	]}`)}})
	a := agent.Agent{ID: "ag_test", Name: "tester", Provider: agent.ProviderScript, SystemPrompt: "You are a test agent.",
		Tools: []string{mcp.Pattern("fx")}, Mode: agent.ModeAuto, MaxSteps: 10}
	r, err := svc.Start(context.Background(), run.StartParams{Agent: a, Instructions: "use the server", Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if src := e.wait(t, svc, r.ID); src.Status != string(run.Completed) {
		t.Fatalf("source run ended %s (%s)", src.Status, src.Error)
	}
	if n := countOf(e.events(t, r.ID), event.MCPServer); n != 4 {
		t.Fatalf("the source run has %d mcp.server events, want 4 (connected, crashed, restarted, connected)", n)
	}
	b, rec := exported(t, e, r.ID)
	if n := countOf(b.Events, event.MCPServer); n != 4 {
		t.Errorf("the recording holds %d mcp.server events, want 4", n)
	}
	before := startCount(t, starts)
	rr, p, calls := replayedCounting(t, e, rec, t.TempDir(), true, replay.Options{})
	if d, ok := p.Divergence(); ok {
		t.Fatalf("diverged: %v", d)
	}
	if rr.Status != string(run.Completed) || calls != 0 {
		t.Fatalf("replay ended %s (%s) with %d real calls, want completed with none", rr.Status, rr.Error, calls)
	}
	if n := startCount(t, starts); n != before {
		t.Errorf("the server was started %d times during the replay, want none", n-before)
	}
	evs := e.events(t, rr.ID)
	if n := countOf(evs, event.MCPServer); n != 0 {
		t.Errorf("the replay has %d mcp.server events, want none: no server was reached", n)
	}
	var out event.NodeFinishedData
	for _, ev := range evs {
		if ev.Type == event.NodeFinished {
			var d event.NodeFinishedData
			if ev.Decode(&d) == nil && d.Text != "" {
				out = d
			}
		}
	}
	if out.Text != "Done: echo: back" {
		t.Errorf("the replay's last answer %q", out.Text)
	}
}

func countOf(evs []event.Event, typ event.Type) int {
	n := 0
	for _, ev := range evs {
		if ev.Type == typ {
			n++
		}
	}
	return n
}

func startCount(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}
