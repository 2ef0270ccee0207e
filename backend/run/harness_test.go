package run_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"steward/backend/agent"
	"steward/backend/event"
	"steward/backend/inbox"
	"steward/backend/llm"
	"steward/backend/llm/script"
	"steward/backend/run"
	"steward/backend/store"
	"steward/backend/tool"
	fstools "steward/backend/tools/fs"
	"steward/backend/tools/interact"
	"steward/backend/tools/mcp/mcptest"
	"steward/backend/workspace"
)

func TestMain(m *testing.M) {
	mcptest.ServeIfAsked() // the MCP server of mcp_test.go is this binary again
	goleak.VerifyTestMain(m)
}

// models is a run.Models whose answer is a function field.
type models struct {
	resolve func(ctx context.Context, a agent.Agent) (run.Model, error)
}

func (m *models) Resolve(ctx context.Context, a agent.Agent) (run.Model, error) {
	return m.resolve(ctx, a)
}

// fixed resolves every agent to p.
func fixed(p llm.Provider) *models {
	return &models{resolve: func(context.Context, agent.Agent) (run.Model, error) {
		return run.Model{Provider: p, Name: "script", Model: "test-model"}, nil
	}}
}

// provider is an llm.Provider whose Stream is a function field.
type provider struct {
	stream func(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (*llm.Response, error)
}

func (p *provider) Stream(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (*llm.Response, error) {
	return p.stream(ctx, req, onDelta)
}

// recording passes every call to next and keeps a copy of each request.
type recording struct {
	next llm.Provider
	mu   sync.Mutex
	reqs []llm.Request
}

func (r *recording) Stream(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (*llm.Response, error) {
	c := req
	c.Messages = slices.Clone(req.Messages)
	c.Tools = slices.Clone(req.Tools)
	r.mu.Lock()
	r.reqs = append(r.reqs, c)
	r.mu.Unlock()
	return r.next.Stream(ctx, req, onDelta)
}

func (r *recording) requests() []llm.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.reqs)
}

// scripted returns a script provider playing src, a script in JSON.
func scripted(t *testing.T, src string) *script.Provider {
	t.Helper()
	s, err := script.Parse([]byte(src))
	if err != nil {
		t.Fatalf("script.Parse: %v", err)
	}
	return script.New(s, script.Options{})
}

// blockTool is a read tool that reports its start on started and then waits
// for its context to end, as a long network or exec call would.
func blockTool(started chan<- struct{}) tool.Tool {
	return tool.Must(tool.New("block", "Waits until cancelled.", tool.RiskRead,
		func(ctx context.Context, _ tool.Env, _ struct{}) (tool.Result, error) {
			started <- struct{}{}
			<-ctx.Done()
			return tool.Result{}, ctx.Err()
		}))
}

// harness is a Service composed of the production pieces: a real store in a
// temporary directory publishing to a bus, the inbox, the registry with the
// file tools.
type harness struct {
	st   *store.Store
	bus  *event.Bus
	in   *inbox.Inbox
	reg  *tool.Registry
	svc  *run.Service
	cfg  run.Config // of svc
	ws   string     // workspace directory
	path string     // database file
	m    run.Models
	tls  []tool.Tool
}

func newHarness(t *testing.T, m run.Models, extra ...tool.Tool) *harness {
	t.Helper()
	dir := t.TempDir()
	h := &harness{bus: event.NewBus(), ws: filepath.Join(dir, "ws"), path: filepath.Join(dir, "steward.db")}
	if err := os.Mkdir(h.ws, 0o755); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(h.path, &store.Options{Publisher: h.bus})
	if err != nil {
		t.Fatal(err)
	}
	h.st = st
	// The runs' agent exists here: a fork of its runs keeps their settings
	// (see run.Origin).
	if err := st.CreateAgent(context.Background(), testAgent()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := st.Close(); err != nil {
			t.Errorf("close store: %v", err)
		}
	})
	var n atomic.Int64
	newID := func(prefix string) string { return fmt.Sprintf("%s_%d", prefix, n.Add(1)) }
	h.reg = tool.NewRegistry()
	for _, tl := range append(append(fstools.Tools(), interact.Tools()...), extra...) {
		if err := h.reg.Register(tl); err != nil {
			t.Fatal(err)
		}
	}
	h.in = inbox.New(st, h.reg, func() string { return newID("ia") })
	blobs, err := workspace.NewBlobs(filepath.Join(filepath.Dir(h.path), "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	h.cfg = run.Config{Store: st, Approver: h.in, Tools: h.reg, Models: m, NewID: newID, Logf: t.Logf, Blobs: blobs}
	h.svc = h.service(t, nil)
	h.m, h.tls = m, extra
	return h
}

// restart stops h's service and returns a harness over the same database
// file and workspace with a new store, inbox and service, as a new process
// after a restart. Ids keep counting where h's left off.
func (h *harness) restart(t *testing.T) *harness {
	t.Helper()
	if err := h.svc.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	bus := event.NewBus()
	st, err := store.Open(h.path, &store.Options{Publisher: bus})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	h2 := &harness{st: st, bus: bus, reg: h.reg, ws: h.ws, path: h.path, m: h.m, tls: h.tls}
	h2.in = inbox.New(st, h.reg, func() string { return h.cfg.NewID("ia") })
	h2.cfg = h.cfg
	h2.cfg.Store, h2.cfg.Approver = st, h2.in
	h2.svc = h2.service(t, nil)
	return h2
}

// waitStatus waits until the run has status want.
func (h *harness) waitStatus(t *testing.T, id string, want run.Status) store.Run {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		r, err := h.st.GetRun(context.Background(), id)
		if err == nil && run.Status(r.Status) == want {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %s has status %q (%s), want %q", id, r.Status, r.Reason, want)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// service returns a new Service over the harness's pieces, changed by edit
// when it is not nil, and stops it when the test ends.
func (h *harness) service(t *testing.T, edit func(*run.Config)) *run.Service {
	t.Helper()
	cfg := h.cfg
	if edit != nil {
		edit(&cfg)
	}
	svc := run.New(cfg)
	// Cleanups run last first: the runs stop before the store closes.
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := svc.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	})
	return svc
}

// testAgent is an agent in mode ask with the given tools (the file tools
// when none are given).
func testAgent(tools ...string) agent.Agent {
	if len(tools) == 0 {
		tools = []string{"list_dir", "read_file", "write_file"}
	}
	return agent.Agent{ID: "ag_test", Name: "tester", Provider: agent.ProviderScript, SystemPrompt: "You are a test agent.",
		Tools: tools, Mode: agent.ModeAsk, MaxSteps: 10}
}

func (h *harness) start(t *testing.T, a agent.Agent, instructions string) store.Run {
	t.Helper()
	r, err := h.svc.Start(context.Background(), run.StartParams{Agent: a, Instructions: instructions, Workspace: h.ws})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	return r
}

func (h *harness) writeFile(t *testing.T, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(h.ws, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// waitFor polls cond until it holds, failing the test after timeout.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// waitEnd waits until the run's goroutine has ended and returns the run,
// which must then be terminal.
func (h *harness) waitEnd(t *testing.T, id string, timeout time.Duration) store.Run {
	t.Helper()
	if done := h.svc.Done(id); done != nil {
		select {
		case <-done:
		case <-time.After(timeout):
			r, _ := h.st.GetRun(context.Background(), id)
			t.Fatalf("run %s did not end within %v; status %q", id, timeout, r.Status)
		}
	}
	r, err := h.st.GetRun(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if !run.Status(r.Status).Terminal() {
		t.Fatalf("run %s ended its goroutine with status %q", id, r.Status)
	}
	return r
}

// pending waits until the run waits on one approval and returns it.
func (h *harness) pending(t *testing.T, runID string) store.Interaction {
	t.Helper()
	var it store.Interaction
	waitFor(t, 5*time.Second, "a pending approval and status waiting", func() bool {
		its, err := h.st.ListInteractions(context.Background(), store.InteractionFilter{RunID: runID, Status: "pending"})
		if err != nil {
			t.Fatal(err)
		}
		r, err := h.st.GetRun(context.Background(), runID)
		if err != nil {
			t.Fatal(err)
		}
		if len(its) == 1 && r.Status == string(run.Waiting) {
			it = its[0]
			return true
		}
		return false
	})
	return it
}

func (h *harness) events(t *testing.T, runID string) []event.Event {
	t.Helper()
	evs, err := h.st.Events(context.Background(), runID, 0, 10000)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// nodeStatus returns the projected status of every node of the run.
func (h *harness) nodeStatus(t *testing.T, runID string) map[string]string {
	t.Helper()
	nodes, _, err := h.st.Graph(context.Background(), runID)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, n := range nodes {
		out[n.ID] = n.Status
	}
	return out
}

func (h *harness) command(t *testing.T, runID string, c run.Command) run.CommandResult {
	t.Helper()
	res, err := h.svc.Command(context.Background(), runID, c)
	if err != nil {
		t.Fatalf("Command(%+v): %v", c, err)
	}
	return res
}

func decode[T any](t *testing.T, ev event.Event) T {
	t.Helper()
	var v T
	if err := ev.Decode(&v); err != nil {
		t.Fatalf("decode %s (seq %d): %v", ev.Type, ev.Seq, err)
	}
	return v
}

// trace renders the events of a run, without llm.delta, one short line
// each, so that a whole run reads as one expected list.
func trace(t *testing.T, evs []event.Event) []string {
	t.Helper()
	var out []string
	for _, ev := range evs {
		switch ev.Type {
		case event.LLMDelta:
			continue
		case event.RunStatus:
			out = append(out, "run.status "+decode[event.RunStatusData](t, ev).Status)
		case event.NodeStarted:
			d := decode[event.NodeStartedData](t, ev)
			s := fmt.Sprintf("start %s %s", ev.NodeID, d.Kind)
			if d.Tool != "" {
				s += " " + d.Tool
			}
			if d.Parent != "" {
				s += " parent=" + d.Parent
			}
			if len(d.After) > 0 {
				s += " after=" + strings.Join(d.After, ",")
			}
			out = append(out, s)
		case event.NodeFinished:
			out = append(out, fmt.Sprintf("finish %s %s", ev.NodeID, decode[event.NodeFinishedData](t, ev).Status))
		case event.PolicyDecided:
			out = append(out, fmt.Sprintf("policy %s %s", ev.NodeID, decode[event.PolicyDecidedData](t, ev).Effect))
		case event.ApprovalRequested:
			out = append(out, fmt.Sprintf("approval.requested %s %s", ev.NodeID, decode[event.ApprovalRequestedData](t, ev).Tool))
		case event.ApprovalDecided:
			out = append(out, fmt.Sprintf("approval.decided %s %s", ev.NodeID, decode[event.ApprovalDecidedData](t, ev).Decision))
		case event.FileChanged:
			out = append(out, fmt.Sprintf("file.changed %s %s", ev.NodeID, decode[event.FileChangedData](t, ev).Path))
		default:
			out = append(out, string(ev.Type))
		}
	}
	return out
}

// checkLog checks what holds for the log of every run: seq dense from 1,
// run.created first, node ids unique, every node.started closed by exactly
// one node.finished, parents and after-nodes started earlier, and one
// terminal run.status per turn: the last event, or followed only by what a
// run gets after its end until a follow-up opens the next turn.
func checkLog(t *testing.T, evs []event.Event) {
	t.Helper()
	if len(evs) == 0 {
		t.Fatal("empty log")
	}
	if evs[0].Type != event.RunCreated {
		t.Errorf("first event is %s, want run.created", evs[0].Type)
	}
	started := map[string]bool{}
	finished := map[string]int{}
	terminal, turns := 0, 1
	for i, ev := range evs {
		if ev.Seq != int64(i+1) {
			t.Errorf("event %d has seq %d, want %d", i, ev.Seq, i+1)
		}
		switch ev.Type {
		case event.NodeStarted:
			if started[ev.NodeID] {
				t.Errorf("seq %d: node %s started twice", ev.Seq, ev.NodeID)
			}
			d := decode[event.NodeStartedData](t, ev)
			for _, dep := range append([]string{d.Parent}, d.After...) {
				if dep != "" && !started[dep] {
					t.Errorf("seq %d: node %s refers to %s, which has not started", ev.Seq, ev.NodeID, dep)
				}
			}
			started[ev.NodeID] = true
		case event.NodeFinished:
			if !started[ev.NodeID] {
				t.Errorf("seq %d: node %s finished before it started", ev.Seq, ev.NodeID)
			}
			finished[ev.NodeID]++
		case event.RunStatus:
			d := decode[event.RunStatusData](t, ev)
			if d.Reason == "follow-up" {
				turns++
			}
			if run.Status(d.Status).Terminal() {
				terminal++
				if i != len(evs)-1 && !onlyAfterTheEnd(untilFollowUp(evs[i+1:])) {
					t.Errorf("seq %d: terminal run.status is not the last event of its turn", ev.Seq)
				}
			}
		}
	}
	for id := range started {
		if finished[id] != 1 {
			t.Errorf("node %s has %d node.finished events, want 1", id, finished[id])
		}
	}
	if terminal != turns {
		t.Errorf("%d terminal run.status events, want %d (one per turn)", terminal, turns)
	}
}

// untilFollowUp is evs up to the next follow-up: its run.limits or its
// run.status.
func untilFollowUp(evs []event.Event) []event.Event {
	for i, ev := range evs {
		if ev.Type == event.RunLimits || (ev.Type == event.RunStatus && strings.Contains(string(ev.Data), `"reason":"follow-up"`)) {
			return evs[:i]
		}
	}
	return evs
}

// finished returns the node.finished payload of node.
func finished(t *testing.T, evs []event.Event, node string) event.NodeFinishedData {
	t.Helper()
	for _, ev := range evs {
		if ev.Type == event.NodeFinished && ev.NodeID == node {
			return decode[event.NodeFinishedData](t, ev)
		}
	}
	t.Fatalf("node %s has no node.finished", node)
	return event.NodeFinishedData{}
}

// lastStatus returns the payload of the run's last run.status event.
func lastStatus(t *testing.T, evs []event.Event) event.RunStatusData {
	t.Helper()
	for i := len(evs) - 1; i >= 0; i-- {
		if evs[i].Type == event.RunStatus {
			return decode[event.RunStatusData](t, evs[i])
		}
	}
	t.Fatal("no run.status event")
	return event.RunStatusData{}
}

// toolMessage returns the tool message answering callID in req.
func toolMessage(t *testing.T, req llm.Request, callID string) llm.Message {
	t.Helper()
	for _, m := range req.Messages {
		if m.Role == llm.RoleTool && m.ToolCallID == callID {
			return m
		}
	}
	t.Fatalf("request has no tool message for %s: %+v", callID, req.Messages)
	return llm.Message{}
}

// inboxApprove is a plain approval.
var inboxApprove = inbox.Decision{Decision: "approve"}

// onlyAfterTheEnd reports whether evs are events a run may get after its
// end: forks taken from it, and undos of its file changes.
func onlyAfterTheEnd(evs []event.Event) bool {
	for _, ev := range evs {
		switch {
		case ev.Type == event.RunForked:
		case ev.Type == event.FileChanged && ev.NodeID == "":
		default:
			return false
		}
	}
	return true
}
