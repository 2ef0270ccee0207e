package run_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"steward/backend/agent"
	"steward/backend/event"
	"steward/backend/llm"
	"steward/backend/run"
	"steward/backend/store"
	"steward/backend/tool"
)

// The helpers of the control tests: a model that holds its calls, tools that
// block or count, a writer of logs left by a crashed process, and waits.

// await receives one value from ch, failing the test after 5 s.
func await[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(5 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
		var zero T
		return zero
	}
}

// heldModel passes each model call to next, but holds the calls whose number
// (from 1, counted over every run it serves) hold selects until the test
// releases them, as a slow model stream would keep the run in its call.
type heldModel struct {
	next    llm.Provider
	hold    func(n int) bool
	calls   atomic.Int32
	entered chan int      // the number of each held call, when it starts waiting
	release chan struct{} // one value lets one held call go on
}

func newHeldModel(next llm.Provider, hold ...int) *heldModel {
	m := &heldModel{next: next, entered: make(chan int, 16), release: make(chan struct{})}
	m.hold = func(n int) bool {
		for _, h := range hold {
			if h == n {
				return true
			}
		}
		return false
	}
	return m
}

func (m *heldModel) Stream(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (*llm.Response, error) {
	n := int(m.calls.Add(1))
	if m.hold(n) {
		m.entered <- n
		select {
		case <-m.release:
		case <-ctx.Done():
			return nil, fmt.Errorf("held model call: %w", ctx.Err())
		}
	}
	return m.next.Stream(ctx, req, onDelta)
}

// gate is a read tool whose every call reports its start on entered and then
// waits for one value on release (it returns "released") or for its context
// to end.
type gate struct {
	calls   atomic.Int32
	entered chan struct{}
	release chan struct{}
}

func newGate() *gate {
	return &gate{entered: make(chan struct{}, 16), release: make(chan struct{})}
}

func (g *gate) tool() tool.Tool {
	return tool.Must(tool.New("gate", "Waits until the test lets it go.", tool.RiskRead,
		func(ctx context.Context, _ tool.Env, _ struct{}) (tool.Result, error) {
			g.calls.Add(1)
			g.entered <- struct{}{}
			select {
			case <-g.release:
				return tool.Result{Output: "released"}, nil
			case <-ctx.Done():
				return tool.Result{}, ctx.Err()
			}
		}))
}

// probeArgs are the arguments of the probe tool: a note that tells its calls
// apart.
type probeArgs struct {
	Note string `json:"note,omitempty"`
}

// probeTool is a read tool that counts its calls in n and answers with its
// note.
func probeTool(n *atomic.Int32) tool.Tool {
	return tool.Must(tool.New("probe", "Counts its calls.", tool.RiskRead,
		func(_ context.Context, _ tool.Env, a probeArgs) (tool.Result, error) {
			n.Add(1)
			return tool.Result{Output: "probed " + a.Note}, nil
		}))
}

var commandSeq atomic.Int64

// cmd is a command of type typ with a fresh command_id.
func cmd(typ string) run.Command {
	return run.Command{CommandID: fmt.Sprintf("%s-%d", typ, commandSeq.Add(1)), Type: typ}
}

// get returns the run's projection.
func (h *harness) get(t *testing.T, id string) store.Run {
	t.Helper()
	r, err := h.st.GetRun(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// waitRun waits until the run has status want, its reason contains reason,
// and its log has grown past seq after (so that a status the run had before
// a command is not taken for the one after it).
func (h *harness) waitRun(t *testing.T, id string, after int64, want run.Status, reason string) store.Run {
	t.Helper()
	var r store.Run
	deadline := time.Now().Add(5 * time.Second)
	for {
		var err error
		r, err = h.st.GetRun(context.Background(), id)
		if err == nil && r.LastSeq > after && run.Status(r.Status) == want && strings.Contains(r.Reason, reason) {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %s is %q (reason %q, seq %d); want %q with reason containing %q after seq %d",
				id, r.Status, r.Reason, r.LastSeq, want, reason, after)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// nextOf decodes the action a paused run takes next.
func nextOf(t *testing.T, r store.Run) event.Next {
	t.Helper()
	var n event.Next
	if err := json.Unmarshal([]byte(r.Next), &n); err != nil {
		t.Fatalf("run %s: next %q: %v", r.ID, r.Next, err)
	}
	return n
}

// countType returns how many events of type typ the log holds.
func countType(evs []event.Event, typ event.Type) int {
	n := 0
	for _, ev := range evs {
		if ev.Type == typ {
			n++
		}
	}
	return n
}

// startOf returns the node.started payload of node.
func startOf(t *testing.T, evs []event.Event, node string) event.NodeStartedData {
	t.Helper()
	for _, ev := range evs {
		if ev.Type == event.NodeStarted && ev.NodeID == node {
			return decode[event.NodeStartedData](t, ev)
		}
	}
	t.Fatalf("node %s was not started", node)
	return event.NodeStartedData{}
}

// crashLog writes the log of a run as a process that died would have left
// it, straight into the store, so that Recover finds it.
type crashLog struct {
	t   *testing.T
	st  *store.Store
	run string
}

// crashedRun records run id of agent a on h's workspace: run.created (with
// the agent's spec, as Start records it), running, the agent node n1 and the
// instructions n2. The caller adds what happened next.
func crashedRun(t *testing.T, h *harness, id string, a agent.Agent, instructions string) crashLog {
	t.Helper()
	spec, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	l := crashLog{t: t, st: h.st, run: id}
	l.add(event.RunCreated, "", event.RunCreatedData{
		Agent:        event.AgentRef{ID: a.ID, Name: a.Name, Provider: "script", Model: "test-model"},
		Instructions: instructions, Workspace: h.ws, Mode: a.Mode, MaxSteps: a.MaxSteps, Spec: spec,
		BreakBefore: a.BreakBefore,
	})
	l.add(event.RunStatus, "", event.RunStatusData{Status: string(run.Running)})
	l.add(event.NodeStarted, "n1", event.NodeStartedData{Kind: event.KindAgent, Label: a.Name})
	l.add(event.NodeStarted, "n2", event.NodeStartedData{Kind: event.KindUser, Parent: "n1", Label: "instructions", Text: instructions})
	l.add(event.NodeFinished, "n2", event.NodeFinishedData{Status: event.NodeSucceeded})
	return l
}

func (l crashLog) add(typ event.Type, node string, data any) {
	l.t.Helper()
	if _, err := l.st.Append(context.Background(), event.New(l.run, typ, node, data)); err != nil {
		l.t.Fatalf("append %s: %v", typ, err)
	}
}

// model records a model call that answered calls.
func (l crashLog) model(node string, step int, after []string, text string, calls ...event.ToolCall) {
	l.t.Helper()
	l.add(event.NodeStarted, node, event.NodeStartedData{Kind: event.KindLLM, Parent: "n1", After: after,
		Label: fmt.Sprintf("model call %d", step), Step: step, Model: "test-model"})
	stop := llm.StopEnd
	if len(calls) > 0 {
		stop = llm.StopToolCalls
	}
	l.add(event.NodeFinished, node, event.NodeFinishedData{Status: event.NodeSucceeded, Text: text, ToolCalls: calls, StopReason: stop})
}

// toolStarted records the start of a tool call's node and the policy's
// decision on it.
func (l crashLog) toolStarted(node, llmNode string, c event.ToolCall, risk tool.Risk, effect event.Effect) {
	l.t.Helper()
	l.add(event.NodeStarted, node, event.NodeStartedData{Kind: event.KindTool, Parent: llmNode, After: []string{llmNode},
		Label: c.Name, Tool: c.Name, CallID: c.ID, Arguments: c.Arguments, Risk: risk})
	l.add(event.PolicyDecided, node, event.PolicyDecidedData{Effect: effect, Reason: "test"})
}

// recoverOne runs Recover on h, which must resume exactly one run.
func (h *harness) recoverOne(t *testing.T) {
	t.Helper()
	if n, err := h.svc.Recover(context.Background()); err != nil || n != 1 {
		t.Fatalf("Recover = %d, %v; want 1", n, err)
	}
}
