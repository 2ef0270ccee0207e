package run_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"steward/backend/event"
	"steward/backend/inbox"
	"steward/backend/llm"
	"steward/backend/run"
	"steward/backend/store"
)

// twoParallelWrites asks for two writes in one turn.
const twoParallelWrites = `{"turns": [
	{"tool_calls": [
		{"name": "write_file", "arguments": {"path": "a.txt", "content": "A"}},
		{"name": "write_file", "arguments": {"path": "b.txt", "content": "B"}}
	]},
	{"text": "Finished."}
]}`

// pendingN waits until the run has n pending interactions and returns them
// oldest first.
func (h *harness) pendingN(t *testing.T, runID string, n int) []store.Interaction {
	t.Helper()
	var its []store.Interaction
	waitFor(t, 5*time.Second, fmt.Sprintf("%d pending interactions", n), func() bool {
		var err error
		its, err = h.st.ListInteractions(context.Background(), store.InteractionFilter{RunID: runID, Status: "pending"})
		if err != nil {
			t.Fatal(err)
		}
		return len(its) == n
	})
	for i, j := 0, len(its)-1; i < j; i, j = i+1, j-1 {
		its[i], its[j] = its[j], its[i]
	}
	return its
}

// callIDs maps tool node ids to the call ids of the model.
func callIDs(t *testing.T, evs []event.Event) map[string]string {
	out := map[string]string{}
	for _, ev := range evs {
		if ev.Type == event.NodeStarted {
			if d := decode[event.NodeStartedData](t, ev); d.Kind == event.KindTool {
				out[ev.NodeID] = d.CallID
			}
		}
	}
	return out
}

// The approvals of one turn's parallel calls open together, as one group,
// before either call runs; each is decided on its own, in any order, and
// the model reads each outcome, the denial's feedback included.
func TestParallelApprovalsOpenTogether(t *testing.T) {
	t.Parallel()
	rec := &recording{next: scripted(t, twoParallelWrites)}
	h := newHarness(t, fixed(rec))
	r := h.start(t, testAgent(), "write both")
	its := h.pendingN(t, r.ID, 2)
	if its[0].Group == "" || its[0].Group != its[1].Group || its[0].GroupSize != 2 || its[1].GroupSize != 2 {
		t.Fatalf("group %q/%q size %d/%d, want one group of 2", its[0].Group, its[1].Group, its[0].GroupSize, its[1].GroupSize)
	}
	if !strings.Contains(its[0].Arguments, "a.txt") || !strings.Contains(its[1].Arguments, "b.txt") {
		t.Fatalf("approvals out of order: %s, %s", its[0].Arguments, its[1].Arguments)
	}
	// The second is decided first: nothing runs until the first is.
	if _, err := h.in.Answer(context.Background(), its[1].ID, inbox.Decision{Decision: "approve", Source: "web"}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	if got := countType(h.events(t, r.ID), event.ToolExecuting); got != 0 {
		t.Fatalf("%d calls ran before the first was decided", got)
	}
	if _, err := h.in.Answer(context.Background(), its[0].ID, inbox.Decision{Decision: "deny", Feedback: "not a.txt", Source: "web"}); err != nil {
		t.Fatal(err)
	}
	end := h.waitEnd(t, r.ID, 5*time.Second)
	if end.Status != string(run.Completed) {
		t.Fatalf("run ended %s", end.Status)
	}
	if h.exists(t, "a.txt") || h.content(t, "b.txt") != "B" {
		t.Fatal("the denied call ran or the approved one did not")
	}
	evs := h.events(t, r.ID)
	checkLog(t, evs)
	ids := callIDs(t, evs)
	last := rec.requests()[1]
	if m := toolMessage(t, last, ids[its[0].NodeID]); !m.IsError || !strings.Contains(m.Text, "Their feedback: not a.txt") {
		t.Errorf("the model read %+v for the denied call", m)
	}
	if m := toolMessage(t, last, ids[its[1].NodeID]); m.IsError {
		t.Errorf("the model read %+v for the approved call", m)
	}
}

// Edit, then approve: the person's arguments run, are recorded, and the
// model is told; the registry's schema refuses a bad edit first.
func TestEditThenApprove(t *testing.T) {
	t.Parallel()
	rec := &recording{next: scripted(t, oneWrite)}
	h := newHarness(t, fixed(rec))
	r := h.start(t, testAgent(), "write")
	it := h.pending(t, r.ID)
	_, err := h.in.Answer(context.Background(), it.ID, inbox.Decision{Decision: "approve", Arguments: json.RawMessage(`{"path":"a.txt"}`)})
	if err == nil || !strings.Contains(err.Error(), "edited arguments for write_file") {
		t.Fatalf("an edit without content: %v", err)
	}
	edited := json.RawMessage(`{"path":"edited.txt","content":"by a person"}`)
	if _, err := h.in.Answer(context.Background(), it.ID, inbox.Decision{Decision: "approve", Arguments: edited, Source: "web"}); err != nil {
		t.Fatal(err)
	}
	if end := h.waitEnd(t, r.ID, 5*time.Second); end.Status != string(run.Completed) {
		t.Fatalf("run ended %s", end.Status)
	}
	if h.exists(t, "a.txt") || h.content(t, "edited.txt") != "by a person" {
		t.Fatal("the model's arguments ran, not the edited ones")
	}
	evs := h.events(t, r.ID)
	checkLog(t, evs)
	for _, ev := range evs {
		if ev.Type == event.ApprovalDecided {
			if d := decode[event.ApprovalDecidedData](t, ev); string(d.Arguments) != string(edited) {
				t.Errorf("approval.decided arguments %s, want %s", d.Arguments, edited)
			}
		}
	}
	m := toolMessage(t, rec.requests()[1], callIDs(t, evs)[it.NodeID])
	if !strings.Contains(m.Text, "the user edited your arguments") || !strings.Contains(m.Text, "edited.txt") {
		t.Errorf("the model read %q", m.Text)
	}
}

// An approval nobody answers takes the agent's default decision when its
// timeout ends; the model reads why.
func TestApprovalTimeout(t *testing.T) {
	t.Parallel()
	rec := &recording{next: scripted(t, oneWrite)}
	h := newHarness(t, fixed(rec))
	a := testAgent()
	a.ApprovalTimeout = "300ms"
	r := h.start(t, a, "write")
	it := h.pending(t, r.ID)
	if it.ExpiresAt == 0 || it.DefaultDecision != "deny" {
		t.Fatalf("interaction expires %d default %q", it.ExpiresAt, it.DefaultDecision)
	}
	if end := h.waitEnd(t, r.ID, 5*time.Second); end.Status != string(run.Completed) {
		t.Fatalf("run ended %s", end.Status)
	}
	if h.exists(t, "a.txt") {
		t.Fatal("a timed-out approval ran the call")
	}
	got, _ := h.st.GetInteraction(context.Background(), it.ID)
	if got.Source != inbox.SourceTimeout || got.Decision != "deny" {
		t.Fatalf("answer %+v", got)
	}
	m := toolMessage(t, rec.requests()[1], callIDs(t, h.events(t, r.ID))[it.NodeID])
	if !m.IsError || !strings.Contains(m.Text, "Nobody answered the approval in time") {
		t.Errorf("the model read %q", m.Text)
	}
}

const question = `{"turns": [
	{"tool_calls": [{"name": "ask_user", "arguments": {"question": "Which language?", "options": [{"label": "Go"}, {"label": "Rust"}], "allow_other": true}}]},
	{"tool_calls": [{"name": "update_plan", "arguments": {"steps": [{"title": "ask", "status": "done"}, {"title": "write", "status": "in_progress"}]}}]},
	{"text": "Finished."}
]}`

// ask_user opens a question; the answer becomes a user node after the call
// and the call's result; update_plan records the plan.
func TestAskUserAndPlan(t *testing.T) {
	t.Parallel()
	rec := &recording{next: scripted(t, question)}
	h := newHarness(t, fixed(rec))
	r := h.start(t, testAgent("ask_user", "update_plan"), "choose")
	it := h.pending(t, r.ID)
	if it.Kind != event.InteractionQuestion || !strings.Contains(it.Question, "Which language?") {
		t.Fatalf("interaction %+v", it)
	}
	if got := h.get(t, r.ID); !strings.Contains(got.Reason, "question: Which language?") {
		t.Errorf("status reason %q", got.Reason)
	}
	if _, err := h.in.Answer(context.Background(), it.ID, inbox.Decision{Decision: "answer", Choices: []string{"Go"}, Text: "1.26"}); err != nil {
		t.Fatal(err)
	}
	if end := h.waitEnd(t, r.ID, 5*time.Second); end.Status != string(run.Completed) {
		t.Fatalf("run ended %s", end.Status)
	}
	evs := h.events(t, r.ID)
	checkLog(t, evs)
	const answer = "The user chose: Go. They added: 1.26"
	if m := toolMessage(t, rec.requests()[1], callIDs(t, evs)[it.NodeID]); m.IsError || m.Text != answer {
		t.Errorf("the model read %+v", m)
	}
	var user, plan, next string
	for _, ev := range evs {
		switch ev.Type {
		case event.NodeStarted:
			d := decode[event.NodeStartedData](t, ev)
			if d.AnswerTo == it.NodeID && d.Text == answer && len(d.After) == 1 && d.After[0] == it.NodeID {
				user = ev.NodeID
			}
			if d.Kind == event.KindLLM && d.Step == 2 {
				next = strings.Join(d.After, ",")
			}
		case event.RunPlan:
			p := decode[event.RunPlanData](t, ev)
			plan = fmt.Sprint(p.Steps)
		}
	}
	if user == "" || next != user {
		t.Errorf("answer node %q; the next model call follows %q", user, next)
	}
	if plan != "[{ask done} {write in_progress}]" {
		t.Errorf("plan %s", plan)
	}
	// The answer reaches the model once: as the call's result, not as a
	// user message too.
	for _, m := range rec.requests()[1].Messages {
		if m.Role == llm.RoleUser && strings.Contains(m.Text, "Go") {
			t.Errorf("the answer was also sent as a user message")
		}
	}
}

// An unattended run has nobody to ask: ask_user fails at once and says so.
func TestAskUserUnattended(t *testing.T) {
	t.Parallel()
	rec := &recording{next: scripted(t, question)}
	h := newHarness(t, fixed(rec))
	r, err := h.svc.Start(context.Background(), run.StartParams{Agent: testAgent("ask_user", "update_plan"), Instructions: "choose", Workspace: h.ws, Unattended: true})
	if err != nil {
		t.Fatal(err)
	}
	if end := h.waitEnd(t, r.ID, 5*time.Second); end.Status != string(run.Completed) {
		t.Fatalf("run ended %s", end.Status)
	}
	if n := h.approvals(t, r.ID); n != 0 {
		t.Fatalf("%d interactions opened in an unattended run", n)
	}
	m := rec.requests()[1].Messages
	if last := m[len(m)-1]; !last.IsError || !strings.Contains(last.Text, "unattended") {
		t.Errorf("the model read %+v", last)
	}
}

func (h *harness) exists(t *testing.T, name string) bool {
	t.Helper()
	_, err := os.Stat(filepath.Join(h.ws, name))
	return err == nil
}

// A run waiting on a person holds up nobody else: another run starts,
// works and completes meanwhile, and the first goes on when answered.
func TestWaitingRunBlocksNoOther(t *testing.T) {
	t.Parallel()
	h := newHarness(t, fixed(scripted(t, oneWrite)))
	waiting := h.start(t, testAgent(), "write")
	it := h.pending(t, waiting.ID)
	a := testAgent()
	a.Mode = "auto"
	other := h.start(t, a, "write too")
	if end := h.waitEnd(t, other.ID, 5*time.Second); end.Status != string(run.Completed) {
		t.Fatalf("the other run ended %s", end.Status)
	}
	if got := h.get(t, waiting.ID); got.Status != string(run.Waiting) {
		t.Fatalf("the first run is %s, want still waiting", got.Status)
	}
	if _, err := h.in.Answer(context.Background(), it.ID, inbox.Decision{Decision: "approve"}); err != nil {
		t.Fatal(err)
	}
	if end := h.waitEnd(t, waiting.ID, 5*time.Second); end.Status != string(run.Completed) {
		t.Fatalf("the first run ended %s", end.Status)
	}
}
