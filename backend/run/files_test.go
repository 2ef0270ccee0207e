package run_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"steward/backend/agent"
	"steward/backend/event"
	"steward/backend/inbox"
	"steward/backend/run"
	"steward/backend/tool"
	"steward/backend/workspace"
)

// fileEvents returns the run's file.changed events.
func fileEvents(t *testing.T, h *harness, runID string) []event.FileChangedData {
	t.Helper()
	var out []event.FileChangedData
	for _, ev := range h.events(t, runID) {
		if ev.Type == event.FileChanged {
			out = append(out, decode[event.FileChangedData](t, ev))
		}
	}
	return out
}

func autoAgent(tools ...string) agent.Agent {
	a := testAgent(tools...)
	a.Mode = "auto"
	return a
}

// The journal records what the file tools did; undo, undo of the undo,
// revert and rewind take it back, and refuse when the disk changed since.
func TestJournalUndoRevertRewind(t *testing.T) {
	t.Parallel()
	h := newHarness(t, fixed(scripted(t, `{"turns": [
		{"tool_calls": [{"name": "write_file", "arguments": {"path": "a.txt", "content": "one"}}]},
		{"tool_calls": [{"name": "write_file", "arguments": {"path": "a.txt", "content": "two"}}]},
		{"tool_calls": [{"name": "write_file", "arguments": {"path": "b.txt", "content": "bee"}}]},
		{"text": "Done."}
	]}`)))
	r := h.start(t, autoAgent(), "write")
	if end := h.waitEnd(t, r.ID, 5*time.Second); end.Status != string(run.Completed) {
		t.Fatalf("run ended %s", end.Status)
	}
	fc := fileEvents(t, h, r.ID)
	if len(fc) != 3 || fc[0].Before != "" || fc[0].After != workspace.Sum([]byte("one")) || fc[1].Before != fc[0].After ||
		fc[0].Source != event.FileByTool || fc[0].Op == "" || fc[1].Op == fc[0].Op {
		t.Fatalf("journal %+v", fc)
	}
	ctx := context.Background()
	secondWrite := fc[1].Op

	// Undo the second write, then the undo.
	res, err := h.svc.Restore(ctx, r.ID, run.RestoreParams{Kind: run.RestoreUndo, Op: secondWrite})
	if err != nil || h.content(t, "a.txt") != "one" || len(res.Changes) != 1 || res.Changes[0].Undoes != secondWrite {
		t.Fatalf("undo: %+v, %v; a.txt %q", res, err, h.content(t, "a.txt"))
	}
	if _, err := h.svc.Restore(ctx, r.ID, run.RestoreParams{Kind: run.RestoreUndo, Op: res.Op}); err != nil || h.content(t, "a.txt") != "two" {
		t.Fatalf("undo the undo: %v; a.txt %q", err, h.content(t, "a.txt"))
	}
	// The first write cannot be undone alone: the second changed a.txt after it.
	_, err = h.svc.Restore(ctx, r.ID, run.RestoreParams{Kind: run.RestoreUndo, Op: fc[0].Op})
	var ce *workspace.ConflictError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "changed again later") {
		t.Fatalf("undo of an earlier write: %v", err)
	}
	// A person edits b.txt: revert refuses, and writes nothing.
	h.writeFile(t, "b.txt", "by hand")
	_, err = h.svc.Restore(ctx, r.ID, run.RestoreParams{Kind: run.RestoreRevert})
	if !errors.As(err, &ce) || len(ce.Conflicts) != 1 || ce.Conflicts[0].Path != "b.txt" || h.content(t, "a.txt") != "two" {
		t.Fatalf("revert over a changed file: %v; a.txt %q", err, h.content(t, "a.txt"))
	}
	h.writeFile(t, "b.txt", "bee")
	// Rewind to before the third call: b.txt goes, a.txt stays.
	if _, err := h.svc.Restore(ctx, r.ID, run.RestoreParams{Kind: run.RestoreRewind, NodeID: fc[2].Op}); err != nil || h.exists(t, "b.txt") || h.content(t, "a.txt") != "two" {
		t.Fatalf("rewind: %v", err)
	}
	// Revert: the workspace as it was before the run.
	if _, err := h.svc.Restore(ctx, r.ID, run.RestoreParams{Kind: run.RestoreRevert}); err != nil || h.exists(t, "a.txt") || h.exists(t, "b.txt") {
		t.Fatalf("revert: %v", err)
	}
	for _, p := range []run.RestoreParams{{Kind: "redo"}, {Kind: run.RestoreUndo}, {Kind: run.RestoreRewind}} {
		if _, err := h.svc.Restore(ctx, r.ID, p); !errors.Is(err, run.ErrInvalid) {
			t.Errorf("Restore(%+v) = %v, want ErrInvalid", p, err)
		}
	}
	if _, err := h.svc.Restore(ctx, r.ID, run.RestoreParams{Kind: run.RestoreUndo, Op: "n99"}); !errors.Is(err, run.ErrNotFound) {
		t.Errorf("undo of an op with no change = %v", err)
	}
	checkLog(t, h.events(t, r.ID))
}

// A change made outside the run while it waits is recorded as external, and
// the write the run then attempts is refused: it must read the file again.
func TestExternalChangeVoidsTheRead(t *testing.T) {
	t.Parallel()
	rec := &recording{next: scripted(t, `{"turns": [
		{"tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}}]},
		{"tool_calls": [{"name": "write_file", "arguments": {"path": "a.txt", "content": "from the model"}}]},
		{"text": "Done."}
	]}`)}
	h := newHarness(t, fixed(rec))
	h.writeFile(t, "a.txt", "original")
	r := h.start(t, testAgent(), "edit")
	it := h.pending(t, r.ID) // the write waits for approval
	h.writeFile(t, "a.txt", "edited by a person")
	waitFor(t, 5*time.Second, "the external change in the journal", func() bool {
		for _, c := range fileEvents(t, h, r.ID) {
			if c.Source == event.FileByExternal && c.Path == "a.txt" && c.Before == workspace.Sum([]byte("original")) {
				return true
			}
		}
		return false
	})
	if _, err := h.in.Answer(context.Background(), it.ID, inbox.Decision{Decision: "approve"}); err != nil {
		t.Fatal(err)
	}
	h.waitEnd(t, r.ID, 5*time.Second)
	if got := h.content(t, "a.txt"); got != "edited by a person" {
		t.Fatalf("a.txt = %q: the person's edit was overwritten", got)
	}
	m := rec.requests()[2].Messages
	if last := m[len(m)-1]; !last.IsError || !strings.Contains(last.Text, "read") {
		t.Errorf("the model read %+v", last)
	}
}

// What a command does to the workspace is recorded as that command's: a
// file it creates can be undone with it.
func TestCommandChangesAreItsOwn(t *testing.T) {
	t.Parallel()
	touch := tool.Must(tool.New("touch", "Creates made.txt without the file tools.", tool.RiskExec,
		func(_ context.Context, env tool.Env, _ struct{}) (tool.Result, error) {
			return tool.Result{Output: "made"}, os.WriteFile(filepath.Join(env.Workspace, "made.txt"), []byte("by a command"), 0o644)
		}))
	h := newHarness(t, fixed(scripted(t, `{"turns": [
		{"tool_calls": [{"name": "touch", "arguments": {}}]},
		{"text": "Done."}
	]}`)), touch)
	r := h.start(t, autoAgent("touch"), "make")
	h.waitEnd(t, r.ID, 5*time.Second)
	var cmd event.FileChangedData
	for _, c := range fileEvents(t, h, r.ID) {
		if c.Path == "made.txt" {
			cmd = c
		}
	}
	if cmd.Source != event.FileByCommand || cmd.Op == "" || cmd.BeforeUnknown || cmd.Before != "" {
		t.Fatalf("the command's change: %+v", cmd)
	}
	if _, err := h.svc.Restore(context.Background(), r.ID, run.RestoreParams{Kind: run.RestoreUndo, Op: cmd.Op}); err != nil || h.exists(t, "made.txt") {
		t.Fatalf("undo the command: %v", err)
	}
}
