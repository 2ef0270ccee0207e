package run_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"steward/backend/event"
	"steward/backend/inbox"
	"steward/backend/redact"
	"steward/backend/run"
	"steward/backend/tools/mcp"
	"steward/backend/tools/mcp/mcptest"
)

// An MCP tool is an ordinary tool node: offered to the model, decided by
// the policy (an untrusted server's tool asks in mode ask, whatever its
// annotations say), approved through the inbox, run on the run's session
// with the server, and its result is the node's output. A server that
// exits mid-call is a tool error the model reads, and the run goes on.
func TestMCPToolCallIsApprovedRunAndLogged(t *testing.T) {
	t.Parallel()
	rec := &recording{next: scripted(t, `{"turns": [
		{"tool_calls": [{"name": "mcp__fx__exit", "arguments": {}}]},
		{"tool_calls": [{"name": "mcp__fx__echo", "arguments": {"text": "from the model"}}]},
		{"text": "Done."}
	]}`)}
	h := newHarness(t, fixed(rec))
	// A credential in the server's configuration, which it prints as it
	// crashes: the redactor knows the Manager's secrets, as main wires it.
	const secret = "fixture-api-token-0123456789"
	srv := mcptest.Stdio(map[string]string{"API_TOKEN": secret, mcptest.SayEnv: "fixture: my token is " + secret})
	m := mcp.New(mcp.Options{Servers: map[string]mcp.Server{"fx": srv}, Logf: t.Logf})
	for _, src := range m.Sources() {
		if err := h.reg.AddSource(src); err != nil {
			t.Fatal(err)
		}
	}
	h.reg.AddRunEnder(m)
	h.svc = h.service(t, func(c *run.Config) { c.Redact = redact.NewLive(m.Secrets).String })
	r := h.start(t, testAgent("read_file", mcp.Pattern("fx")), "use the server")
	for i, want := range []string{"mcp__fx__exit", "mcp__fx__echo"} {
		its := h.pendingN(t, r.ID, 1)
		if its[0].Tool != want {
			t.Fatalf("approval for %s, want %s", its[0].Tool, want)
		}
		if n := countType(h.events(t, r.ID), event.ToolExecuting); n != i {
			t.Fatalf("%d calls ran before %s was approved, want %d", n, want, i)
		}
		if _, err := h.in.Answer(context.Background(), its[0].ID, inbox.Decision{Decision: "approve", Source: "web"}); err != nil {
			t.Fatal(err)
		}
	}
	end := h.waitEnd(t, r.ID, 10*time.Second)
	if end.Status != string(run.Completed) {
		t.Fatalf("run ended %s (%s)", end.Status, end.Reason)
	}
	evs := h.events(t, r.ID)
	checkLog(t, evs)
	tools := map[string]string{} // node → tool
	var decided []event.PolicyDecidedData
	got := map[string]event.NodeFinishedData{}
	var servers []string // tool: state attempt, in log order
	executing := map[string]bool{}
	for _, ev := range evs {
		if strings.Contains(string(ev.Data), secret) {
			t.Errorf("event %d (%s) holds the server's secret: %s", ev.Seq, ev.Type, ev.Data)
		}
		switch ev.Type {
		case event.ToolExecuting:
			executing[ev.NodeID] = true
		case event.MCPServer:
			d := decode[event.MCPServerData](t, ev)
			if !executing[ev.NodeID] {
				t.Errorf("seq %d: mcp.server on %s, not during a call", ev.Seq, ev.NodeID)
			}
			if _, ok := got[tools[ev.NodeID]]; ok {
				t.Errorf("seq %d: mcp.server on %s after its node finished", ev.Seq, ev.NodeID)
			}
			servers = append(servers, fmt.Sprintf("%s: %s %d", tools[ev.NodeID], d.State, d.Attempt))
			switch d.State {
			case event.MCPConnected:
				if d.Server != "fx" || d.Era != "2026-07-28" || d.Transport != "stdio" {
					t.Errorf("connected: %+v", d)
				}
			case event.MCPCrashed:
				if d.Reason != "exit status 3" || d.RetryInMS != 500 || !strings.Contains(d.Stderr, "exiting in the middle of a call") ||
					!strings.Contains(d.Stderr, "my token is [REDACTED:") {
					t.Errorf("crashed: %+v", d)
				}
			}
		case event.NodeStarted:
			if d := decode[event.NodeStartedData](t, ev); d.Kind == event.KindTool {
				tools[ev.NodeID] = d.Tool
				if d.Risk != "exec" {
					t.Errorf("%s: risk %s, want exec (an untrusted stdio server)", d.Tool, d.Risk)
				}
			}
		case event.PolicyDecided:
			decided = append(decided, decode[event.PolicyDecidedData](t, ev))
		case event.NodeFinished:
			if name, ok := tools[ev.NodeID]; ok {
				got[name] = decode[event.NodeFinishedData](t, ev)
			}
		}
	}
	if e := got["mcp__fx__echo"]; e.Status != event.NodeSucceeded || e.Output != "echo: from the model" || e.IsError {
		t.Errorf("echo's node finished %+v, want its result as output", e)
	}
	if e := got["mcp__fx__exit"]; e.Status != event.NodeFailed || !e.IsError || e.Code != mcp.CodeUnavailable || !strings.Contains(e.Output, "MCP server fx") {
		t.Errorf("exit's node finished %+v, want a tool error naming the server", e)
	}
	if want := []string{"mcp__fx__exit: connected 1", "mcp__fx__exit: crashed 0", "mcp__fx__echo: restarted 2", "mcp__fx__echo: connected 2"}; !slices.Equal(servers, want) {
		t.Errorf("mcp.server events %q, want %q", servers, want)
	}
	if len(decided) != 2 || decided[0].Effect != "ask" || decided[1].Effect != "ask" {
		t.Errorf("decisions %+v, want both to ask", decided)
	}
	for _, d := range decided {
		if !strings.Contains(d.Reason, "MCP server fx is not trusted: its tools are exec") {
			t.Errorf("the reason %q does not say that the server is untrusted", d.Reason)
		}
	}
	reqs := rec.requests()
	var offered []string
	for _, s := range reqs[0].Tools {
		offered = append(offered, s.Name)
	}
	if !strings.Contains(strings.Join(offered, " "), "mcp__fx__echo") || !strings.Contains(strings.Join(offered, " "), "read_file") {
		t.Errorf("offered %v", offered)
	}
	if last := reqs[len(reqs)-1]; !strings.Contains(last.Messages[len(last.Messages)-1].Text, "echo: from the model") {
		t.Errorf("the model did not read the result: %+v", last.Messages[len(last.Messages)-1])
	}
}
