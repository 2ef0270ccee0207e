package run_test

// Failures of the system around a run: the approval that cannot be opened,
// the store that is closed.

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"steward/backend/event"
	"steward/backend/inbox"
	"steward/backend/run"
	"steward/backend/store"
)

// approver is a run.Approver whose methods are function fields.
type approver struct {
	open func(ctx context.Context, r inbox.Request) (string, error)
	wait func(ctx context.Context, id string) (inbox.Decision, error)
}

func (a *approver) Open(ctx context.Context, r inbox.Request) (string, error) { return a.open(ctx, r) }
func (a *approver) Answered(context.Context, string) (bool, error)            { return false, nil }
func (a *approver) Wait(ctx context.Context, id string) (inbox.Decision, error) {
	return a.wait(ctx, id)
}

// TestApprovalSystemFailure: when the approval cannot be opened (the
// database failed) the run fails, saying why, and the tool node is closed.
func TestApprovalSystemFailure(t *testing.T) {
	t.Parallel()
	h := newHarness(t, fixed(scripted(t, `{"turns": [
		{"tool_calls": [{"name": "write_file", "arguments": {"path": "out.txt", "content": "hello"}}]},
		{"text": "Done."}
	]}`)))
	svc := h.service(t, func(c *run.Config) {
		c.Approver = &approver{
			open: func(context.Context, inbox.Request) (string, error) { return "", errors.New("disk I/O error") },
			wait: func(context.Context, string) (inbox.Decision, error) { panic("Wait after a failed Open") },
		}
	})
	r, err := svc.Start(context.Background(), run.StartParams{Agent: testAgent(), Instructions: "write", Workspace: h.ws})
	if err != nil {
		t.Fatal(err)
	}
	if done := svc.Done(r.ID); done != nil {
		<-done
	}
	end, err := h.st.GetRun(context.Background(), r.ID)
	if err != nil || end.Status != string(run.Failed) || !strings.Contains(end.Error, "disk I/O error") {
		t.Errorf("run = %+v, %v", end, err)
	}
	evs := h.events(t, r.ID)
	checkLog(t, evs)
	if d := finished(t, evs, "n4"); d.Status != event.NodeFailed || !strings.Contains(d.Error, "disk I/O error") {
		t.Errorf("tool node = %+v", d)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "out.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("out.txt written without approval: %v", err)
	}
}

// TestStartStoreClosed: a run that cannot be recorded is not started.
func TestStartStoreClosed(t *testing.T) {
	t.Parallel()
	h := newHarness(t, fixed(scripted(t, `{"turns": [{"text": "hi"}]}`)))
	if err := h.st.Close(); err != nil {
		t.Fatal(err)
	}
	_, err := h.svc.Start(context.Background(), run.StartParams{Agent: testAgent(), Instructions: "hi", Workspace: h.ws})
	if !errors.Is(err, store.ErrClosed) || errors.Is(err, run.ErrInvalid) {
		t.Errorf("Start = %v, want ErrClosed", err)
	}
}
