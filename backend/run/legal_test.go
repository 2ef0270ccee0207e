package run_test

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"steward/backend/event"
	"steward/backend/run"
)

// TestLegality: in every status (a paused run with and without an
// interrupted call, a recording's run too) every command is either a
// capability or refused with a reason, never both; a recording takes only
// fork, an ended run fork and follow_up (a replay only fork), and a refusal
// says which it is.
func TestLegality(t *testing.T) {
	t.Parallel()
	for _, st := range run.Statuses {
		for _, interrupted := range []bool{false, true} {
			for _, how := range []string{"", "imported", "replay"} {
				imported := how == "imported"
				s := run.Situation{RunID: "run_1", Status: st, Imported: imported, Replay: how == "replay"}
				if interrupted {
					s.Next = &event.Next{Kind: "tool", NodeID: "n4", Tool: "gate", Interrupted: true}
				}
				caps, refusals := s.Capabilities(), s.Refusals()
				all := slices.Sorted(slices.Values(slices.Concat(caps, slices.Collect(maps.Keys(refusals)))))
				if diff := cmp.Diff(slices.Sorted(slices.Values(run.Commands)), all); diff != "" {
					t.Errorf("%+v: capabilities %v and refusals %v do not cover every command once (-want +got):\n%s", s, caps, refusals, diff)
				}
				for c, r := range refusals {
					switch {
					case slices.Contains(caps, c):
						t.Errorf("%+v: %s is offered and refused (%s)", s, c, r.Message)
					case r.Message == "" || r.Code == "":
						t.Errorf("%+v: %s is refused with no reason: %+v", s, c, r)
					case imported && c != run.CmdFork && r.Code != run.CodeInvalidState,
						!imported && st.Terminal() && c != run.CmdFork && c != run.CmdFollowUp && r.Code != run.CodeTerminal:
						t.Errorf("%+v: %s refused as %s: %s", s, c, r.Code, r.Message)
					}
				}
				want := []string{run.CmdFork}
				if st.Terminal() && how == "" {
					want = append(want, run.CmdFollowUp)
				}
				if (imported || st.Terminal()) && st != run.Queued && !slices.Equal(caps, want) {
					t.Errorf("%+v: capabilities %v, want %v", s, caps, want)
				}
				if slices.Contains(caps, run.CmdFollowUp) != (st.Terminal() && how == "") {
					t.Errorf("%+v: capabilities %v: follow_up is for ended runs that are no recording's", s, caps)
				}
				if got := run.Capabilities(st, interrupted); how == "" && !slices.Equal(got, caps) {
					t.Errorf("Capabilities(%s, %v) = %v; the situation's are %v", st, interrupted, got, caps)
				}
			}
		}
	}
	// The refusal of continue names the call that waits for a decision.
	s := run.Situation{Status: run.Paused, Next: &event.Next{Kind: "tool", NodeID: "n4", Tool: "gate", Interrupted: true}}
	if r := s.Refusal(run.CmdContinue); r == nil || r.Message != "gate (node n4) was interrupted: retry it, skip it or cancel the run" {
		t.Errorf("continue of an interrupted run refused as %+v", r)
	}
	if r := (run.Situation{Status: run.Running}).Refusal("dance"); r == nil || r.Code != run.CodeUnsupported {
		t.Errorf("an unknown command refused as %+v, want unsupported", r)
	}
}

// TestRefusalIsTheAnswer: what the stored run's situation refuses, the
// engine rejects with that very code and message, in every state a run
// rests in; Capabilities and the checks of Command are one table.
func TestRefusalIsTheAnswer(t *testing.T) {
	t.Parallel()
	states := []struct {
		name  string
		setup func(*testing.T) situation
		tool  string // one of the agent's tools, for break and unbreak
	}{
		{"running", inToolCall, "gate"},
		{"pausing", inPausing, "gate"},
		{"paused", inPaused, "gate"},
		{"paused with an interrupted call", inInterrupted, "gate"},
		{"waiting", inWaiting, "write_file"},
		{"completed", inCompleted, "write_file"},
		{"failed", inFailed, "write_file"},
		{"cancelled", inCancelled, "gate"},
		{"imported", inImported, "write_file"},
	}
	for _, st := range states {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			s := st.setup(t)
			sit := run.SituationOf(s.h.get(t, s.id))
			refusals := sit.Refusals()
			if len(refusals) == 0 {
				t.Fatalf("%+v refuses nothing", sit)
			}
			for _, c := range run.Commands {
				want, refused := refusals[c]
				if !refused {
					continue // accepted: TestCommandInEveryState applies it
				}
				command := cmd(c)
				switch c {
				case run.CmdFork:
					command.NodeID = "n2"
				case run.CmdSteer, run.CmdFollowUp:
					command.Text = "Please hurry."
				case run.CmdBreak, run.CmdUnbreak:
					command.Tool = st.tool
				}
				got := s.h.command(t, s.id, command)
				if got.Status != "rejected" || got.Code != want.Code || got.Message != want.Message {
					t.Errorf("%s = %+v; the situation refuses it with %+v", c, got, want)
				}
			}
		})
	}
}

// inImported: a run imported from a recording of a completed run.
func inImported(t *testing.T) situation {
	s := inCompleted(t)
	evs := s.h.events(t, s.id)
	for i := range evs {
		evs[i].RunID = "run_imported"
	}
	if _, err := s.h.st.ImportRun(context.Background(), evs, s.id); err != nil {
		t.Fatal(err)
	}
	return situation{s.h, "run_imported"}
}
