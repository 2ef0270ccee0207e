package run_test

// Budgets (steps, tokens, cost) that pause a run, unattended runs that
// cannot ask, and what Start refuses.

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"steward/backend/agent"
	"steward/backend/event"
	"steward/backend/llm"
	"steward/backend/run"
	"steward/backend/store"
)

func TestBudgetsPauseAndRaise(t *testing.T) {
	t.Parallel()
	const loop = `{"text": "again", "tool_calls": [{"name": "list_dir"}]}`
	h := newHarness(t, fixed(scripted(t, `{"turns": [`+strings.Repeat(loop+",", 5)+`{"text": "done"}]}`)))
	a := testAgent()
	a.MaxSteps = 2
	r := h.start(t, a, "go round")
	// Reaching max_steps pauses the run before its third model call.
	p := h.waitStatus(t, r.ID, run.Paused)
	if p.Steps != 2 || !strings.Contains(p.Reason, "budget: max_steps 2 reached") || !strings.Contains(p.Next, `"max_steps":2`) {
		t.Errorf("run = %+v, want paused by max_steps after 2 steps", p)
	}
	// Continue without raising the budget is refused with the reason.
	if got := h.command(t, r.ID, run.Command{CommandID: "k1", Type: "continue"}); got.Status != "rejected" || got.Code != run.CodeInvalidState || !strings.Contains(got.Message, "max_steps") {
		t.Errorf("continue without a raise = %+v", got)
	}
	// A raise that is still too low is refused too; a real one goes on.
	low := &event.Limits{MaxSteps: 2}
	if got := h.command(t, r.ID, run.Command{CommandID: "k2", Type: "continue", Limits: low}); got.Status != "rejected" {
		t.Errorf("continue with the same limit = %+v", got)
	}
	if got := h.command(t, r.ID, run.Command{CommandID: "k3", Type: "continue", Limits: &event.Limits{MaxSteps: 4}}); got.Status != "accepted" {
		t.Fatalf("continue with max_steps 4 = %+v", got)
	}
	deadline := time.Now().Add(5 * time.Second)
	for p.Status != "paused" || p.Steps != 4 {
		if time.Now().After(deadline) {
			t.Fatalf("run = %+v, want paused again after 4 steps", p)
		}
		time.Sleep(2 * time.Millisecond)
		p, _ = h.st.GetRun(context.Background(), r.ID)
	}
	h.command(t, r.ID, run.Command{CommandID: "k4", Type: "continue", Limits: &event.Limits{MaxSteps: 100}})
	end := h.waitEnd(t, r.ID, 5*time.Second)
	if end.Status != "completed" || end.Steps != 6 {
		t.Errorf("run = %+v, want completed after 6 steps", end)
	}
	evs := h.events(t, r.ID)
	checkLog(t, evs)
	raises := 0
	for _, ev := range evs {
		if ev.Type == event.RunLimits {
			raises++
		}
	}
	if raises != 2 {
		t.Errorf("%d run.limits events, want 2", raises)
	}
	if _, err := h.svc.Command(context.Background(), r.ID, run.Command{CommandID: "k5", Type: "pause", Limits: &event.Limits{MaxSteps: 1}}); !errors.Is(err, run.ErrInvalid) {
		t.Errorf("limits with pause: %v, want ErrInvalid", err)
	}
}

func TestCostBudget(t *testing.T) {
	t.Parallel()
	const loop = `{"text": "again", "tool_calls": [{"name": "list_dir"}]}`
	h := newHarness(t, fixed(scripted(t, `{"turns": [`+strings.Repeat(loop+",", 3)+`{"text": "done"}]}`)))
	// Every call costs one dollar.
	svc := h.service(t, func(c *run.Config) {
		c.Price = func(string, llm.Usage) (float64, bool) { return 1, true }
	})
	a := testAgent()
	a.MaxCostUSD = 1.5
	r, err := svc.Start(context.Background(), run.StartParams{Agent: a, Instructions: "spend", Workspace: h.ws})
	if err != nil {
		t.Fatal(err)
	}
	p := h.waitStatus(t, r.ID, run.Paused)
	if p.Steps != 2 || p.CostUSD != 2 || !strings.Contains(p.Reason, "max_cost_usd $1.5000 reached ($2.0000 spent)") {
		t.Errorf("run = %+v, want paused by cost after 2 calls", p)
	}
	if _, err := svc.Command(context.Background(), r.ID, run.Command{CommandID: "c", Type: "cancel"}); err != nil {
		t.Fatal(err)
	}
	h.waitStatus(t, r.ID, run.Cancelled)
}

func TestUnattendedDeniesAsk(t *testing.T) {
	t.Parallel()
	rec := &recording{next: scripted(t, `{"turns": [
		{"tool_calls": [{"name": "write_file", "arguments": {"path": "out.txt", "content": "x"}}]},
		{"text": "Could not write."}
	]}`)}
	h := newHarness(t, fixed(rec))
	r, err := h.svc.Start(context.Background(), run.StartParams{Agent: testAgent(), Instructions: "write", Workspace: h.ws, Unattended: true})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Unattended {
		t.Errorf("run not recorded as unattended: %+v", r)
	}
	end := h.waitEnd(t, r.ID, 5*time.Second)
	if end.Status != "completed" {
		t.Errorf("run = %+v", end)
	}
	evs := h.events(t, r.ID)
	checkLog(t, evs)
	var policy []event.PolicyDecidedData
	for _, ev := range evs {
		switch ev.Type {
		case event.PolicyDecided:
			policy = append(policy, decode[event.PolicyDecidedData](t, ev))
		case event.ApprovalRequested:
			t.Errorf("an approval was opened in an unattended run")
		case event.RunStatus:
			if st := decode[event.RunStatusData](t, ev).Status; st == string(run.Waiting) {
				t.Errorf("unattended run waited")
			}
		}
	}
	if len(policy) != 1 || policy[0].Effect != "deny" || !strings.Contains(policy[0].Reason, "unattended") {
		t.Errorf("policy decisions = %+v, want one deny naming unattended", policy)
	}
	if d := finished(t, evs, "n4"); d.Status != event.NodeDenied || !d.IsError {
		t.Errorf("tool node = %+v", d)
	}
	its, err := h.st.ListInteractions(context.Background(), store.InteractionFilter{RunID: r.ID})
	if err != nil || len(its) != 0 {
		t.Errorf("interactions = %+v, %v", its, err)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "out.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("out.txt was written: %v", err)
	}
	if m := toolMessage(t, rec.requests()[1], "call_1_0"); !m.IsError || !strings.Contains(m.Text, "unattended") {
		t.Errorf("tool message = %+v", m)
	}
}

func TestStartValidation(t *testing.T) {
	t.Parallel()
	h := newHarness(t, fixed(scripted(t, `{"turns": [{"text": "hi"}]}`)))
	h.writeFile(t, "file.txt", "x")
	missing := filepath.Join(h.ws, "missing")
	tests := []struct {
		name string
		p    run.StartParams
		want string
	}{
		{"empty instructions", run.StartParams{Instructions: "", Workspace: h.ws}, "instructions are empty"},
		{"blank instructions", run.StartParams{Instructions: " \n\t", Workspace: h.ws}, "instructions are empty"},
		{"too long instructions", run.StartParams{Instructions: strings.Repeat("x", 256<<10+1), Workspace: h.ws}, "instructions are"},
		{"empty workspace", run.StartParams{Instructions: "go"}, "workspace is empty"},
		{"missing workspace", run.StartParams{Instructions: "go", Workspace: missing}, missing + " does not exist"},
		{"workspace is a file", run.StartParams{Instructions: "go", Workspace: filepath.Join(h.ws, "file.txt")}, "is not a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.p
			p.Agent = testAgent()
			_, err := h.svc.Start(context.Background(), p)
			if !errors.Is(err, run.ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Start error = %v, want ErrInvalid containing %q", err, tt.want)
			}
		})
	}

	t.Run("model cannot be resolved", func(t *testing.T) {
		h := newHarness(t, &models{resolve: func(context.Context, agent.Agent) (run.Model, error) {
			return run.Model{}, errors.New("no API key configured")
		}})
		_, err := h.svc.Start(context.Background(), run.StartParams{Agent: testAgent(), Instructions: "go", Workspace: h.ws})
		if !errors.Is(err, run.ErrInvalid) || !strings.Contains(err.Error(), "no API key configured") {
			t.Errorf("Start error = %v", err)
		}
		assertNoRuns(t, h)
	})

	assertNoRuns(t, h)
}

func assertNoRuns(t *testing.T, h *harness) {
	t.Helper()
	runs, err := h.st.ListRuns(context.Background(), store.RunFilter{})
	if err != nil || len(runs) != 0 {
		t.Errorf("runs recorded after refused starts: %+v, %v", runs, err)
	}
}
