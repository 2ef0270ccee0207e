package run_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"steward/backend/run"
)

// An imported run is history: it is not resumed after a restart, takes no
// command but fork, and its files cannot be restored here.
func TestImportedRunIsReadOnly(t *testing.T) {
	t.Parallel()
	h := newHarness(t, fixed(scripted(t, `{"turns": [{"tool_calls": [{"name": "write_file", "arguments": {"path": "a.txt", "content": "x"}}]}, {"text": "done"}]}`)))
	r := h.start(t, testAgent(), "write a.txt")
	h.pending(t, r.ID) // waiting on the approval: an active run, as a recording may hold
	evs := h.events(t, r.ID)
	for i := range evs {
		evs[i].RunID = "run_imported"
	}
	ctx := context.Background()
	if _, err := h.st.ImportRun(ctx, evs, r.ID); err != nil {
		t.Fatal(err)
	}
	h.accept(t, r.ID, cmd(run.CmdCancel))
	h.waitEnd(t, r.ID, 5*time.Second)

	h2 := h.restart(t)
	if n, err := h2.svc.Recover(ctx); err != nil || n != 0 {
		t.Fatalf("Recover = %d, %v; want the imported run left alone", n, err)
	}
	if got := h2.get(t, "run_imported"); got.Status != "waiting" || got.ImportedFrom != r.ID {
		t.Errorf("imported run = %s from %q", got.Status, got.ImportedFrom)
	}
	for _, typ := range []string{run.CmdPause, run.CmdCancel, run.CmdSteer} {
		c := cmd(typ)
		c.Text = "go on"
		if typ != run.CmdSteer {
			c.Text = ""
		}
		res, err := h2.svc.Command(ctx, "run_imported", c)
		if err != nil || res.Status != "rejected" || res.Code != run.CodeInvalidState {
			t.Errorf("%s on the imported run = %+v, %v; want rejected as read-only", typ, res, err)
		}
	}
	if _, err := h2.svc.Restore(ctx, "run_imported", run.RestoreParams{Kind: run.RestoreRevert}); !errors.Is(err, run.ErrInvalid) {
		t.Errorf("revert of the imported run = %v, want ErrInvalid", err)
	}
	// Fork goes on from the recording, here, with one of this machine's
	// agents in a folder the person chooses (see fork_origin_test.go).
	f := cmd(run.CmdFork)
	f.NodeID, f.Agent, f.Workspace = "n2", "tester", t.TempDir()
	if res, err := h2.svc.Command(ctx, "run_imported", f); err != nil || res.Status != "accepted" || res.Fork == "" {
		t.Errorf("fork of the imported run = %+v, %v", res, err)
	} else {
		h2.accept(t, res.Fork, cmd(run.CmdCancel))
		h2.waitEnd(t, res.Fork, 5*time.Second)
	}
}
