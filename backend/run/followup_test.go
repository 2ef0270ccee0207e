package run_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"steward/backend/event"
	"steward/backend/llm"
	"steward/backend/run"
)

// twoTurns answers the first model call, then the follow-up's.
const twoTurns = `{"turns": [{"text": "First answer."}, {"text": "Second answer."}]}`

// followUp is a follow-up command with text.
func followUp(text string) run.Command {
	c := cmd(run.CmdFollowUp)
	c.Text = text
	return c
}

// roles renders a request's messages as role:text, one each.
func roles(req llm.Request) []string {
	var out []string
	for _, m := range req.Messages {
		s := string(m.Role) + ":" + m.Text
		if m.Role == llm.RoleTool {
			s = string(m.Role) + ":" + m.ToolCallID
		}
		out = append(out, s)
	}
	return out
}

// TestFollowUp: a run that completed, failed or was cancelled goes on with a
// person's message as a new turn of the same run: the model reads the whole
// conversation and the message, the run runs and ends again, and the log
// holds both turns.
func TestFollowUp(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// first starts a run and ends its first turn with want.
		first func(t *testing.T) (*harness, *recording, string)
		want  run.Status
		// conv is what the follow-up's model call reads.
		conv []string
		// trace is the log from the follow-up on.
		trace []string
	}{
		{"completed", func(t *testing.T) (*harness, *recording, string) {
			rec := &recording{next: scripted(t, twoTurns)}
			h := newHarness(t, fixed(rec))
			return h, rec, h.start(t, testAgent(), "go").ID
		}, run.Completed,
			[]string{"user:go", "assistant:First answer.", "user:and then?"},
			[]string{"run.status running", "start n4 agent after=n3", "start n5 user parent=n4", "finish n5 succeeded",
				"start n6 llm parent=n4 after=n3,n5", "finish n6 succeeded", "finish n4 succeeded", "run.status completed"}},
		{"failed", func(t *testing.T) (*harness, *recording, string) {
			var calls atomic.Int32
			rec := &recording{next: &provider{stream: func(context.Context, llm.Request, func(llm.Delta)) (*llm.Response, error) {
				if calls.Add(1) == 1 {
					return nil, &llm.Error{Kind: llm.ErrAuth, StatusCode: 401, Message: "bad key"}
				}
				return &llm.Response{Text: "Second answer.", StopReason: llm.StopEnd}, nil
			}}}
			h := newHarness(t, fixed(rec))
			return h, rec, h.start(t, testAgent(), "go").ID
		}, run.Failed,
			// The failed call left no answer: the model reads both messages.
			[]string{"user:go", "user:and then?"},
			[]string{"run.status running", "start n4 agent", "start n5 user parent=n4", "finish n5 succeeded",
				"start n6 llm parent=n4 after=n2,n5", "finish n6 succeeded", "finish n4 succeeded", "run.status completed"}},
		{"cancelled before a call", func(t *testing.T) (*harness, *recording, string) {
			var probes atomic.Int32
			rec := &recording{next: scripted(t, `{"turns": [
				{"text": "Probing.", "tool_calls": [{"name": "probe", "arguments": {"note": "x"}}]},
				{"text": "Second answer."}]}`)}
			h := newHarness(t, fixed(rec), probeTool(&probes))
			a := testAgent("probe")
			a.BreakBefore = []string{"probe"}
			r := h.start(t, a, "go")
			h.waitRun(t, r.ID, 0, run.Paused, "breakpoint before probe")
			h.accept(t, r.ID, cmd(run.CmdCancel))
			return h, rec, r.ID
		}, run.Cancelled,
			// The call that never ran has its result, cancelled, before the message.
			[]string{"user:go", "assistant:Probing.", "tool:call_1_0", "user:and then?"},
			[]string{"run.status running", "start n5 agent after=n3", "start n6 user parent=n5", "finish n6 succeeded",
				"start n7 llm parent=n5 after=n4,n6", "finish n7 succeeded", "finish n5 succeeded", "run.status completed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h, rec, id := tt.first(t)
			if end := h.waitEnd(t, id, 5*time.Second); end.Status != string(tt.want) {
				t.Fatalf("first turn ended %s (%s), want %s", end.Status, end.Error, tt.want)
			}
			before := h.get(t, id)
			h.accept(t, id, followUp("and then?"))
			end := h.waitEnd(t, id, 5*time.Second)
			if end.Status != string(run.Completed) {
				t.Fatalf("the follow-up ended %s (%s)", end.Status, end.Error)
			}
			evs := h.events(t, id)
			checkLog(t, evs)
			if diff := cmp.Diff(tt.trace, trace(t, evs[before.LastSeq:])); diff != "" {
				t.Errorf("the follow-up's log (-want +got):\n%s", diff)
			}
			if d := decode[event.RunStatusData](t, evs[before.LastSeq]); d.Reason != "follow-up" {
				t.Errorf("the follow-up's run.status = %+v", d)
			}
			reqs := rec.requests()
			if diff := cmp.Diff(tt.conv, roles(reqs[len(reqs)-1])); diff != "" {
				t.Errorf("the follow-up's model call read (-want +got):\n%s", diff)
			}
			if end.Steps != before.Steps+1 {
				t.Errorf("steps %d after the follow-up, %d before: the turns do not add up", end.Steps, before.Steps)
			}
			for _, ev := range evs[before.LastSeq:] {
				if ev.Type == event.NodeStarted && decode[event.NodeStartedData](t, ev).Kind == event.KindAgent {
					if l := decode[event.NodeStartedData](t, ev).Label; l != "tester · turn 2" {
						t.Errorf("the turn's root is labelled %q", l)
					}
				}
			}
		})
	}
}

// TestFollowUpRefused: a follow-up is refused, saying why, where it cannot
// apply; nothing is recorded then.
func TestFollowUpRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newHarness(t, fixed(scripted(t, twoTurns)))
	done := h.start(t, testAgent(), "go")
	h.waitEnd(t, done.ID, 5*time.Second)

	t.Run("no message", func(t *testing.T) {
		for _, text := range []string{"", " \n\t", strings.Repeat("x", 64<<10+1)} {
			if _, err := h.svc.Command(ctx, done.ID, followUp(text)); !errors.Is(err, run.ErrInvalid) || !strings.Contains(err.Error(), "follow_up needs a message") {
				t.Errorf("follow-up with %d bytes = %v, want ErrInvalid naming the message", len(text), err)
			}
		}
	})
	t.Run("a live run", func(t *testing.T) {
		// Paused before its first model call, as a fork starts: it stays live.
		live, err := h.svc.Start(ctx, run.StartParams{Agent: testAgent(), Instructions: "go", Workspace: h.ws, Paused: "held for the test"})
		if err != nil {
			t.Fatal(err)
		}
		p := h.waitStatus(t, live.ID, run.Paused)
		res := h.command(t, live.ID, followUp("more"))
		if res.Status != "rejected" || res.Code != run.CodeInvalidState || !strings.Contains(res.Message, "this one is paused: steer it instead") {
			t.Errorf("follow-up of a paused run = %+v", res)
		}
		if got := h.get(t, live.ID); got.LastSeq != p.LastSeq {
			t.Errorf("the refused follow-up wrote to the log: seq %d, was %d", got.LastSeq, p.LastSeq)
		}
		h.accept(t, live.ID, cmd(run.CmdCancel))
		h.waitEnd(t, live.ID, 5*time.Second)
	})
	t.Run("steer of an ended run", func(t *testing.T) {
		c := cmd(run.CmdSteer)
		c.Text = "more"
		res := h.command(t, done.ID, c)
		if res.Status != "rejected" || res.Code != run.CodeTerminal || !strings.Contains(res.Message, "send a follow-up") {
			t.Errorf("steer of a completed run = %+v", res)
		}
	})
	t.Run("imported", func(t *testing.T) {
		evs := h.events(t, done.ID)
		for i := range evs {
			evs[i].RunID = "run_imported"
		}
		if _, err := h.st.ImportRun(ctx, evs, done.ID); err != nil {
			t.Fatal(err)
		}
		res := h.command(t, "run_imported", followUp("more"))
		if res.Status != "rejected" || !strings.Contains(res.Message, "imported from a recording and is read-only") {
			t.Errorf("follow-up of an imported run = %+v", res)
		}
	})
	t.Run("a replay", func(t *testing.T) {
		replay := appendReplay(t, h, "run_replayed", done.ID)
		res := h.command(t, replay, followUp("more"))
		if res.Status != "rejected" || !strings.Contains(res.Message, "is a replay") {
			t.Errorf("follow-up of a replay = %+v", res)
		}
	})
	t.Run("unknown run", func(t *testing.T) {
		if _, err := h.svc.Command(ctx, "run_nope", followUp("more")); !errors.Is(err, run.ErrNotFound) {
			t.Errorf("follow-up of an unknown run = %v", err)
		}
	})
}

// appendReplay records a completed replay of run of, as the replay service
// would have left it.
func appendReplay(t *testing.T, h *harness, id, of string) string {
	t.Helper()
	l := crashLog{t: t, st: h.st, run: id}
	l.add(event.RunCreated, "", event.RunCreatedData{Agent: event.AgentRef{ID: "ag_test", Name: "tester", Provider: "script", Model: "m"},
		Instructions: "go", Workspace: h.ws, Mode: "ask", MaxSteps: 10, ReplayOf: of})
	l.add(event.RunStatus, "", event.RunStatusData{Status: string(run.Running)})
	l.add(event.NodeStarted, "n1", event.NodeStartedData{Kind: event.KindAgent, Label: "tester"})
	l.add(event.NodeFinished, "n1", event.NodeFinishedData{Status: event.NodeSucceeded})
	l.add(event.RunStatus, "", event.RunStatusData{Status: string(run.Completed)})
	return id
}

// TestFollowUpAgentDeleted: a run whose agent is gone takes no follow-up:
// its settings would no longer be anyone's choice here (see run.Origin).
func TestFollowUpAgentDeleted(t *testing.T) {
	t.Parallel()
	h := newHarness(t, fixed(scripted(t, twoTurns)))
	r := h.start(t, testAgent(), "go")
	h.waitEnd(t, r.ID, 5*time.Second)
	if err := h.st.DeleteAgent(context.Background(), "ag_test"); err != nil {
		t.Fatal(err)
	}
	res := h.command(t, r.ID, followUp("more"))
	if res.Status != "rejected" || !strings.Contains(res.Message, "no longer exists on this machine") || !strings.Contains(res.Message, "fork it") {
		t.Errorf("follow-up of a run whose agent was deleted = %+v", res)
	}
}

// TestFollowUpBudget: budgets count every turn. A follow-up the budgets
// would stop at once is refused naming the budget; with higher limits it
// goes on, and the run.limits it records is in the log.
func TestFollowUpBudget(t *testing.T) {
	t.Parallel()
	h := newHarness(t, fixed(scripted(t, twoTurns)))
	a := testAgent()
	a.MaxSteps = 1
	r := h.start(t, a, "go")
	h.waitEnd(t, r.ID, 5*time.Second)
	before := h.get(t, r.ID)
	res := h.command(t, r.ID, followUp("more"))
	if res.Status != "rejected" || !strings.Contains(res.Message, "budget: max_steps 1 reached") || !strings.Contains(res.Message, "every turn") {
		t.Errorf("follow-up over budget = %+v", res)
	}
	if got := h.get(t, r.ID); got.LastSeq != before.LastSeq || got.Status != string(run.Completed) {
		t.Errorf("the refused follow-up changed the run: %+v", got)
	}
	c := followUp("more")
	c.Limits = &event.Limits{MaxSteps: 2}
	h.accept(t, r.ID, c)
	if end := h.waitEnd(t, r.ID, 5*time.Second); end.Status != string(run.Completed) || end.Steps != 2 {
		t.Errorf("follow-up with a higher budget ended %+v", end)
	}
	evs := h.events(t, r.ID)
	checkLog(t, evs)
	if d := decode[event.RunLimitsData](t, evs[before.LastSeq]); d.Limits.MaxSteps != 2 {
		t.Errorf("first event of the follow-up = %s %s, want run.limits", evs[before.LastSeq].Type, evs[before.LastSeq].Data)
	}
	// The third turn finds the raised budget spent too.
	if res := h.command(t, r.ID, followUp("again")); res.Status != "rejected" || !strings.Contains(res.Message, "max_steps 2 reached") {
		t.Errorf("third turn = %+v", res)
	}
}

// TestConcurrentFollowUps: of follow-ups sent at once, one wins; the others
// are refused because the run runs again. A repeated command_id gets its
// first answer and no second turn.
func TestConcurrentFollowUps(t *testing.T) {
	t.Parallel()
	held := newHeldModel(scripted(t, twoTurns), 2)
	h := newHarness(t, fixed(held))
	r := h.start(t, testAgent(), "go")
	h.waitEnd(t, r.ID, 5*time.Second)
	const n = 8
	cmds := make([]run.Command, n)
	results := make([]run.CommandResult, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		cmds[i] = followUp("more")
		wg.Go(func() { results[i], errs[i] = h.svc.Command(context.Background(), r.ID, cmds[i]) })
	}
	wg.Wait()
	won := -1
	for i, res := range results {
		switch {
		case errs[i] != nil:
			t.Errorf("follow-up %d: %v", i, errs[i])
		case res.Status == "accepted" && won < 0:
			won = i
		case res.Status == "accepted":
			t.Errorf("follow-ups %d and %d were both accepted", won, i)
		case !strings.Contains(res.Message, "this one is running"):
			t.Errorf("the losing follow-up %d = %+v, want refused naming running", i, res)
		}
	}
	if won < 0 {
		t.Fatal("no follow-up was accepted")
	}
	await(t, held.entered, "the follow-up's model call")
	if again := h.command(t, r.ID, cmds[won]); again.Status != "accepted" {
		t.Errorf("the winner's command_id again = %+v", again)
	}
	held.release <- struct{}{}
	h.waitEnd(t, r.ID, 5*time.Second)
	evs := h.events(t, r.ID)
	checkLog(t, evs)
	if got := countType(evs, event.NodeStarted); got != 6 {
		t.Errorf("%d nodes, want 6: two turns of agent, user and model", got)
	}
}

// TestFollowUpAfterRestart: a follow-up whose turn was under way when the
// process stopped resumes as any run does, paused recovered, from the same
// log: continued, it completes with the follow-up read once.
func TestFollowUpAfterRestart(t *testing.T) {
	t.Parallel()
	t.Run("shutdown during the turn", func(t *testing.T) {
		t.Parallel()
		rec := &recording{next: scripted(t, twoTurns)}
		held := newHeldModel(rec, 2)
		h := newHarness(t, fixed(held))
		r := h.start(t, testAgent(), "go")
		h.waitEnd(t, r.ID, 5*time.Second)
		h.accept(t, r.ID, followUp("and then?"))
		await(t, held.entered, "the follow-up's model call")
		h2 := h.restart(t)
		h2.recoverOne(t)
		h2.waitRun(t, r.ID, 0, run.Paused, "recovered")
		continueToEnd(t, h2, r.ID, run.Completed)
		evs := h2.events(t, r.ID)
		checkLog(t, evs)
		reqs := rec.requests()
		if diff := cmp.Diff([]string{"user:go", "assistant:First answer.", "user:and then?"}, roles(reqs[len(reqs)-1])); diff != "" {
			t.Errorf("the resumed turn's model call read (-want +got):\n%s", diff)
		}
		if got := finished(t, evs, "n7").Text; got != "Second answer." {
			t.Errorf("the resumed turn answered %q", got)
		}
	})
	t.Run("killed during the turn", func(t *testing.T) {
		t.Parallel()
		rec := &recording{next: scripted(t, twoTurns)}
		h := newHarness(t, fixed(rec))
		// The log a killed process left: the first turn completed, the
		// follow-up's turn recorded, its model call in flight.
		l := crashedRun(t, h, "run_crashed", testAgent(), "go")
		l.model("n3", 1, []string{"n2"}, "First answer.")
		l.add(event.NodeFinished, "n1", event.NodeFinishedData{Status: event.NodeSucceeded})
		l.add(event.RunStatus, "", event.RunStatusData{Status: string(run.Completed)})
		l.add(event.RunStatus, "", event.RunStatusData{Status: string(run.Running), Reason: "follow-up"})
		l.add(event.NodeStarted, "n4", event.NodeStartedData{Kind: event.KindAgent, After: []string{"n3"}, Label: "tester · turn 2"})
		l.add(event.NodeStarted, "n5", event.NodeStartedData{Kind: event.KindUser, Parent: "n4", Label: "follow-up", Text: "and then?"})
		l.add(event.NodeFinished, "n5", event.NodeFinishedData{Status: event.NodeSucceeded})
		l.add(event.NodeStarted, "n6", event.NodeStartedData{Kind: event.KindLLM, Parent: "n4", After: []string{"n3", "n5"}, Label: "model call 2", Step: 2})
		h.recoverOne(t)
		p := h.waitRun(t, l.run, 0, run.Paused, "recovered")
		continueToEnd(t, h, l.run, run.Completed)
		evs := h.events(t, l.run)
		checkLog(t, evs)
		want := []string{"finish n6 interrupted", "run.status paused", "run.status running",
			"start n7 llm parent=n4 after=n3,n5", "finish n7 succeeded", "finish n4 succeeded", "run.status completed"}
		if diff := cmp.Diff(want, trace(t, evs[p.LastSeq-2:])); diff != "" {
			t.Errorf("the resumed turn (-want +got):\n%s", diff)
		}
		reqs := rec.requests()
		if len(reqs) != 1 {
			t.Fatalf("%d model calls after the restart, want 1", len(reqs))
		}
		if diff := cmp.Diff([]string{"user:go", "assistant:First answer.", "user:and then?"}, roles(reqs[0])); diff != "" {
			t.Errorf("the resumed turn's model call read (-want +got):\n%s", diff)
		}
		// And the run, ended, takes a third turn.
		if res := h.command(t, l.run, followUp("once more")); res.Status != "accepted" {
			t.Errorf("third turn = %+v", res)
		}
		h.waitEnd(t, l.run, 5*time.Second)
		checkLog(t, h.events(t, l.run))
	})
}
