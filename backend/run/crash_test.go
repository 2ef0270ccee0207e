package run_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"steward/backend/event"
	"steward/backend/inbox"
	"steward/backend/run"
	"steward/backend/tool"
)

// crashedDuringProbe records a run that died while its probe call ran: the
// call was marked executing and never finished.
func crashedDuringProbe(t *testing.T, h *harness) crashLog {
	t.Helper()
	l := crashedRun(t, h, "run_crashed", testAgent("probe"), "go")
	c := event.ToolCall{ID: "call_1_0", Name: "probe", Arguments: json.RawMessage(`{"note":"x"}`)}
	l.model("n3", 1, []string{"n2"}, "Probing.", c)
	l.toolStarted("n4", "n3", c, tool.RiskRead, "allow")
	l.add(event.ToolExecuting, "n4", event.ToolExecutingData{})
	return l
}

// TestInterruptedToolCall: after a crash during a tool call, the call is
// interrupted and waits for the person: it never runs again on its own.
func TestInterruptedToolCall(t *testing.T) {
	t.Parallel()
	const script = `{"turns": [
		{"text": "Probing.", "tool_calls": [{"name": "probe", "arguments": {"note": "x"}}]},
		{"text": "Done: {{last_tool_output}}"}
	]}`
	// recovered returns a harness whose crashed run was recovered and
	// checked, the counter of probe calls and the model's requests.
	recovered := func(t *testing.T) (*harness, string, *atomic.Int32, *recording) {
		var probes atomic.Int32
		rec := &recording{next: scripted(t, script)}
		h := newHarness(t, fixed(rec), probeTool(&probes))
		l := crashedDuringProbe(t, h)
		h.recoverOne(t)
		p := h.waitRun(t, l.run, 0, run.Paused, "recovered: probe was interrupted and may or may not have run; retry, skip or cancel")
		want := event.Next{Kind: "tool", NodeID: "n4", Tool: "probe", Arguments: json.RawMessage(`{"note":"x"}`), Interrupted: true}
		if diff := cmp.Diff(want, nextOf(t, p)); diff != "" {
			t.Errorf("next (-want +got):\n%s", diff)
		}
		evs := h.events(t, l.run)
		if d := finished(t, evs, "n4"); d.Status != event.NodeInterrupted || !strings.Contains(d.Error, "outcome is unknown") {
			t.Errorf("n4 = %+v, want interrupted", d)
		}
		if got := h.nodeStatus(t, l.run)["n4"]; got != event.NodeInterrupted {
			t.Errorf("projected n4 = %q", got)
		}
		// Neither continue nor step goes past it, nor a retry of another node.
		for _, c := range []run.Command{cmd(run.CmdContinue), cmd(run.CmdStep), {CommandID: "r-n3", Type: run.CmdRetry, NodeID: "n3"}} {
			res := h.command(t, l.run, c)
			if res.Status != "rejected" || res.Code != run.CodeInvalidState || !strings.Contains(res.Message, "node n4") {
				t.Errorf("%s %s = %+v, want invalid_state naming node n4", c.Type, c.NodeID, res)
			}
		}
		if n := probes.Load(); n != 0 {
			t.Fatalf("the interrupted call ran %d times without a decision", n)
		}
		if got := h.get(t, l.run); got.Status != string(run.Paused) || got.LastSeq != p.LastSeq {
			t.Errorf("rejected commands changed the run: %+v", got)
		}
		return h, l.run, &probes, rec
	}

	t.Run("retry", func(t *testing.T) {
		t.Parallel()
		h, id, probes, rec := recovered(t)
		h.accept(t, id, run.Command{CommandID: "r1", Type: run.CmdRetry, NodeID: "n4"})
		end := h.waitEnd(t, id, 5*time.Second)
		if end.Status != string(run.Completed) || probes.Load() != 1 {
			t.Fatalf("run = %+v after %d calls", end, probes.Load())
		}
		evs := h.events(t, id)
		checkLog(t, evs)
		d := startOf(t, evs, "n5")
		if d.Kind != event.KindTool || d.Tool != "probe" || d.CallID != "call_1_0" || d.RetryOf != "n4" || d.Parent != "n3" {
			t.Errorf("retry node = %+v", d)
		}
		if f := finished(t, evs, "n5"); f.Status != event.NodeSucceeded || f.Output != "probed x" {
			t.Errorf("retry node finished %+v", f)
		}
		if n := countType(evs, event.ToolExecuting); n != 2 {
			t.Errorf("%d tool.executing (the crashed one and the retry), want 2", n)
		}
		reqs := rec.requests()
		if len(reqs) != 1 {
			t.Fatalf("%d model calls, want 1", len(reqs))
		}
		if m := toolMessage(t, reqs[0], "call_1_0"); m.IsError || m.Text != "probed x" {
			t.Errorf("the model read %+v, want the retry's result", m)
		}
		if got := finished(t, evs, "n6").Text; got != "Done: probed x" {
			t.Errorf("final text %q", got)
		}
	})

	t.Run("skip", func(t *testing.T) {
		t.Parallel()
		h, id, probes, rec := recovered(t)
		h.accept(t, id, run.Command{CommandID: "s1", Type: run.CmdSkip})
		end := h.waitEnd(t, id, 5*time.Second)
		if end.Status != string(run.Completed) || probes.Load() != 0 {
			t.Fatalf("run = %+v after %d calls", end, probes.Load())
		}
		evs := h.events(t, id)
		checkLog(t, evs)
		if d := startOf(t, evs, "n5"); d.Kind != event.KindTool || d.CallID != "call_1_0" || d.RetryOf != "n4" {
			t.Errorf("skip node = %+v", d)
		}
		f := finished(t, evs, "n5")
		if f.Status != event.NodeFailed || !f.IsError || f.Code != event.NodeInterrupted || !strings.Contains(f.Output, "outcome is unknown") {
			t.Errorf("skip node finished %+v", f)
		}
		if n := countType(evs, event.ToolExecuting); n != 1 {
			t.Errorf("%d tool.executing, want only the crashed one", n)
		}
		reqs := rec.requests()
		if len(reqs) != 1 {
			t.Fatalf("%d model calls, want 1", len(reqs))
		}
		m := toolMessage(t, reqs[0], "call_1_0")
		if !m.IsError || !strings.HasPrefix(m.Text, "error interrupted: ") || !strings.Contains(m.Text, "outcome is unknown") {
			t.Errorf("the model read %+v, want an error saying the outcome is unknown", m)
		}
	})

	t.Run("cancel", func(t *testing.T) {
		t.Parallel()
		h, id, probes, _ := recovered(t)
		h.accept(t, id, cmd(run.CmdCancel))
		if end := h.waitEnd(t, id, cancelDeadline); end.Status != string(run.Cancelled) || probes.Load() != 0 {
			t.Fatalf("run = %+v after %d calls", end, probes.Load())
		}
		evs := h.events(t, id)
		checkLog(t, evs) // n4 is closed once: interrupted
		if d := finished(t, evs, "n4"); d.Status != event.NodeInterrupted {
			t.Errorf("n4 = %+v", d)
		}
	})
}

// TestKillSafety cuts the log of a finished run at points where a process may
// die, recovers it in a fresh database, and checks the rule: no tool call
// runs twice without a new decision. A call marked executing is never run
// again until the person retries it; a call that had not started runs once.
func TestKillSafety(t *testing.T) {
	t.Parallel()
	const script = `{"turns": [
		{"text": "Two probes.", "tool_calls": [
			{"name": "probe", "arguments": {"note": "a"}},
			{"name": "probe", "arguments": {"note": "b"}}]},
		{"text": "Done: {{last_tool_output}}"}
	]}`
	var srcProbes atomic.Int32
	src := newHarness(t, fixed(scripted(t, script)), probeTool(&srcProbes))
	r := src.start(t, testAgent("probe"), "probe twice")
	if end := src.waitEnd(t, r.ID, 5*time.Second); end.Status != string(run.Completed) {
		t.Fatalf("source run = %+v", end)
	}
	full := src.events(t, r.ID)

	// after returns the length of the log up to and including the nth (from
	// 1) event of type typ on node ("" for any node).
	after := func(typ event.Type, node string, nth int) int {
		for i, ev := range full {
			if ev.Type == typ && (node == "" || ev.NodeID == node) {
				if nth--; nth == 0 {
					return i + 1
				}
			}
		}
		t.Fatalf("the log has no %s #%d on %q", typ, nth, node)
		return 0
	}
	tests := []struct {
		name        string
		cut         int
		interrupted string // the node awaiting a decision; "" when none
		decide      string // the decision then: retry or skip
		want        int32  // probe calls in the new process
	}{
		{"after the model call started", after(event.NodeStarted, "n3", 1), "", "", 2},
		{"after the first call was marked executing, retried", after(event.ToolExecuting, "", 1), "n4", run.CmdRetry, 2},
		{"after the first call was marked executing, skipped", after(event.ToolExecuting, "", 1), "n4", run.CmdSkip, 1},
		{"after the first call finished", after(event.NodeFinished, "n4", 1), "", "", 1},
		{"after the second call was marked executing, retried", after(event.ToolExecuting, "", 2), "n5", run.CmdRetry, 1},
		{"after the second call was marked executing, skipped", after(event.ToolExecuting, "", 2), "n5", run.CmdSkip, 0},
		{"after the second call finished", after(event.NodeFinished, "n5", 1), "", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var probes atomic.Int32
			h := newHarness(t, fixed(scripted(t, script)), probeTool(&probes))
			for _, ev := range full[:tt.cut] {
				if _, err := h.st.Append(context.Background(), event.New(ev.RunID, ev.Type, ev.NodeID, ev.Data)); err != nil {
					t.Fatal(err)
				}
			}
			h.recoverOne(t)
			p := h.waitRun(t, r.ID, 0, run.Paused, "")
			if n := probes.Load(); n != 0 {
				t.Fatalf("the tool ran %d times on recovery, before any decision", n)
			}
			nx := nextOf(t, p)
			if nx.Interrupted != (tt.interrupted != "") || (tt.interrupted != "" && nx.NodeID != tt.interrupted) {
				t.Fatalf("paused (%s) before %+v, want interrupted node %q", p.Reason, nx, tt.interrupted)
			}
			if tt.interrupted != "" {
				if res := h.command(t, r.ID, cmd(run.CmdContinue)); res.Code != run.CodeInvalidState {
					t.Errorf("continue = %+v, want invalid_state", res)
				}
				if n := probes.Load(); n != 0 {
					t.Fatalf("the interrupted call ran %d times before the decision", n)
				}
				h.accept(t, r.ID, cmd(tt.decide))
			} else {
				h.accept(t, r.ID, cmd(run.CmdContinue))
			}
			end := h.waitEnd(t, r.ID, 5*time.Second)
			if end.Status != string(run.Completed) || probes.Load() != tt.want {
				t.Errorf("run = %+v after %d probe calls, want completed after %d", end, probes.Load(), tt.want)
			}
			evs := h.events(t, r.ID)
			checkLog(t, evs)
			// Per call: at most one execution that no retry decided.
			callOf := map[string]string{} // node → call id
			retried := map[string]bool{}
			undecided := map[string]int{}
			for _, ev := range evs {
				switch ev.Type {
				case event.NodeStarted:
					d := decode[event.NodeStartedData](t, ev)
					callOf[ev.NodeID], retried[ev.NodeID] = d.CallID, d.RetryOf != ""
				case event.ToolExecuting:
					if !retried[ev.NodeID] {
						undecided[callOf[ev.NodeID]]++
					}
				}
			}
			for call, n := range undecided {
				if n > 1 {
					t.Errorf("call %s executed %d times without a new decision", call, n)
				}
			}
		})
	}
}

// TestRecoverModelCallInFlight: a model call cut by a crash is interrupted;
// continue makes it again.
func TestRecoverModelCallInFlight(t *testing.T) {
	t.Parallel()
	rec := &recording{next: scripted(t, `{"turns": [{"text": "Hello."}]}`)}
	h := newHarness(t, fixed(rec))
	l := crashedRun(t, h, "run_crashed", testAgent(), "greet")
	l.add(event.NodeStarted, "n3", event.NodeStartedData{Kind: event.KindLLM, Parent: "n1", After: []string{"n2"}, Label: "model call 1", Step: 1})
	l.add(event.LLMDelta, "n3", event.LLMDeltaData{Text: "Hel"})
	h.recoverOne(t)

	p := h.waitRun(t, l.run, 0, run.Paused, "recovered")
	if diff := cmp.Diff(modelNext, nextOf(t, p)); diff != "" {
		t.Errorf("next (-want +got):\n%s", diff)
	}
	evs := h.events(t, l.run)
	if d := finished(t, evs, "n3"); d.Status != event.NodeInterrupted {
		t.Errorf("n3 = %+v, want interrupted", d)
	}
	if got := h.nodeStatus(t, l.run)["n3"]; got != event.NodeInterrupted {
		t.Errorf("projected n3 = %q", got)
	}
	if n := len(rec.requests()); n != 0 {
		t.Fatalf("%d model calls before continue", n)
	}

	h.accept(t, l.run, cmd(run.CmdContinue))
	end := h.waitEnd(t, l.run, 5*time.Second)
	if end.Status != string(run.Completed) {
		t.Fatalf("run = %+v", end)
	}
	evs = h.events(t, l.run)
	checkLog(t, evs)
	reqs := rec.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model calls, want 1", len(reqs))
	}
	if diff := cmp.Diff([]string{"user: greet"}, brief(reqs[0].Messages)); diff != "" {
		t.Errorf("request (-want +got):\n%s", diff)
	}
	if d := startOf(t, evs, "n4"); d.Kind != event.KindLLM {
		t.Errorf("n4 = %+v, want the model call made again", d)
	}
	if f := finished(t, evs, "n4"); f.Status != event.NodeSucceeded || f.Text != "Hello." {
		t.Errorf("n4 finished %+v", f)
	}
}

// TestRecoverOpenApproval: an approval open when the process died stays open
// and answerable; once approved and continued, the call runs once.
func TestRecoverOpenApproval(t *testing.T) {
	t.Parallel()
	const args = `{"path":"out.txt","content":"hello"}`
	tests := []struct {
		name        string
		answerFirst bool // answer while paused, then continue
	}{
		{"answered while paused, then continued", true},
		{"continued, then answered", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			h := newHarness(t, fixed(scripted(t, `{"turns": [
				{"tool_calls": [{"name": "write_file", "arguments": `+args+`}]},
				{"text": "Written."}
			]}`)))
			l := crashedRun(t, h, "run_crashed", testAgent(), "write")
			c := event.ToolCall{ID: "call_1_0", Name: "write_file", Arguments: json.RawMessage(args)}
			l.model("n3", 1, []string{"n2"}, "", c)
			l.toolStarted("n4", "n3", c, tool.RiskWrite, "ask")
			l.add(event.ApprovalRequested, "n4", event.ApprovalRequestedData{InteractionID: "ia_old", Tool: "write_file",
				Arguments: json.RawMessage(args), Risk: tool.RiskWrite, Reason: "mode ask: write tool write_file needs approval"})
			l.add(event.RunStatus, "", event.RunStatusData{Status: string(run.Waiting), Reason: "approval of write_file"})
			h.recoverOne(t)

			p := h.waitRun(t, l.run, 0, run.Paused, "recovered")
			want := event.Next{Kind: "tool", NodeID: "n4", Tool: "write_file", Arguments: json.RawMessage(args)}
			if diff := cmp.Diff(want, nextOf(t, p)); diff != "" {
				t.Errorf("next (-want +got):\n%s", diff)
			}
			if it, err := h.st.GetInteraction(ctx, "ia_old"); err != nil || it.Status != "pending" || p.PendingApprovals != 1 {
				t.Fatalf("interaction = %+v, %v; run = %+v", it, err, p)
			}
			out := filepath.Join(h.ws, "out.txt")
			if tt.answerFirst {
				if _, err := h.in.Answer(ctx, "ia_old", inbox.Decision{Decision: "approve"}); err != nil {
					t.Fatal(err)
				}
				if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
					t.Fatalf("out.txt written while paused: %v", err)
				}
				h.accept(t, l.run, cmd(run.CmdContinue))
			} else {
				h.accept(t, l.run, cmd(run.CmdContinue))
				if it := h.pending(t, l.run); it.ID != "ia_old" {
					t.Fatalf("pending interaction %+v, want ia_old", it)
				}
				if _, err := h.in.Answer(ctx, "ia_old", inbox.Decision{Decision: "approve"}); err != nil {
					t.Fatal(err)
				}
			}
			if end := h.waitEnd(t, l.run, 5*time.Second); end.Status != string(run.Completed) {
				t.Fatalf("run = %+v", end)
			}
			if b, err := os.ReadFile(out); err != nil || string(b) != "hello" {
				t.Errorf("out.txt = %q, %v", b, err)
			}
			evs := h.events(t, l.run)
			checkLog(t, evs)
			if n := countType(evs, event.ToolExecuting); n != 1 {
				t.Errorf("%d tool.executing, want 1", n)
			}
			if n := countType(evs, event.ApprovalRequested); n != 1 {
				t.Errorf("%d approvals opened, want the old one only", n)
			}
			if f := finished(t, evs, "n4"); f.Status != event.NodeSucceeded {
				t.Errorf("n4 = %+v", f)
			}
		})
	}
}

// TestGoAheadRightAfterRecover: a run the log shows paused (it was stopped by
// a shutdown) can be let go as soon as Recover returns. The go-ahead was
// once lost when it came before the run's goroutine took the pause Recover
// asks for: the run went paused, running, then paused again.
func TestGoAheadRightAfterRecover(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		log   func(l crashLog)
		c     run.Command
		calls int32 // probe calls that follow
	}{
		{"continue", func(l crashLog) {
			l.add(event.RunStatus, "", event.RunStatusData{Status: string(run.Paused), Reason: "shutdown", Next: &event.Next{Kind: "model"}})
		}, run.Command{CommandID: "go", Type: run.CmdContinue}, 1},
		{"retry", func(l crashLog) {
			c := event.ToolCall{ID: "call_1_0", Name: "probe", Arguments: json.RawMessage(`{"note":"x"}`)}
			l.model("n3", 1, []string{"n2"}, "", c)
			l.toolStarted("n4", "n3", c, tool.RiskRead, "allow")
			l.add(event.ToolExecuting, "n4", event.ToolExecutingData{})
			l.add(event.NodeFinished, "n4", event.NodeFinishedData{Status: event.NodeInterrupted, IsError: true, Code: tool.CodeCancelled})
			l.add(event.RunStatus, "", event.RunStatusData{Status: string(run.Paused), Reason: "shutdown",
				Next: &event.Next{Kind: "tool", NodeID: "n4", Tool: "probe", Interrupted: true}})
		}, run.Command{CommandID: "go", Type: run.CmdRetry}, 1},
	}
	for _, tt := range tests {
		for i := range 12 { // the race shows in some tries, not all
			t.Run(fmt.Sprint(tt.name, i), func(t *testing.T) {
				t.Parallel()
				var probes atomic.Int32
				h := newHarness(t, fixed(scripted(t, `{"turns": [
					{"tool_calls": [{"name": "probe", "arguments": {"note": "x"}}]},
					{"text": "Done."}
				]}`)), probeTool(&probes))
				l := crashedRun(t, h, "run_old", testAgent("probe"), "go")
				tt.log(l)
				h.recoverOne(t)
				h.accept(t, l.run, tt.c)
				waitFor(t, 5*time.Second, "the run to complete", func() bool {
					return h.get(t, l.run).Status == string(run.Completed)
				})
				if n := probes.Load(); n != tt.calls {
					t.Errorf("%d probe calls, want %d", n, tt.calls)
				}
				checkLog(t, h.events(t, l.run))
			})
		}
	}
}
