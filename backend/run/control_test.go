package run_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"steward/backend/event"
	"steward/backend/llm"
	"steward/backend/run"
	"steward/backend/tool"
)

// gateScript calls the gate tool in each of its first two turns.
const gateScript = `{"turns": [
	{"tool_calls": [{"name": "gate"}]},
	{"tool_calls": [{"name": "gate"}]},
	{"text": "Done."}
]}`

// situation is a run brought into one state by a test, with its harness.
type situation struct {
	h  *harness
	id string
}

// accept applies c and fails the test unless it was accepted.
func (h *harness) accept(t *testing.T, id string, c run.Command) run.CommandResult {
	t.Helper()
	res := h.command(t, id, c)
	if res.Status != "accepted" {
		t.Fatalf("%s = %+v, want accepted", c.Type, res)
	}
	return res
}

// inModelCall: running, its first model call in flight.
func inModelCall(t *testing.T) situation {
	m := newHeldModel(scripted(t, gateScript), 1)
	h := newHarness(t, fixed(m), newGate().tool())
	r := h.start(t, testAgent("gate"), "go")
	await(t, m.entered, "the model call")
	h.waitRun(t, r.ID, 0, run.Running, "")
	return situation{h, r.ID}
}

// inRetryWait: running, waiting 30 s (the server's Retry-After) to try its
// first model call again.
func inRetryWait(t *testing.T) situation {
	h := newHarness(t, fixed(&provider{stream: func(context.Context, llm.Request, func(llm.Delta)) (*llm.Response, error) {
		return nil, &llm.Error{Kind: llm.ErrRateLimited, StatusCode: 429, Message: "slow down", RetryAfter: 30 * time.Second}
	}}))
	r := h.start(t, testAgent(), "go")
	waitFor(t, 5*time.Second, "the first failed attempt", func() bool {
		return countType(h.events(t, r.ID), event.LLMAttempt) == 1
	})
	return situation{h, r.ID}
}

// inToolCall: running, its first tool call (gate) in progress.
func inToolCall(t *testing.T) situation {
	g := newGate()
	h := newHarness(t, fixed(scripted(t, gateScript)), g.tool())
	r := h.start(t, testAgent("gate"), "go")
	await(t, g.entered, "the gate tool")
	h.waitRun(t, r.ID, 0, run.Running, "")
	return situation{h, r.ID}
}

// inPausing: a pause asked while the first model call is in flight.
func inPausing(t *testing.T) situation {
	s := inModelCall(t)
	s.h.accept(t, s.id, cmd(run.CmdPause))
	s.h.waitRun(t, s.id, 0, run.Pausing, "pause asked")
	return s
}

// inPaused: paused by the user after the first tool call, before the second
// model call.
func inPaused(t *testing.T) situation {
	g := newGate()
	h := newHarness(t, fixed(scripted(t, gateScript)), g.tool())
	r := h.start(t, testAgent("gate"), "go")
	await(t, g.entered, "the gate tool")
	h.accept(t, r.ID, cmd(run.CmdPause))
	g.release <- struct{}{}
	h.waitRun(t, r.ID, 0, run.Paused, "paused by the user")
	return situation{h, r.ID}
}

// inInterrupted: recovered after a crash during its gate call, which awaits
// retry or skip.
func inInterrupted(t *testing.T) situation {
	h := newHarness(t, fixed(scripted(t, gateScript)), newGate().tool())
	l := crashedRun(t, h, "run_crashed", testAgent("gate"), "go")
	c := event.ToolCall{ID: "call_1_0", Name: "gate", Arguments: json.RawMessage(`{}`)}
	l.model("n3", 1, []string{"n2"}, "", c)
	l.toolStarted("n4", "n3", c, tool.RiskRead, "allow")
	l.add(event.ToolExecuting, "n4", event.ToolExecutingData{})
	h.recoverOne(t)
	h.waitRun(t, l.run, 0, run.Paused, "interrupted")
	return situation{h, l.run}
}

// inWaiting: waiting for the approval of write_file.
func inWaiting(t *testing.T) situation {
	h := newHarness(t, fixed(scripted(t, writeThenDone)))
	r := h.start(t, testAgent(), "write")
	h.pending(t, r.ID)
	return situation{h, r.ID}
}

func inCompleted(t *testing.T) situation {
	h := newHarness(t, fixed(scripted(t, `{"turns": [{"text": "Done."}]}`)))
	r := h.start(t, testAgent(), "go")
	h.waitEnd(t, r.ID, 5*time.Second)
	return situation{h, r.ID}
}

func inFailed(t *testing.T) situation {
	h := newHarness(t, fixed(&provider{stream: func(context.Context, llm.Request, func(llm.Delta)) (*llm.Response, error) {
		return nil, &llm.Error{Kind: llm.ErrAuth, StatusCode: 401, Message: "Incorrect API key provided."}
	}}))
	r := h.start(t, testAgent(), "go")
	h.waitEnd(t, r.ID, 5*time.Second)
	return situation{h, r.ID}
}

func inCancelled(t *testing.T) situation {
	s := inToolCall(t)
	s.h.accept(t, s.id, cmd(run.CmdCancel))
	s.h.waitEnd(t, s.id, cancelDeadline)
	return s
}

// TestCommandInEveryState applies every command to a run in every state it
// can rest in, against the real engine and store, and checks the answer, the
// status that follows, and that Capabilities offers exactly the commands the
// engine accepts.
func TestCommandInEveryState(t *testing.T) {
	t.Parallel()
	type want struct {
		code   string     // the rejection code; "" when accepted
		then   run.Status // the status once the command took effect
		reason string     // in the reason of that status
	}
	ok := func(then run.Status, reason string) want { return want{then: then, reason: reason} }
	invalid := func(then run.Status) want { return want{code: run.CodeInvalidState, then: then} }
	terminal := func(then run.Status) want { return want{code: run.CodeTerminal, then: then} }
	// terminalRow: only fork and follow_up apply to an ended run.
	terminalRow := func(s run.Status) map[string]want {
		return map[string]want{
			run.CmdPause: terminal(s), run.CmdContinue: terminal(s), run.CmdStep: terminal(s), run.CmdSteer: terminal(s),
			run.CmdCancel: terminal(s), run.CmdFork: ok(s, ""), run.CmdRetry: terminal(s), run.CmdSkip: terminal(s),
			run.CmdFollowUp: ok(run.Running, "follow-up"),
		}
	}
	states := []struct {
		name        string
		status      run.Status
		interrupted bool
		setup       func(*testing.T) situation
		want        map[string]want
	}{
		{"running", run.Running, false, inToolCall, map[string]want{
			run.CmdPause:    ok(run.Pausing, "pause asked"),
			run.CmdContinue: invalid(run.Running),
			run.CmdStep:     invalid(run.Running),
			run.CmdSteer:    ok(run.Running, ""),
			run.CmdCancel:   ok(run.Cancelled, "cancelled by the user"),
			run.CmdFork:     ok(run.Running, ""),
			run.CmdRetry:    invalid(run.Running),
			run.CmdSkip:     invalid(run.Running),
			run.CmdFollowUp: invalid(run.Running),
		}},
		{"pausing", run.Pausing, false, inPausing, map[string]want{
			run.CmdPause:    invalid(run.Pausing),
			run.CmdContinue: invalid(run.Pausing),
			run.CmdStep:     invalid(run.Pausing),
			run.CmdSteer:    ok(run.Pausing, ""),
			run.CmdCancel:   ok(run.Cancelled, "cancelled by the user"),
			run.CmdFork:     ok(run.Pausing, ""),
			run.CmdRetry:    invalid(run.Pausing),
			run.CmdSkip:     invalid(run.Pausing),
			run.CmdFollowUp: invalid(run.Pausing),
		}},
		{"paused", run.Paused, false, inPaused, map[string]want{
			run.CmdPause:    invalid(run.Paused),
			run.CmdContinue: ok(run.Running, "continue"),
			run.CmdStep:     ok(run.Paused, "step"), // after one model call, before its gate call
			run.CmdSteer:    ok(run.Paused, ""),
			run.CmdCancel:   ok(run.Cancelled, "cancelled by the user"),
			run.CmdFork:     ok(run.Paused, ""),
			run.CmdRetry:    invalid(run.Paused),
			run.CmdSkip:     invalid(run.Paused),
			run.CmdFollowUp: invalid(run.Paused),
		}},
		{"paused with an interrupted call", run.Paused, true, inInterrupted, map[string]want{
			run.CmdPause:    invalid(run.Paused),
			run.CmdContinue: invalid(run.Paused),
			run.CmdStep:     invalid(run.Paused),
			run.CmdSteer:    ok(run.Paused, ""),
			run.CmdCancel:   ok(run.Cancelled, "cancelled by the user"),
			run.CmdFork:     ok(run.Paused, ""),
			run.CmdRetry:    ok(run.Running, "retry n4"),
			run.CmdSkip:     ok(run.Running, "skip n4"),
			run.CmdFollowUp: invalid(run.Paused),
		}},
		{"waiting", run.Waiting, false, inWaiting, map[string]want{
			run.CmdPause:    ok(run.Pausing, "pause asked"),
			run.CmdContinue: invalid(run.Waiting),
			run.CmdStep:     invalid(run.Waiting),
			run.CmdSteer:    ok(run.Waiting, ""),
			run.CmdCancel:   ok(run.Cancelled, "cancelled by the user"),
			run.CmdFork:     ok(run.Waiting, ""),
			run.CmdRetry:    invalid(run.Waiting),
			run.CmdSkip:     invalid(run.Waiting),
			run.CmdFollowUp: invalid(run.Waiting),
		}},
		{"completed", run.Completed, false, inCompleted, terminalRow(run.Completed)},
		{"failed", run.Failed, false, inFailed, terminalRow(run.Failed)},
		{"cancelled", run.Cancelled, false, inCancelled, terminalRow(run.Cancelled)},
	}
	commands := []string{run.CmdPause, run.CmdContinue, run.CmdStep, run.CmdSteer, run.CmdCancel, run.CmdFork, run.CmdRetry, run.CmdSkip, run.CmdFollowUp}
	for _, st := range states {
		for _, c := range commands {
			w, found := st.want[c]
			if !found {
				t.Fatalf("%s: no expectation for %s", st.name, c)
			}
			t.Run(st.name+"/"+c, func(t *testing.T) {
				t.Parallel()
				s := st.setup(t)
				h := s.h
				before := h.get(t, s.id)
				if run.Status(before.Status) != st.status {
					t.Fatalf("set-up left the run %s, want %s", before.Status, st.status)
				}
				command := cmd(c)
				switch c {
				case run.CmdFork:
					command.NodeID = "n2" // the instructions: finished in every state
				case run.CmdSteer, run.CmdFollowUp:
					command.Text = "Please hurry."
				}
				res := h.command(t, s.id, command)

				if offered := slices.Contains(run.Capabilities(st.status, st.interrupted), c); offered != (w.code == "") {
					t.Errorf("Capabilities(%s, %v) offers %s: %v; the engine answered %+v", st.status, st.interrupted, c, offered, res)
				}
				if w.code != "" {
					if res.Status != "rejected" || res.Code != w.code || res.Message == "" {
						t.Fatalf("%s = %+v, want rejected %s with a message", c, res, w.code)
					}
					// A rejected command changes nothing.
					if after := h.get(t, s.id); after.Status != before.Status || after.LastSeq != before.LastSeq {
						t.Errorf("after the rejected %s the run is %s at seq %d, was %s at %d", c, after.Status, after.LastSeq, before.Status, before.LastSeq)
					}
					return
				}
				if res.Status != "accepted" || res.Code != "" {
					t.Fatalf("%s = %+v, want accepted", c, res)
				}
				if w.then == run.Cancelled && st.status != run.Cancelled {
					end := h.waitEnd(t, s.id, cancelDeadline)
					if end.Status != string(run.Cancelled) || end.Reason != w.reason {
						t.Errorf("after cancel the run is %s (%s)", end.Status, end.Reason)
					}
					checkLog(t, h.events(t, s.id))
					return
				}
				if c == run.CmdFollowUp {
					// The new turn runs on from here as the model says:
					// its start is what the command did.
					evs := h.events(t, s.id)
					if d := decode[event.RunStatusData](t, evs[before.LastSeq]); d.Status != string(w.then) || d.Reason != w.reason {
						t.Errorf("the follow-up recorded %+v first", d)
					}
					if res := h.command(t, s.id, cmd(run.CmdCancel)); res.Status != "accepted" && res.Code != run.CodeTerminal {
						t.Errorf("cancel of the new turn = %+v", res)
					}
					h.waitEnd(t, s.id, cancelDeadline)
					checkLog(t, h.events(t, s.id))
					return
				}
				// Every accepted command leaves a trace in the run's log.
				h.waitRun(t, s.id, before.LastSeq, w.then, w.reason)
				switch c {
				case run.CmdFork:
					if res.Fork == "" {
						t.Fatalf("fork = %+v, want the new run's id", res)
					}
					f := h.waitRun(t, res.Fork, 0, run.Paused, "forked from "+s.id+" at n2")
					if f.ForkedFrom != s.id {
						t.Errorf("fork's forked_from = %q, want %q", f.ForkedFrom, s.id)
					}
				case run.CmdSteer:
					found := false
					for _, ev := range h.events(t, s.id) {
						if ev.Type == event.NodeStarted && decode[event.NodeStartedData](t, ev).Text == "Please hurry." {
							found = true
						}
					}
					if !found {
						t.Error("no user node with the steer's text")
					}
				}
			})
		}
	}
}

// TestCancelEndsPromptly: cancel ends a run within 2 s whatever it is doing.
func TestCancelEndsPromptly(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		setup    func(*testing.T) situation
		inFlight string // the node that was open, cancelled with the run
	}{
		{name: "during a model stream", setup: inModelCall, inFlight: "n3"},
		{name: "waiting to retry a model call", setup: inRetryWait, inFlight: "n3"},
		{name: "during a tool call", setup: inToolCall, inFlight: "n4"},
		{name: "waiting for an approval", setup: inWaiting, inFlight: "n4"},
		{name: "paused", setup: inPaused},
		{name: "pausing", setup: inPausing, inFlight: "n3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := tt.setup(t)
			s.h.accept(t, s.id, cmd(run.CmdCancel))
			end := s.h.waitEnd(t, s.id, cancelDeadline)
			if end.Status != string(run.Cancelled) || end.Reason != "cancelled by the user" || end.PendingApprovals != 0 {
				t.Errorf("run = %+v", end)
			}
			if s.h.svc.Active(s.id) {
				t.Error("the run is still active")
			}
			evs := s.h.events(t, s.id)
			checkLog(t, evs)
			if d := finished(t, evs, "n1"); d.Status != event.NodeCancelled {
				t.Errorf("root = %+v", d)
			}
			if tt.inFlight != "" {
				if d := finished(t, evs, tt.inFlight); d.Status != event.NodeCancelled {
					t.Errorf("node %s = %+v, want cancelled", tt.inFlight, d)
				}
			}
		})
	}
}
