package run_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"steward/backend/event"
	"steward/backend/llm"
	"steward/backend/run"
	"steward/backend/store"
	"steward/backend/tool"
)

// cancelDeadline is how soon a cancelled run must have ended.
const cancelDeadline = 2 * time.Second

const writeThenDone = `{"turns": [
	{"tool_calls": [{"name": "write_file", "arguments": {"path": "out.txt", "content": "x"}}]},
	{"text": "Done."}
]}`

func cancelCmd(id string) run.Command { return run.Command{CommandID: id, Type: "cancel"} }

func accepted(id string) run.CommandResult {
	return run.CommandResult{CommandID: id, Status: "accepted"}
}

// checkCancelled checks the end of a run cancelled by the user: the last
// status, the root node and the node that was in flight.
func checkCancelled(t *testing.T, h *harness, id, inFlight string) {
	t.Helper()
	evs := h.events(t, id)
	checkLog(t, evs)
	if st := lastStatus(t, evs); st.Status != string(run.Cancelled) || st.Reason != "cancelled by the user" || st.Error != "" {
		t.Errorf("last status = %+v", st)
	}
	if d := finished(t, evs, "n1"); d.Status != event.NodeCancelled {
		t.Errorf("root node = %+v", d)
	}
	if d := finished(t, evs, inFlight); d.Status != event.NodeCancelled {
		t.Errorf("node %s = %+v, want cancelled", inFlight, d)
	}
	if got := h.nodeStatus(t, id)[inFlight]; got != event.NodeCancelled {
		t.Errorf("projected status of %s = %q", inFlight, got)
	}
}

func TestCancel(t *testing.T) {
	t.Parallel()

	t.Run("while waiting for approval", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, fixed(scripted(t, writeThenDone)))
		r := h.start(t, testAgent(), "write")
		it := h.pending(t, r.ID)
		begin := time.Now()
		if got := h.command(t, r.ID, cancelCmd("c1")); got != accepted("c1") {
			t.Errorf("cancel = %+v", got)
		}
		end := h.waitEnd(t, r.ID, cancelDeadline)
		if end.Status != string(run.Cancelled) || end.PendingApprovals != 0 {
			t.Errorf("run = %+v after %v", end, time.Since(begin))
		}
		checkCancelled(t, h, r.ID, "n4")
		got, err := h.st.GetInteraction(context.Background(), it.ID)
		if err != nil || got.Status != "cancelled" {
			t.Errorf("interaction = %+v, %v; want cancelled", got, err)
		}
	})

	t.Run("during a tool call", func(t *testing.T) {
		t.Parallel()
		started := make(chan struct{}, 1)
		h := newHarness(t, fixed(scripted(t, `{"turns": [{"tool_calls": [{"name": "block"}]}, {"text": "Done."}]}`)), blockTool(started))
		r := h.start(t, testAgent("block"), "block")
		select {
		case <-started:
		case <-time.After(5 * time.Second):
			t.Fatal("the tool was not called")
		}
		if got := h.command(t, r.ID, cancelCmd("c1")); got != accepted("c1") {
			t.Errorf("cancel = %+v", got)
		}
		if end := h.waitEnd(t, r.ID, cancelDeadline); end.Status != string(run.Cancelled) {
			t.Errorf("run = %+v", end)
		}
		checkCancelled(t, h, r.ID, "n4")
		if d := finished(t, h.events(t, r.ID), "n4"); !d.IsError || !strings.Contains(d.Output, "cancelled") {
			t.Errorf("tool node = %+v", d)
		}
	})

	t.Run("during a model call", func(t *testing.T) {
		t.Parallel()
		started := make(chan struct{}, 1)
		h := newHarness(t, fixed(&provider{stream: func(ctx context.Context, _ llm.Request, _ func(llm.Delta)) (*llm.Response, error) {
			started <- struct{}{}
			<-ctx.Done()
			return nil, ctx.Err()
		}}))
		r := h.start(t, testAgent(), "think")
		select {
		case <-started:
		case <-time.After(5 * time.Second):
			t.Fatal("the model was not called")
		}
		if got := h.command(t, r.ID, cancelCmd("c1")); got != accepted("c1") {
			t.Errorf("cancel = %+v", got)
		}
		if end := h.waitEnd(t, r.ID, cancelDeadline); end.Status != string(run.Cancelled) {
			t.Errorf("run = %+v", end)
		}
		checkCancelled(t, h, r.ID, "n3")
	})

	t.Run("between the model call and its tool calls", func(t *testing.T) {
		t.Parallel()
		// The cancel lands after the model answered and before the tool
		// call, a safe point: the tool must not run.
		var ran atomic.Int32
		probe := tool.Must(tool.New("probe", "Counts its calls.", tool.RiskRead,
			func(context.Context, tool.Env, struct{}) (tool.Result, error) {
				ran.Add(1)
				return tool.Result{Output: "ran"}, nil
			}))
		var h *harness
		ids := make(chan string, 1)
		h = newHarness(t, fixed(&provider{stream: func(ctx context.Context, _ llm.Request, _ func(llm.Delta)) (*llm.Response, error) {
			id := <-ids
			if res, err := h.svc.Command(context.Background(), id, cancelCmd("c1")); err != nil || res.Status != "accepted" {
				t.Errorf("cancel = %+v, %v", res, err)
			}
			return &llm.Response{StopReason: llm.StopToolCalls, ToolCalls: []llm.ToolCall{{ID: "c_1", Name: "probe", Arguments: []byte(`{}`)}}}, nil
		}}), probe)
		r := h.start(t, testAgent("probe"), "probe")
		ids <- r.ID
		if end := h.waitEnd(t, r.ID, cancelDeadline); end.Status != string(run.Cancelled) {
			t.Errorf("run = %+v", end)
		}
		if n := ran.Load(); n != 0 {
			t.Errorf("the tool ran %d times after the run was cancelled", n)
		}
		checkCancelled(t, h, r.ID, "n4")
	})

	t.Run("a tool that succeeds anyway", func(t *testing.T) {
		t.Parallel()
		// A tool that finishes its work although the run was cancelled
		// made its effect: the log must say it succeeded.
		started := make(chan struct{}, 1)
		stubborn := tool.Must(tool.New("stubborn", "Finishes whatever happens.", tool.RiskRead,
			func(ctx context.Context, _ tool.Env, _ struct{}) (tool.Result, error) {
				started <- struct{}{}
				<-ctx.Done()
				return tool.Result{Output: "done anyway"}, nil
			}))
		h := newHarness(t, fixed(scripted(t, `{"turns": [{"tool_calls": [{"name": "stubborn"}, {"name": "stubborn"}]}, {"text": "Done."}]}`)), stubborn)
		r := h.start(t, testAgent("stubborn"), "go")
		select {
		case <-started:
		case <-time.After(5 * time.Second):
			t.Fatal("the tool was not called")
		}
		h.command(t, r.ID, cancelCmd("c1"))
		if end := h.waitEnd(t, r.ID, cancelDeadline); end.Status != string(run.Cancelled) {
			t.Errorf("run = %+v", end)
		}
		evs := h.events(t, r.ID)
		checkLog(t, evs)
		if d := finished(t, evs, "n4"); d.Status != event.NodeSucceeded || d.Output != "done anyway" {
			t.Errorf("first call = %+v, want succeeded", d)
		}
		// The second call of the turn was never started.
		if d := finished(t, evs, "n5"); d.Status != event.NodeCancelled {
			t.Errorf("second call = %+v, want cancelled", d)
		}
		select {
		case <-started:
			t.Error("the second call ran after the cancel")
		default:
		}
	})
}

func TestCommand(t *testing.T) {
	t.Parallel()
	h := newHarness(t, fixed(scripted(t, writeThenDone)))
	ctx := context.Background()

	done := h.start(t, testAgent(), "write")
	it := h.pending(t, done.ID)
	if _, err := h.in.Answer(ctx, it.ID, inboxApprove); err != nil {
		t.Fatal(err)
	}
	if end := h.waitEnd(t, done.ID, 5*time.Second); end.Status != "completed" {
		t.Fatalf("run = %+v", end)
	}

	t.Run("cancel of a terminal run", func(t *testing.T) {
		got := h.command(t, done.ID, cancelCmd("t1"))
		if got.Status != "rejected" || got.Code != run.CodeTerminal || !strings.Contains(got.Message, "completed") {
			t.Errorf("cancel = %+v", got)
		}
		if r, _ := h.st.GetRun(ctx, done.ID); r.Status != "completed" {
			t.Errorf("status changed to %q", r.Status)
		}
	})

	t.Run("pause of a terminal run", func(t *testing.T) {
		got := h.command(t, done.ID, run.Command{CommandID: "p1", Type: "pause"})
		want := run.CommandResult{CommandID: "p1", Status: "rejected", Code: run.CodeTerminal, Message: "the run is already completed"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("pause (-want +got):\n%s", diff)
		}
	})

	t.Run("same command id twice", func(t *testing.T) {
		h.remove(t, "out.txt") // done wrote it: this run would be refused the write (a stale read), unasked
		r := h.start(t, testAgent(), "write")
		h.pending(t, r.ID)
		first := h.command(t, r.ID, cancelCmd("same"))
		if first != accepted("same") {
			t.Fatalf("cancel = %+v", first)
		}
		h.waitEnd(t, r.ID, cancelDeadline)
		// The run is terminal now; a new cancel would be rejected, the
		// repeated one gets the first answer.
		if again := h.command(t, r.ID, cancelCmd("same")); again != first {
			t.Errorf("repeated cancel = %+v, want %+v", again, first)
		}
		if other := h.command(t, r.ID, cancelCmd("other")); other.Code != run.CodeTerminal {
			t.Errorf("new cancel = %+v, want rejected terminal", other)
		}
		// Even a different type under a used id is the first answer.
		if again := h.command(t, r.ID, run.Command{CommandID: "same", Type: "pause"}); again != first {
			t.Errorf("reused id = %+v, want %+v", again, first)
		}
		evs := h.events(t, r.ID)
		checkLog(t, evs)
	})

	t.Run("bad commands", func(t *testing.T) {
		tests := []struct {
			name string
			run  string
			c    run.Command
			want error
		}{
			{"empty command_id", done.ID, run.Command{Type: "cancel"}, run.ErrInvalid},
			{"blank command_id", done.ID, run.Command{CommandID: "  ", Type: "cancel"}, run.ErrInvalid},
			{"long command_id", done.ID, run.Command{CommandID: strings.Repeat("c", 129), Type: "cancel"}, run.ErrInvalid},
			{"unknown type", done.ID, run.Command{CommandID: "x1", Type: "explode"}, run.ErrInvalid},
			{"unknown run", "run_nope", cancelCmd("x2"), run.ErrNotFound},
		}
		for _, tt := range tests {
			_, err := h.svc.Command(ctx, tt.run, tt.c)
			if !errors.Is(err, tt.want) {
				t.Errorf("%s: error = %v, want %v", tt.name, err, tt.want)
			}
		}
	})
}

// appendRun records a run as a previous process would have left it.
func appendRun(t *testing.T, st *store.Store, id string, statuses ...string) {
	t.Helper()
	ctx := context.Background()
	spec, _ := json.Marshal(testAgent())
	if _, err := st.Append(ctx, event.New(id, event.RunCreated, "", event.RunCreatedData{
		Agent: event.AgentRef{ID: "ag_old", Name: "old", Provider: "script", Model: "m"}, Instructions: "old work",
		Workspace: t.TempDir(), Mode: "ask", MaxSteps: 10, Spec: spec,
	})); err != nil {
		t.Fatal(err)
	}
	for _, s := range statuses {
		if _, err := st.Append(ctx, event.New(id, event.RunStatus, "", event.RunStatusData{Status: s})); err != nil {
			t.Fatal(err)
		}
	}
}

func TestRecover(t *testing.T) {
	t.Parallel()
	h := newHarness(t, fixed(scripted(t, writeThenDone)))
	ctx := context.Background()
	appendRun(t, h.st, "old_running", "running")
	appendRun(t, h.st, "old_waiting", "running", "waiting")
	appendRun(t, h.st, "old_queued")
	appendRun(t, h.st, "old_done", "running", "completed")
	live := h.start(t, testAgent(), "write")
	it := h.pending(t, live.ID)

	n, err := h.svc.Recover(ctx)
	if err != nil || n != 3 {
		t.Fatalf("Recover = %d, %v; want 3", n, err)
	}
	// Each run left active is resumed and waits, paused, for a person.
	for _, id := range []string{"old_running", "old_waiting", "old_queued"} {
		r := h.waitStatus(t, id, run.Paused)
		if r.Reason != "recovered" || r.Next == "" {
			t.Errorf("%s = %+v", id, r)
		}
	}
	// Continue takes one up where it stopped: its first model call.
	if got := h.command(t, "old_running", run.Command{CommandID: "k1", Type: "continue"}); got != accepted("k1") {
		t.Errorf("continue = %+v", got)
	}
	h.waitStatus(t, "old_running", run.Waiting)
	h.command(t, "old_running", cancelCmd("k2"))
	h.command(t, "old_waiting", cancelCmd("k3"))
	h.command(t, "old_queued", cancelCmd("k4"))
	for _, id := range []string{"old_running", "old_waiting", "old_queued"} {
		h.waitStatus(t, id, run.Cancelled)
	}
	if r, _ := h.st.GetRun(ctx, "old_done"); r.Status != "completed" {
		t.Errorf("completed run became %q", r.Status)
	}
	// The run driven here is untouched and goes on.
	if r, _ := h.st.GetRun(ctx, live.ID); r.Status != string(run.Waiting) || r.PendingApprovals != 1 {
		t.Errorf("live run = %+v", r)
	}
	if n, err := h.svc.Recover(ctx); err != nil || n != 0 {
		t.Errorf("second Recover = %d, %v; want 0", n, err)
	}
	if _, err := h.in.Answer(ctx, it.ID, inboxApprove); err != nil {
		t.Fatal(err)
	}
	if end := h.waitEnd(t, live.ID, 5*time.Second); end.Status != "completed" {
		t.Errorf("live run = %+v", end)
	}

	// A cancel of a run nobody drives records the end directly.
	appendRun(t, h.st, "orphan", "running")
	if got := h.command(t, "orphan", cancelCmd("c1")); got != accepted("c1") {
		t.Errorf("cancel of an orphan = %+v", got)
	}
	if r, _ := h.st.GetRun(ctx, "orphan"); r.Status != string(run.Cancelled) {
		t.Errorf("orphan = %+v", r)
	}
}

func TestShutdown(t *testing.T) {
	t.Parallel()
	h := newHarness(t, fixed(scripted(t, writeThenDone)))
	r := h.start(t, testAgent(), "write")
	it := h.pending(t, r.ID)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	begin := time.Now()
	if err := h.svc.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if d := time.Since(begin); d > time.Second {
		t.Errorf("Shutdown took %v", d)
	}
	if h.svc.Active(r.ID) {
		t.Error("run still active after Shutdown")
	}
	// The run is paused for the restart: the call waiting for approval never
	// ran, so it stays open, and so does its approval.
	got, err := h.st.GetRun(context.Background(), r.ID)
	if err != nil || got.Status != string(run.Paused) || got.Reason != "shutdown" || !strings.Contains(got.Next, `"node_id":"n4"`) {
		t.Errorf("run = %+v, %v; want paused with reason shutdown before n4", got, err)
	}
	for _, ev := range h.events(t, r.ID) {
		if ev.Type == event.NodeFinished && ev.NodeID == "n4" {
			t.Errorf("the tool node that never ran was closed: %s", ev.Data)
		}
	}
	if i, err := h.st.GetInteraction(context.Background(), it.ID); err != nil || i.Status != "pending" {
		t.Errorf("interaction = %+v, %v; want it still pending", i, err)
	}

	// A new service on the same database resumes the run; the approval
	// given now lets the call run exactly once.
	h2 := h.restart(t)
	if n, err := h2.svc.Recover(context.Background()); err != nil || n != 1 {
		t.Fatalf("Recover = %d, %v", n, err)
	}
	h2.waitStatus(t, r.ID, run.Paused)
	if _, err := h2.in.Answer(context.Background(), it.ID, inboxApprove); err != nil {
		t.Fatal(err)
	}
	h2.command(t, r.ID, run.Command{CommandID: "go", Type: "continue"})
	if end := h2.waitEnd(t, r.ID, 5*time.Second); end.Status != "completed" {
		t.Errorf("resumed run = %+v", end)
	}
	evs := h2.events(t, r.ID)
	checkLog(t, evs)
	executing := 0
	for _, ev := range evs {
		if ev.Type == event.ToolExecuting {
			executing++
		}
	}
	if executing != 1 {
		t.Errorf("the write executed %d times, want 1", executing)
	}
}

// hookStore is a store with a function called after each append.
type hookStore struct {
	*store.Store
	afterAppend func(ev event.Event)
}

// SubmitAll waits for the commit, so the hook sees each event after it is
// durable, as with Append.
func (s *hookStore) SubmitAll(evs []event.Event) *store.Pending {
	p := s.Store.SubmitAll(evs)
	if _, err := p.Wait(); err == nil {
		for _, ev := range evs {
			s.afterAppend(ev)
		}
	}
	return p
}

func (s *hookStore) Append(ctx context.Context, ev event.Event) (event.Event, error) {
	got, err := s.Store.Append(ctx, ev)
	if err == nil {
		s.afterAppend(got)
	}
	return got, err
}

// TestCancelRightAfterCreate cancels a run as soon as its run.created event
// commits, as a client watching the run list may: the run must end
// cancelled, with nothing recorded after that.
func TestCancelRightAfterCreate(t *testing.T) {
	t.Parallel()
	h := newHarness(t, fixed(scripted(t, `{"turns": [{"text": "hi"}]}`)))
	var svc *run.Service
	var res run.CommandResult
	hs := &hookStore{Store: h.st, afterAppend: func(ev event.Event) {
		if ev.Type != event.RunCreated {
			return
		}
		var err error
		if res, err = svc.Command(context.Background(), ev.RunID, cancelCmd("c1")); err != nil {
			t.Errorf("Command: %v", err)
		}
	}}
	svc = h.service(t, func(c *run.Config) { c.Store = hs })
	r, err := svc.Start(context.Background(), run.StartParams{Agent: testAgent(), Instructions: "hi", Workspace: h.ws})
	if err != nil {
		t.Fatal(err)
	}
	if res != accepted("c1") {
		t.Errorf("cancel = %+v", res)
	}
	if done := svc.Done(r.ID); done != nil {
		select {
		case <-done:
		case <-time.After(cancelDeadline):
			t.Fatal("run did not end")
		}
	}
	evs := h.events(t, r.ID)
	checkLog(t, evs)
	if st := lastStatus(t, evs); st.Status != string(run.Cancelled) {
		t.Errorf("last status = %+v, want cancelled", st)
	}
}

// TestStartAfterShutdown checks that no run starts once Shutdown began, and
// that nothing is recorded for the refused start.
func TestStartAfterShutdown(t *testing.T) {
	t.Parallel()
	h := newHarness(t, fixed(scripted(t, `{"turns": [{"text": "hi"}]}`)))
	if err := h.svc.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, err := h.svc.Start(context.Background(), run.StartParams{Agent: testAgent(), Instructions: "hi", Workspace: h.ws})
	if !errors.Is(err, run.ErrShuttingDown) {
		t.Fatalf("Start after Shutdown = %v, want ErrShuttingDown", err)
	}
	runs, err := h.st.ListRuns(context.Background(), store.RunFilter{})
	if err != nil || len(runs) != 0 {
		t.Errorf("runs after a refused start: %d, %v", len(runs), err)
	}
}

// failingSave is a store whose saves of command answers fail while fail is
// set, as on a full disk: dead is a closed store, whose writes fail.
type failingSave struct {
	*store.Store
	dead *store.Store
	fail atomic.Bool
}

func newFailingSave(t *testing.T, st *store.Store) *failingSave {
	t.Helper()
	dead, err := store.Open(filepath.Join(t.TempDir(), "dead.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := dead.Close(); err != nil {
		t.Fatal(err)
	}
	return &failingSave{Store: st, dead: dead}
}

func (f *failingSave) SaveCommand(ctx context.Context, runID, id, typ string, res []byte) ([]byte, bool, error) {
	if f.fail.Load() {
		return nil, false, errors.New("disk full")
	}
	return f.Store.SaveCommand(ctx, runID, id, typ, res)
}

func (f *failingSave) SubmitCommand(cmd store.CommandRecord, evs []event.Event) *store.Pending {
	if f.fail.Load() {
		return f.dead.SubmitCommand(cmd, evs)
	}
	return f.Store.SubmitCommand(cmd, evs)
}

// TestCommandIsSavedBeforeItActs checks that a command whose answer cannot
// be saved has no effect: after a crash a repeated command_id must never
// apply a command a second time.
func TestCommandIsSavedBeforeItActs(t *testing.T) {
	t.Parallel()
	h := newHarness(t, fixed(scripted(t, writeThenDone)))
	fs := newFailingSave(t, h.st)
	svc := h.service(t, func(c *run.Config) { c.Store = fs })
	a := testAgent()
	a.BreakBefore = []string{"write_file"}
	r, err := svc.Start(context.Background(), run.StartParams{Agent: a, Instructions: "write", Workspace: h.ws})
	if err != nil {
		t.Fatal(err)
	}
	h.waitStatus(t, r.ID, run.Paused)
	before := len(h.events(t, r.ID))
	fs.fail.Store(true)
	for _, typ := range []string{"continue", "step", "steer", "pause"} {
		res, err := svc.Command(context.Background(), r.ID, run.Command{CommandID: "x-" + typ, Type: typ, Text: "hello"})
		if err == nil && res.Status == "accepted" {
			t.Errorf("%s accepted although its answer could not be saved: %+v", typ, res)
		}
	}
	time.Sleep(20 * time.Millisecond) // nothing may be on its way either
	if after := len(h.events(t, r.ID)); after != before {
		t.Errorf("commands whose answers were not saved recorded %d events", after-before)
	}
	if got, _ := h.st.GetRun(context.Background(), r.ID); got.Status != string(run.Paused) {
		t.Errorf("run is %s, want still paused", got.Status)
	}
	fs.fail.Store(false)
	if res, err := svc.Command(context.Background(), r.ID, run.Command{CommandID: "ok", Type: "cancel"}); err != nil || res.Status != "accepted" {
		t.Errorf("cancel = %+v, %v", res, err)
	}
}
