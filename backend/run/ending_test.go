package run_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"steward/backend/event"
	"steward/backend/run"
	"steward/backend/store"
)

// hookedStore is the real store with hooks around two of its methods, to
// stop the engine or a command at the moment a race needs.
type hookedStore struct {
	*store.Store
	armed        atomic.Bool
	afterGetRun  func(id string)         // while armed, after each GetRun
	beforeSubmit func(evs []event.Event) // while armed, before each SubmitAll
}

func (s *hookedStore) GetRun(ctx context.Context, id string) (store.Run, error) {
	r, err := s.Store.GetRun(ctx, id)
	if s.armed.Load() && s.afterGetRun != nil {
		s.afterGetRun(id)
	}
	return r, err
}

func (s *hookedStore) SubmitAll(evs []event.Event) *store.Pending {
	if s.armed.Load() && s.beforeSubmit != nil {
		s.beforeSubmit(evs)
	}
	return s.Store.SubmitAll(evs)
}

func endsRun(evs []event.Event) bool {
	for _, ev := range evs {
		if ev.Type == event.RunStatus {
			var d event.RunStatusData
			if ev.Decode(&d) == nil && run.Status(d.Status).Terminal() {
				return true
			}
		}
	}
	return false
}

// TestCommandAsTheRunEnds: a command that races with the natural end of a run
// is answered terminal, and never adds a second end to its log.
func TestCommandAsTheRunEnds(t *testing.T) {
	t.Parallel()
	for _, typ := range []string{run.CmdCancel, run.CmdPause, run.CmdSteer} {
		t.Run(typ+" read the run before it ended", func(t *testing.T) {
			t.Parallel()
			// The command reads the run while it still runs; the run ends
			// and leaves the active set before the command looks it up.
			m := newHeldModel(scripted(t, `{"turns": [{"text": "Done."}]}`), 1)
			h := newHarness(t, fixed(m))
			hs := &hookedStore{Store: h.st}
			svc := h.service(t, func(c *run.Config) { c.Store = hs })
			r, err := svc.Start(context.Background(), run.StartParams{Agent: testAgent(), Instructions: "go", Workspace: h.ws})
			if err != nil {
				t.Fatal(err)
			}
			await(t, m.entered, "the model call")
			done := svc.Done(r.ID)
			hs.afterGetRun = func(string) {
				hs.armed.Store(false)
				m.release <- struct{}{}
				<-done
			}
			hs.armed.Store(true)
			c := cmd(typ)
			c.Text = "more"
			res, err := svc.Command(context.Background(), r.ID, c)
			if err != nil {
				t.Fatal(err)
			}
			checkEndedOnce(t, h, r.ID, res)
		})
	}

	t.Run("cancel as the run records its end", func(t *testing.T) {
		t.Parallel()
		// The run has decided to end (in memory) and is about to record
		// it when the cancel reads it, still running in the database.
		m := newHeldModel(scripted(t, `{"turns": [{"text": "Done."}]}`), 1)
		h := newHarness(t, fixed(m))
		hs := &hookedStore{Store: h.st}
		svc := h.service(t, func(c *run.Config) { c.Store = hs })
		r, err := svc.Start(context.Background(), run.StartParams{Agent: testAgent(), Instructions: "go", Workspace: h.ws})
		if err != nil {
			t.Fatal(err)
		}
		await(t, m.entered, "the model call")
		read := make(chan struct{})
		var once sync.Once
		answer := make(chan run.CommandResult, 1)
		hs.afterGetRun = func(string) { once.Do(func() { close(read) }) }
		hs.beforeSubmit = func(evs []event.Event) {
			if !endsRun(evs) {
				return
			}
			go func() {
				res, err := svc.Command(context.Background(), r.ID, cmd(run.CmdCancel))
				if err != nil {
					t.Error(err)
				}
				answer <- res
			}()
			<-read
		}
		hs.armed.Store(true)
		m.release <- struct{}{}
		res := await(t, answer, "the cancel's answer")
		// Cancel does not wait for the run's lock (it must win over a run
		// busy with a call), so here it is accepted although it is too
		// late to change anything. The log must still end once.
		if res.Status != "accepted" && res.Code != run.CodeTerminal {
			t.Errorf("cancel = %+v", res)
		}
		checkEndedOnce(t, h, r.ID, run.CommandResult{Status: "rejected", Code: run.CodeTerminal, Message: "the run is already completed"})
	})
}

// checkEndedOnce checks that res rejected a command as terminal and that the
// run completed, once.
func checkEndedOnce(t *testing.T, h *harness, id string, res run.CommandResult) {
	t.Helper()
	if res.Status != "rejected" || res.Code != run.CodeTerminal || res.Message != "the run is already completed" {
		t.Errorf("command = %+v, want rejected: the run is already completed", res)
	}
	var r store.Run
	waitFor(t, 5*time.Second, "the run to end", func() bool {
		r = h.get(t, id)
		return run.Status(r.Status).Terminal()
	})
	if r.Status != string(run.Completed) {
		t.Errorf("run = %+v, want completed", r)
	}
	checkLog(t, h.events(t, id))
}
