package run_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"steward/backend/event"
	"steward/backend/inbox"
	"steward/backend/run"
	"steward/backend/store"
	"steward/backend/tool"
	"steward/backend/tools/mcp"
	"steward/backend/tools/mcp/mcptest"
)

// withFixture adds the fixture server "fx" to h's tools.
func withFixture(t *testing.T, h *harness) {
	t.Helper()
	m := mcp.New(mcp.Options{Servers: map[string]mcp.Server{"fx": mcptest.Stdio(nil)}, Logf: t.Logf})
	for _, src := range m.Sources() {
		if err := h.reg.AddSource(src); err != nil {
			t.Fatal(err)
		}
	}
	h.reg.AddRunEnder(m)
}

// pendingElicitation waits for the run's one pending interaction to be a
// server's question, with the run waiting.
func (h *harness) pendingElicitation(t *testing.T, runID string) store.Interaction {
	t.Helper()
	it := h.pending(t, runID)
	if it.Kind != event.InteractionElicitation {
		t.Fatalf("pending %s is a %s, want an elicitation", it.ID, it.Kind)
	}
	return it
}

// A server's question while its call runs opens in the inbox, the run
// waits; a wrong answer is refused naming the field, the answer reaches the
// server with the form's defaults, a decline reaches it as decline, and
// the call's own decision and node are untouched by either.
func TestMCPElicitationAsksThePersonWhileTheCallRuns(t *testing.T) {
	t.Parallel()
	rec := &recording{next: scripted(t, `{"turns": [
		{"tool_calls": [{"name": "mcp__fx__ask", "arguments": {"message": "Which colour?", "schema": {"type": "object",
			"properties": {"colour": {"type": "string", "enum": ["red", "green"]}, "n": {"type": "integer", "default": 3}}, "required": ["colour"]}}}]},
		{"tool_calls": [{"name": "mcp__fx__ask", "arguments": {"message": "Sign in", "url": "https://auth.example/consent"}}]},
		{"text": "Done: {{last_tool_output}}"}
	]}`)}
	h := newHarness(t, fixed(rec))
	withFixture(t, h)
	r := h.start(t, autoAgent(mcp.Pattern("fx")), "ask me")

	it := h.pendingElicitation(t, r.ID)
	var q event.Question
	if err := json.Unmarshal([]byte(it.Question), &q); err != nil {
		t.Fatal(err)
	}
	if q.Server != "fx" || q.Text != "Which colour?" || !strings.Contains(string(q.Schema), `"colour"`) || it.Tool != "mcp__fx__ask" {
		t.Errorf("asked %+v on %s", q, it.Tool)
	}
	if got, err := h.st.GetRun(context.Background(), r.ID); err != nil || got.Reason != "input for the MCP server fx" {
		t.Errorf("the run waits %q (%v)", got.Reason, err)
	}
	_, err := h.in.Answer(context.Background(), it.ID, inbox.Decision{Decision: "answer", Source: "web", Content: json.RawMessage(`{"colour": "blue"}`)})
	if !errors.Is(err, inbox.ErrInvalid) || !strings.Contains(err.Error(), "colour") {
		t.Errorf("a colour not offered: %v, want invalid naming the field", err)
	}
	for _, bad := range []inbox.Decision{{Decision: "approve"}, {Decision: "answer", Text: "green"}, {Decision: "deny", Content: json.RawMessage(`{"colour":"red"}`)}} {
		if _, err := h.in.Answer(context.Background(), it.ID, bad); !errors.Is(err, inbox.ErrInvalid) {
			t.Errorf("%+v: %v, want invalid", bad, err)
		}
	}
	if _, err := h.in.Answer(context.Background(), it.ID, inbox.Decision{Decision: "answer", Source: "web", Content: json.RawMessage(`{"colour": "green"}`)}); err != nil {
		t.Fatal(err)
	}
	page := h.pendingElicitation(t, r.ID)
	if err := json.Unmarshal([]byte(page.Question), &q); err != nil || q.URL != "https://auth.example/consent" {
		t.Errorf("the page asked %+v (%v)", q, err)
	}
	if _, err := h.in.Answer(context.Background(), page.ID, inbox.Decision{Decision: "deny", Source: "web"}); err != nil {
		t.Fatal(err)
	}
	evs := h.completed(t, r.ID)
	sentAsFolded(t, rec, evs)
	var outputs []string
	statuses := map[string]bool{}
	for _, ev := range evs {
		switch ev.Type {
		case event.NodeFinished:
			if d := decode[event.NodeFinishedData](t, ev); strings.HasPrefix(d.Output, mcptest.AskAnswer) {
				outputs = append(outputs, d.Output)
				if d.Status != event.NodeSucceeded {
					t.Errorf("%s finished %s", ev.NodeID, d.Status)
				}
			}
		case event.RunStatus:
			d := decode[event.RunStatusData](t, ev)
			statuses[d.Status+": "+d.Reason] = true
		case event.ApprovalDecided:
			if d := decode[event.ApprovalDecidedData](t, ev); d.Kind != event.InteractionElicitation {
				t.Errorf("seq %d: decided %+v, want an elicitation's", ev.Seq, d)
			}
		}
	}
	want := []string{mcptest.AskAnswer + `{"action":"accept","content":{"colour":"green","n":3}}`, mcptest.AskAnswer + `{"action":"decline"}`}
	if strings.Join(outputs, "\n") != strings.Join(want, "\n") {
		t.Errorf("the server heard %q, want %q", outputs, want)
	}
	if !statuses["waiting: input for the MCP server fx"] || !statuses["running: "] {
		t.Errorf("statuses %v: want waiting for the server's question, then running", statuses)
	}
	for node, st := range h.nodeStatus(t, r.ID) {
		if st == event.NodeDenied {
			t.Errorf("node %s is denied: a declined question is no denied call", node)
		}
	}
}

// Nobody is asked in an unattended run: the server hears decline.
func TestMCPElicitationInAnUnattendedRunDeclines(t *testing.T) {
	t.Parallel()
	rec := &recording{next: scripted(t, `{"turns": [
		{"tool_calls": [{"name": "mcp__fx__ask", "arguments": {"message": "Sign in", "url": "https://auth.example/consent"}}]},
		{"text": "Done: {{last_tool_output}}"}
	]}`)}
	h := newHarness(t, fixed(rec))
	withFixture(t, h)
	r, err := h.svc.Start(context.Background(), run.StartParams{Agent: autoAgent(mcp.Pattern("fx")), Instructions: "go", Workspace: h.ws, Unattended: true})
	if err != nil {
		t.Fatal(err)
	}
	evs := h.completed(t, r.ID)
	if n := countType(evs, event.ApprovalRequested); n != 0 {
		t.Errorf("%d interactions opened in an unattended run", n)
	}
	if last := rec.requests(); !strings.Contains(last[len(last)-1].Messages[len(last[len(last)-1].Messages)-1].Text, `{"action":"decline"}`) {
		t.Errorf("the model read %+v", last[len(last)-1].Messages)
	}
}

// A question open when the process died is withdrawn at the restart: its
// server died with the process, and nothing would read the answer.
func TestElicitationOpenAtACrashIsWithdrawn(t *testing.T) {
	t.Parallel()
	h := newHarness(t, fixed(&recording{next: scripted(t, `{"turns": [{"text": "unused"}]}`)}))
	withFixture(t, h)
	l := crashedRun(t, h, "run_crashed", autoAgent(mcp.Pattern("fx")), "go")
	c := event.ToolCall{ID: "call_1_0", Name: "mcp__fx__ask", Arguments: json.RawMessage(`{"message":"x","url":"https://a.example/"}`)}
	l.model("n3", 1, []string{"n2"}, "Asking.", c)
	l.toolStarted("n4", "n3", c, tool.RiskExec, "allow")
	l.add(event.ToolExecuting, "n4", event.ToolExecutingData{})
	l.add(event.ApprovalRequested, "n4", event.ApprovalRequestedData{InteractionID: "ia_q", Kind: event.InteractionElicitation,
		Tool: c.Name, Arguments: c.Arguments, Risk: event.Risk(tool.RiskRead), Reason: "the MCP server fx asks",
		Question: &event.Question{Text: "x", Server: "fx", URL: "https://a.example/"}})
	h.recoverOne(t)
	h.waitRun(t, l.run, 0, run.Paused, "recovered: mcp__fx__ask was interrupted and may or may not have run; retry, skip or cancel")
	var it store.Interaction
	waitFor(t, 5*time.Second, "the question withdrawn", func() bool {
		var err error
		it, err = h.st.GetInteraction(context.Background(), "ia_q")
		return err == nil && it.Status == event.InteractionAnswered
	})
	if it.Decision != event.DecisionDeny || it.Source != inbox.SourceWithdrawn || !strings.Contains(it.Feedback, "Steward stopped") {
		t.Errorf("withdrawn as %+v", it)
	}
	if got := h.nodeStatus(t, l.run)["n4"]; got != event.NodeInterrupted {
		t.Errorf("n4 is %s, want interrupted", got)
	}
}
