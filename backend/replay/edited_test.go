package replay_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"steward/backend/agent"
	"steward/backend/event"
	"steward/backend/inbox"
	"steward/backend/llm"
	"steward/backend/replay"
	"steward/backend/run"
	"steward/backend/tools/shell"
)

// capturing is a provider that keeps every request it is sent.
type capturing struct {
	inner llm.Provider
	mu    atomic.Pointer[[]llm.Request]
}

func (c *capturing) Stream(ctx context.Context, req llm.Request, on func(llm.Delta)) (*llm.Response, error) {
	for {
		old := c.mu.Load()
		var next []llm.Request
		if old != nil {
			next = append(next, *old...)
		}
		next = append(next, req)
		if c.mu.CompareAndSwap(old, &next) {
			break
		}
	}
	return c.inner.Stream(ctx, req, on)
}

func (c *capturing) requests() []llm.Request {
	if p := c.mu.Load(); p != nil {
		return *p
	}
	return nil
}

// A person edits a run_command before approving it; the run is recorded and
// replayed with the recorded results. The replay sends the model what the
// recorded run sent: the tool result carries the "user edited your
// arguments" note once, as it did, and no divergence is reported. (The
// replay used to add the note a second time to the recorded result, which
// had it already, and reported a false divergence.)
func TestReplayOfAnEditedCallDoesNotDiverge(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, tl := range shell.Tools(nil) {
		if err := e.reg.Register(tl); err != nil {
			t.Fatal(err)
		}
	}
	ws := t.TempDir()
	src := &capturing{inner: scripted(t, `{"turns": [
		{"text": "Listing.", "tool_calls": [{"name": "run_command", "arguments": {"command": "echo from-the-model"}}]},
		{"text": "done"}]}`)}
	svc := e.service(t, run.Config{Models: fixedModels{src}})
	var id atomic.Value
	id.Store("")
	edited := json.RawMessage(`{"command":"echo from-a-person"}`)
	e.answerer(t, func() string { return id.Load().(string) }, inbox.Decision{Decision: "approve", Arguments: edited, Source: "web"})
	a := agent.Agent{ID: "ag_test", Name: "tester", Provider: agent.ProviderScript, Tools: []string{shell.RunCommand}, Mode: agent.ModeAsk,
		MaxSteps: 10, Sandbox: "off"}
	r, err := svc.Start(context.Background(), run.StartParams{Agent: a, Instructions: "list", Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	id.Store(r.ID)
	if got := e.wait(t, svc, r.ID); got.Status != string(run.Completed) {
		t.Fatalf("source ended %s (%s)", got.Status, got.Error)
	}
	recorded := toolText(t, src.requests()[1])
	if n := strings.Count(recorded, "the user edited your arguments"); n != 1 || !strings.Contains(recorded, "from-a-person") {
		t.Fatalf("the recorded run's model read %q", recorded)
	}

	rec, err := replay.Load(bundleOf(t, e, r.ID))
	if err != nil {
		t.Fatal(err)
	}
	p := replay.NewProvider(rec, replay.Options{})
	got := &capturing{inner: p}
	rsvc := e.service(t, run.Config{Models: fixedModels{got}, Tools: replay.NewTools(rec, e.reg, replay.ToolsOptions{Provider: p}),
		Approver: replay.NewApprover(rec, e.in, p, nil)})
	rr, err := rsvc.Start(context.Background(), rec.StartParams(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	if end := e.wait(t, rsvc, rr.ID); end.Status != string(run.Completed) {
		t.Fatalf("replay ended %s (%s)", end.Status, end.Error)
	}
	if d, ok := p.Divergence(); ok {
		t.Errorf("diverged: %v", d)
	}
	if text := toolText(t, got.requests()[1]); text != recorded {
		t.Errorf("the replay's model read %q, the recorded run's %q", text, recorded)
	}
	for _, ev := range e.events(t, rr.ID) {
		if ev.Type == event.ReplayDiverged {
			t.Errorf("replay.diverged recorded: %s", ev.Data)
		}
	}
}

// toolText is the text of the only tool result of req.
func toolText(t *testing.T, req llm.Request) string {
	t.Helper()
	var out []string
	for _, m := range req.Messages {
		if m.Role == llm.RoleTool {
			out = append(out, m.Text)
		}
	}
	if len(out) != 1 {
		t.Fatalf("%d tool results in %+v", len(out), req.Messages)
	}
	return out[0]
}
