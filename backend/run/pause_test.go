package run_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"steward/backend/event"
	"steward/backend/inbox"
	"steward/backend/llm"
	"steward/backend/run"
)

// toolNext is the Next of a run paused before a call of name with args that
// has no node yet.
func toolNext(name, args string) event.Next {
	return event.Next{Kind: "tool", Tool: name, Arguments: json.RawMessage(args)}
}

// toolNextAt is toolNext for a call whose node is open already: a later
// call of a turn, whose node opened with the turn's first.
func toolNextAt(name, args, node string) event.Next {
	n := toolNext(name, args)
	n.NodeID = node
	return n
}

var modelNext = event.Next{Kind: "model"}

// brief renders messages as role: text, with tool calls and results named by
// call id, so that a conversation reads as one expected list.
func brief(msgs []llm.Message) []string {
	var out []string
	for _, m := range msgs {
		s := string(m.Role) + ": " + m.Text
		for _, c := range m.ToolCalls {
			s += " [" + c.ID + " " + c.Name + " " + string(c.Arguments) + "]"
		}
		if m.ToolCallID != "" {
			s = string(m.Role) + " " + m.ToolCallID + ": " + m.Text
		}
		if m.IsError {
			s += " (error)"
		}
		out = append(out, s)
	}
	return out
}

func TestPauseDuringModelCall(t *testing.T) {
	t.Parallel()

	t.Run("stops before the tool call the model asked for", func(t *testing.T) {
		t.Parallel()
		var probes atomic.Int32
		m := newHeldModel(scripted(t, `{"turns": [
			{"text": "Checking.", "tool_calls": [{"name": "probe", "arguments": {"note": "first"}}]},
			{"text": "Done: {{last_tool_output}}"}
		]}`), 1)
		h := newHarness(t, fixed(m), probeTool(&probes))
		r := h.start(t, testAgent("probe"), "check")
		await(t, m.entered, "the model call")

		h.accept(t, r.ID, cmd(run.CmdPause))
		h.waitRun(t, r.ID, 0, run.Pausing, "pause asked")
		m.release <- struct{}{} // the stream ends
		p := h.waitRun(t, r.ID, 0, run.Paused, "paused by the user")
		if diff := cmp.Diff(toolNext("probe", `{"note":"first"}`), nextOf(t, p)); diff != "" {
			t.Errorf("next (-want +got):\n%s", diff)
		}
		if n := probes.Load(); n != 0 {
			t.Fatalf("the tool ran %d times while the run was paused", n)
		}

		h.accept(t, r.ID, cmd(run.CmdContinue))
		end := h.waitEnd(t, r.ID, 5*time.Second)
		if end.Status != string(run.Completed) || probes.Load() != 1 || end.Next != "" {
			t.Errorf("run = %+v, tool ran %d times", end, probes.Load())
		}
		evs := h.events(t, r.ID)
		checkLog(t, evs)
		want := []string{
			"run.created", "run.status running",
			"start n1 agent", "start n2 user parent=n1", "finish n2 succeeded",
			"start n3 llm parent=n1 after=n2",
			"run.status pausing",
			"finish n3 succeeded",
			"run.status paused",
			"run.status running",
			"start n4 tool probe parent=n3 after=n3", "policy n4 allow", "tool.executing", "finish n4 succeeded",
			"start n5 llm parent=n1 after=n4", "finish n5 succeeded",
			"finish n1 succeeded", "run.status completed",
		}
		if diff := cmp.Diff(want, trace(t, evs)); diff != "" {
			t.Errorf("events (-want +got):\n%s", diff)
		}
		if got := finished(t, evs, "n5").Text; got != "Done: probed first" {
			t.Errorf("final text %q", got)
		}
	})

	t.Run("the model's last answer ends the run", func(t *testing.T) {
		t.Parallel()
		m := newHeldModel(scripted(t, `{"turns": [{"text": "All done."}]}`), 1)
		h := newHarness(t, fixed(m))
		r := h.start(t, testAgent(), "finish")
		await(t, m.entered, "the model call")
		h.accept(t, r.ID, cmd(run.CmdPause))
		h.waitRun(t, r.ID, 0, run.Pausing, "")
		m.release <- struct{}{}
		end := h.waitEnd(t, r.ID, 5*time.Second)
		if end.Status != string(run.Completed) || end.Reason != "the model finished before the pause" {
			t.Errorf("run = %+v", end)
		}
		checkLog(t, h.events(t, r.ID))
	})
}

// TestContinueThenPause: a pause that arrives right after a continue, before
// the run's goroutine has woken, must still pause the run at a safe point. It
// once left the run pausing for ever: the goroutine woke, saw a status other
// than running and went back to sleep.
func TestContinueThenPause(t *testing.T) {
	t.Parallel()
	for i := range 16 { // the race shows in most tries, not all
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			var probes atomic.Int32
			m := newHeldModel(scripted(t, `{"turns": [
				{"tool_calls": [{"name": "probe", "arguments": {"note": "a"}}]},
				{"tool_calls": [{"name": "probe", "arguments": {"note": "b"}}]},
				{"text": "Done."}
			]}`), 1)
			h := newHarness(t, fixed(m), probeTool(&probes))
			r := h.start(t, testAgent("probe"), "go")
			await(t, m.entered, "the model call")
			h.accept(t, r.ID, cmd(run.CmdPause))
			m.release <- struct{}{}
			p := h.waitRun(t, r.ID, 0, run.Paused, "paused by the user")

			h.accept(t, r.ID, cmd(run.CmdContinue))
			res := h.command(t, r.ID, cmd(run.CmdPause))
			if res.Code == run.CodeTerminal {
				return // the run was done before the pause arrived
			}
			if res.Status != "accepted" {
				t.Fatalf("pause = %+v", res)
			}
			// Wherever the pause landed, it takes effect at the next safe
			// point (or the run ends first): the run never stays pausing
			// with nothing in flight.
			waitFor(t, 5*time.Second, "the pause to take effect", func() bool {
				got := h.get(t, r.ID)
				return got.LastSeq > p.LastSeq && (got.Status == string(run.Paused) || got.Status == string(run.Completed))
			})
			if got := h.get(t, r.ID); got.Status == string(run.Paused) {
				n := nextOf(t, got)
				if got.Reason != "paused by the user" || n.Kind == "" || int(probes.Load()) > 2 {
					t.Errorf("run = %+v after %d tool calls", got, probes.Load())
				}
				h.accept(t, r.ID, cmd(run.CmdCancel))
				h.waitEnd(t, r.ID, cancelDeadline)
			}
			checkLog(t, h.events(t, r.ID))
		})
	}
}

func TestStep(t *testing.T) {
	t.Parallel()
	var probes atomic.Int32
	m := newHeldModel(scripted(t, `{"turns": [
		{"text": "Two probes.", "tool_calls": [{"name": "probe", "arguments": {"note": "a"}}, {"name": "probe", "arguments": {"note": "b"}}]},
		{"text": "One more.", "tool_calls": [{"name": "probe", "arguments": {"note": "c"}}]},
		{"text": "Done."}
	]}`), 1)
	h := newHarness(t, fixed(m), probeTool(&probes))
	r := h.start(t, testAgent("probe"), "probe")
	await(t, m.entered, "the model call")
	h.accept(t, r.ID, cmd(run.CmdPause))
	m.release <- struct{}{}
	p := h.waitRun(t, r.ID, 0, run.Paused, "paused by the user")
	if diff := cmp.Diff(toolNext("probe", `{"note":"a"}`), nextOf(t, p)); diff != "" {
		t.Fatalf("next (-want +got):\n%s", diff)
	}

	// Each step makes exactly one call, then pauses before the next one.
	steps := []struct {
		probes, models int32
		next           event.Next
	}{
		{1, 1, toolNextAt("probe", `{"note":"b"}`, "n5")},
		{2, 1, modelNext},
		{2, 2, toolNext("probe", `{"note":"c"}`)},
	}
	for i, s := range steps {
		h.accept(t, r.ID, cmd(run.CmdStep))
		p = h.waitRun(t, r.ID, p.LastSeq, run.Paused, "step")
		if diff := cmp.Diff(s.next, nextOf(t, p)); diff != "" {
			t.Errorf("step %d: next (-want +got):\n%s", i+1, diff)
		}
		if got := probes.Load(); got != s.probes {
			t.Errorf("step %d: %d tool calls, want %d", i+1, got, s.probes)
		}
		if got := m.calls.Load(); got != s.models {
			t.Errorf("step %d: %d model calls, want %d", i+1, got, s.models)
		}
	}

	h.accept(t, r.ID, cmd(run.CmdContinue))
	end := h.waitEnd(t, r.ID, 5*time.Second)
	if end.Status != string(run.Completed) || probes.Load() != 3 || m.calls.Load() != 3 {
		t.Errorf("run = %+v after %d tool and %d model calls", end, probes.Load(), m.calls.Load())
	}
	evs := h.events(t, r.ID)
	checkLog(t, evs)
	var statuses []string
	for _, ev := range evs {
		if ev.Type == event.RunStatus {
			d := decode[event.RunStatusData](t, ev)
			statuses = append(statuses, d.Status+" "+d.Reason)
		}
	}
	want := []string{
		"running ", "pausing pause asked", "paused paused by the user",
		"running step", "paused step", "running step", "paused step", "running step", "paused step",
		"running continue", "completed ",
	}
	if diff := cmp.Diff(want, statuses); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
}

func TestSteer(t *testing.T) {
	t.Parallel()
	const steer = "Also check the weather."

	t.Run("while a tool runs", func(t *testing.T) {
		t.Parallel()
		g := newGate()
		rec := &recording{next: scripted(t, `{"turns": [
			{"text": "Working.", "tool_calls": [{"name": "gate"}]},
			{"text": "Done."}
		]}`)}
		h := newHarness(t, fixed(rec), g.tool())
		r := h.start(t, testAgent("gate"), "go")
		await(t, g.entered, "the gate tool")
		h.command(t, r.ID, run.Command{CommandID: "s1", Type: run.CmdSteer, Text: steer})
		// The steer is recorded at once, while the tool still runs.
		waitFor(t, 5*time.Second, "the steer's user node", func() bool {
			return h.nodeStatus(t, r.ID)["n5"] == event.NodeSucceeded
		})
		if d := startOf(t, h.events(t, r.ID), "n5"); d.Kind != event.KindUser || d.Text != steer || d.Parent != "n1" || d.Label != "steer" {
			t.Errorf("steer node = %+v", d)
		}
		g.release <- struct{}{}
		if end := h.waitEnd(t, r.ID, 5*time.Second); end.Status != string(run.Completed) {
			t.Fatalf("run = %+v", end)
		}
		reqs := rec.requests()
		if len(reqs) != 2 {
			t.Fatalf("%d model calls, want 2", len(reqs))
		}
		want := []string{"user: go", "assistant: Working. [call_1_0 gate {}]", "tool call_1_0: released", "user: " + steer}
		if diff := cmp.Diff(want, brief(reqs[1].Messages)); diff != "" {
			t.Errorf("second request (-want +got):\n%s", diff)
		}
		evs := h.events(t, r.ID)
		checkLog(t, evs)
		// The model call that read the steer follows the tool and the steer.
		if d := startOf(t, evs, "n6"); d.Kind != event.KindLLM || !cmp.Equal(d.After, []string{"n4", "n5"}) {
			t.Errorf("second model call = %+v, want after n4, n5", d)
		}
	})

	t.Run("while paused", func(t *testing.T) {
		t.Parallel()
		var probes atomic.Int32
		m := newHeldModel(scripted(t, `{"turns": [
			{"tool_calls": [{"name": "probe", "arguments": {"note": "x"}}]},
			{"text": "Done."}
		]}`), 1)
		rec := &recording{next: m}
		h := newHarness(t, fixed(rec), probeTool(&probes))
		r := h.start(t, testAgent("probe"), "go")
		await(t, m.entered, "the model call")
		h.accept(t, r.ID, cmd(run.CmdPause))
		m.release <- struct{}{}
		p := h.waitRun(t, r.ID, 0, run.Paused, "")
		h.accept(t, r.ID, run.Command{CommandID: "s1", Type: run.CmdSteer, Text: steer})
		p = h.waitRun(t, r.ID, p.LastSeq, run.Paused, "paused by the user") // still paused, before the same call
		if diff := cmp.Diff(toolNext("probe", `{"note":"x"}`), nextOf(t, p)); diff != "" {
			t.Errorf("next (-want +got):\n%s", diff)
		}
		h.accept(t, r.ID, cmd(run.CmdContinue))
		if end := h.waitEnd(t, r.ID, 5*time.Second); end.Status != string(run.Completed) || probes.Load() != 1 {
			t.Fatalf("run = %+v", end)
		}
		reqs := rec.requests()
		want := []string{"user: go", `assistant:  [call_1_0 probe {"note":"x"}]`, "tool call_1_0: probed x", "user: " + steer}
		if diff := cmp.Diff(want, brief(reqs[len(reqs)-1].Messages)); diff != "" {
			t.Errorf("second request (-want +got):\n%s", diff)
		}
		checkLog(t, h.events(t, r.ID))
	})

	t.Run("during the model's last answer", func(t *testing.T) {
		t.Parallel()
		// The model answers without tool calls while a steer is recorded:
		// the run does not end, the model is asked again and reads it.
		m := newHeldModel(scripted(t, `{"turns": [{"text": "First answer."}, {"text": "Second answer."}]}`), 1)
		rec := &recording{next: m}
		h := newHarness(t, fixed(rec))
		r := h.start(t, testAgent(), "go")
		await(t, m.entered, "the model call")
		h.accept(t, r.ID, run.Command{CommandID: "s1", Type: run.CmdSteer, Text: steer})
		m.release <- struct{}{}
		end := h.waitEnd(t, r.ID, 5*time.Second)
		if end.Status != string(run.Completed) || end.Steps != 2 {
			t.Fatalf("run = %+v", end)
		}
		reqs := rec.requests()
		want := []string{"user: go", "assistant: First answer.", "user: " + steer}
		if diff := cmp.Diff(want, brief(reqs[len(reqs)-1].Messages)); diff != "" {
			t.Errorf("second request (-want +got):\n%s", diff)
		}
		checkLog(t, h.events(t, r.ID))
	})
}

func TestBreakBefore(t *testing.T) {
	t.Parallel()
	const script = `{"turns": [
		{"text": "Looking.", "tool_calls": [
			{"name": "probe", "arguments": {"note": "a"}},
			{"name": "list_dir"},
			{"name": "probe", "arguments": {"note": "b"}}]},
		{"tool_calls": [{"name": "probe", "arguments": {"note": "c"}}]},
		{"text": "Done."}
	]}`
	tests := []struct {
		name  string
		agent []string // the agent's break_before
		start []string // StartParams.BreakBefore
	}{
		{"agent field", []string{"probe"}, nil},
		{"start parameter", nil, []string{"probe"}},
		{"both", []string{"probe"}, []string{"probe"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var probes atomic.Int32
			h := newHarness(t, fixed(scripted(t, script)), probeTool(&probes))
			a := testAgent("probe", "list_dir")
			a.BreakBefore = tt.agent
			r, err := h.svc.Start(context.Background(), run.StartParams{Agent: a, Instructions: "go", Workspace: h.ws, BreakBefore: tt.start})
			if err != nil {
				t.Fatal(err)
			}
			// One pause before each call of probe, none before list_dir.
			seq := int64(0)
			for i, note := range []string{"a", "b", "c"} {
				p := h.waitRun(t, r.ID, seq, run.Paused, "breakpoint before probe")
				want := toolNext("probe", `{"note":"`+note+`"}`)
				if note == "b" {
					want.NodeID = "n6" // the turn's second probe: opened with the first
				}
				if diff := cmp.Diff(want, nextOf(t, p)); diff != "" {
					t.Errorf("pause %d: next (-want +got):\n%s", i+1, diff)
				}
				if got := probes.Load(); got != int32(i) {
					t.Errorf("pause %d: the tool ran %d times, want %d", i+1, got, i)
				}
				seq = p.LastSeq
				h.accept(t, r.ID, cmd(run.CmdContinue))
			}
			end := h.waitEnd(t, r.ID, 5*time.Second)
			if end.Status != string(run.Completed) || probes.Load() != 3 {
				t.Errorf("run = %+v after %d probes", end, probes.Load())
			}
			evs := h.events(t, r.ID)
			checkLog(t, evs)
			paused := 0
			for _, ev := range evs {
				if ev.Type == event.RunStatus && decode[event.RunStatusData](t, ev).Status == string(run.Paused) {
					paused++
				}
			}
			if paused != 3 {
				t.Errorf("%d pauses, want 3", paused)
			}
			if got := decode[event.RunCreatedData](t, evs[0]).BreakBefore; !cmp.Equal(got, []string{"probe"}) {
				t.Errorf("run.created break_before = %v", got)
			}
		})
	}

	t.Run("unknown tool", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, fixed(scripted(t, script)))
		_, err := h.svc.Start(context.Background(), run.StartParams{Agent: testAgent(), Instructions: "go", Workspace: h.ws, BreakBefore: []string{"nope"}})
		if !errors.Is(err, run.ErrInvalid) {
			t.Errorf("Start = %v, want ErrInvalid", err)
		}
	})
}

// TestBreakpointOncePerCall: a run that already stopped before a call (a
// step, a pause) does not stop before it a second time for its breakpoint
// when the person lets it go on.
func TestBreakpointOncePerCall(t *testing.T) {
	t.Parallel()
	var probes atomic.Int32
	h := newHarness(t, fixed(scripted(t, `{"turns": [
		{"tool_calls": [{"name": "list_dir"}]},
		{"tool_calls": [{"name": "probe", "arguments": {"note": "a"}}]},
		{"text": "Done."}
	]}`)), probeTool(&probes))
	a := testAgent("probe", "list_dir")
	a.BreakBefore = []string{"list_dir", "probe"}
	r := h.start(t, a, "go")
	p := h.waitRun(t, r.ID, 0, run.Paused, "breakpoint before list_dir")
	h.accept(t, r.ID, cmd(run.CmdStep)) // list_dir
	p = h.waitRun(t, r.ID, p.LastSeq, run.Paused, "step")
	h.accept(t, r.ID, cmd(run.CmdStep)) // the model call
	p = h.waitRun(t, r.ID, p.LastSeq, run.Paused, "step")
	if diff := cmp.Diff(toolNext("probe", `{"note":"a"}`), nextOf(t, p)); diff != "" {
		t.Fatalf("next (-want +got):\n%s", diff)
	}
	h.accept(t, r.ID, cmd(run.CmdContinue))
	waitFor(t, 5*time.Second, "the run to complete or pause", func() bool {
		r := h.get(t, r.ID)
		return r.LastSeq > p.LastSeq+1 && (r.Status == string(run.Paused) || r.Status == string(run.Completed))
	})
	if got := h.get(t, r.ID); got.Status != string(run.Completed) || probes.Load() != 1 {
		t.Errorf("after continue the run is %s (%s), probe ran %d times; want completed, no second pause before the same call",
			got.Status, got.Reason, probes.Load())
		h.accept(t, r.ID, cmd(run.CmdCancel))
		h.waitEnd(t, r.ID, cancelDeadline)
	}
	checkLog(t, h.events(t, r.ID))
}

// TestPauseWhileWaiting: a pause asked while an approval is open takes effect
// once it is answered, before the approved call runs.
func TestPauseWhileWaiting(t *testing.T) {
	t.Parallel()
	h := newHarness(t, fixed(scripted(t, writeThenDone)))
	r := h.start(t, testAgent(), "write")
	it := h.pending(t, r.ID)
	h.accept(t, r.ID, cmd(run.CmdPause))
	p := h.waitRun(t, r.ID, 0, run.Pausing, "pause asked")
	if _, err := h.in.Answer(context.Background(), it.ID, inboxApprove); err != nil {
		t.Fatal(err)
	}
	p = h.waitRun(t, r.ID, p.LastSeq, run.Paused, "paused by the user")
	want := event.Next{Kind: "tool", NodeID: "n4", Tool: "write_file", Arguments: json.RawMessage(`{"path":"out.txt","content":"x"}`)}
	if diff := cmp.Diff(want, nextOf(t, p)); diff != "" {
		t.Errorf("next (-want +got):\n%s", diff)
	}
	out := filepath.Join(h.ws, "out.txt")
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("out.txt written while paused: %v", err)
	}
	h.accept(t, r.ID, cmd(run.CmdContinue))
	if end := h.waitEnd(t, r.ID, 5*time.Second); end.Status != string(run.Completed) {
		t.Errorf("run = %+v", end)
	}
	if b, err := os.ReadFile(out); err != nil || string(b) != "x" {
		t.Errorf("out.txt = %q, %v", b, err)
	}
	evs := h.events(t, r.ID)
	checkLog(t, evs)
	if n := countType(evs, event.ToolExecuting); n != 1 {
		t.Errorf("%d tool.executing, want 1", n)
	}
}

// TestPauseWhileWaitingShowsTheEdit: a call approved with edited arguments
// while a pause is asked is what the paused run says it does next, and
// what runs on continue.
func TestPauseWhileWaitingShowsTheEdit(t *testing.T) {
	t.Parallel()
	h := newHarness(t, fixed(scripted(t, writeThenDone)))
	r := h.start(t, testAgent(), "write")
	it := h.pending(t, r.ID)
	h.accept(t, r.ID, cmd(run.CmdPause))
	p := h.waitRun(t, r.ID, 0, run.Pausing, "pause asked")
	edit := inbox.Decision{Decision: "approve", Source: "web", Arguments: json.RawMessage(`{"path":"out.txt","content":"edited"}`)}
	if _, err := h.in.Answer(context.Background(), it.ID, edit); err != nil {
		t.Fatal(err)
	}
	p = h.waitRun(t, r.ID, p.LastSeq, run.Paused, "paused by the user")
	want := event.Next{Kind: "tool", NodeID: "n4", Tool: "write_file", Arguments: json.RawMessage(`{"path":"out.txt","content":"edited"}`)}
	if diff := cmp.Diff(want, nextOf(t, p)); diff != "" {
		t.Errorf("next (-want +got):\n%s", diff)
	}
	h.accept(t, r.ID, cmd(run.CmdContinue))
	if end := h.waitEnd(t, r.ID, 5*time.Second); end.Status != string(run.Completed) {
		t.Errorf("run = %+v", end)
	}
	if b, err := os.ReadFile(filepath.Join(h.ws, "out.txt")); err != nil || string(b) != "edited" {
		t.Errorf("out.txt = %q, %v", b, err)
	}
}
