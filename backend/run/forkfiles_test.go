package run_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"steward/backend/event"
	"steward/backend/run"
	"steward/backend/store"
)

// writer runs a run that writes a.txt twice and b.txt once, and returns it
// with its journal: a fork at the first write's node has a.txt "one" and
// no b.txt to go back to.
func writer(t *testing.T) (*harness, store.Run, []event.FileChangedData) {
	t.Helper()
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
	if len(fc) != 3 {
		t.Fatalf("journal %+v", fc)
	}
	return h, r, fc
}

// forkFilesOf returns what the fork's run.created records of its files.
func forkFilesOf(t *testing.T, h *harness, fork string) (event.RunCreatedData, *event.ForkFiles) {
	t.Helper()
	evs := h.events(t, fork)
	if len(evs) == 0 || evs[0].Type != event.RunCreated {
		t.Fatalf("fork %s has no run.created", fork)
	}
	c := decode[event.RunCreatedData](t, evs[0])
	return c, c.ForkFiles
}

func runCount(t *testing.T, h *harness) int {
	t.Helper()
	rs, err := h.st.ListRuns(context.Background(), store.RunFilter{})
	if err != nil {
		t.Fatal(err)
	}
	return len(rs)
}

// Keep (the default) leaves the files alone, and says so in the fork's log.
func TestForkKeepsFiles(t *testing.T) {
	t.Parallel()
	h, r, fc := writer(t)
	res := h.command(t, r.ID, run.Command{CommandID: "fork", Type: run.CmdFork, NodeID: fc[0].Op})
	if res.Status != "accepted" {
		t.Fatalf("fork = %+v", res)
	}
	c, ff := forkFilesOf(t, h, res.Fork)
	if diff := cmp.Diff(&event.ForkFiles{Choice: event.ForkKeep}, ff); diff != "" {
		t.Errorf("fork_files (-want +got):\n%s", diff)
	}
	if c.Workspace != r.Workspace || h.content(t, "a.txt") != "two" || h.content(t, "b.txt") != "bee" {
		t.Errorf("keep moved the files: workspace %s, a.txt %q", c.Workspace, h.content(t, "a.txt"))
	}
}

// Restore puts the files back as they were at the node, as one op of the
// source's journal that an undo takes back; a file changed on disk since
// refuses the whole restore, and no fork is made.
func TestForkRestoresFiles(t *testing.T) {
	t.Parallel()
	h, r, fc := writer(t)
	node := fc[0].Op
	fork := func(id string) run.CommandResult {
		return h.command(t, r.ID, run.Command{CommandID: id, Type: run.CmdFork, NodeID: node, Files: event.ForkRestore})
	}

	h.writeFile(t, "b.txt", "by hand")
	before := runCount(t, h)
	res := fork("conflict")
	if res.Status != "rejected" || res.Code != run.CodeFilesConflict || !strings.Contains(res.Message, "b.txt") {
		t.Fatalf("restore over a changed file = %+v", res)
	}
	if n := runCount(t, h); n != before || h.content(t, "a.txt") != "two" || h.content(t, "b.txt") != "by hand" {
		t.Fatalf("a refused restore changed something: %d runs (was %d), a.txt %q, b.txt %q", n, before, h.content(t, "a.txt"), h.content(t, "b.txt"))
	}

	h.writeFile(t, "b.txt", "bee")
	res = fork("restore")
	if res.Status != "accepted" {
		t.Fatalf("fork = %+v", res)
	}
	if h.content(t, "a.txt") != "one" || h.exists(t, "b.txt") {
		t.Fatalf("after the restore: a.txt %q, b.txt there %v; want one and none", h.content(t, "a.txt"), h.exists(t, "b.txt"))
	}
	c, ff := forkFilesOf(t, h, res.Fork)
	if ff == nil || ff.Choice != event.ForkRestore || ff.Op == "" || ff.Restored != 2 || c.Workspace != r.Workspace {
		t.Fatalf("fork_files = %+v, workspace %s", ff, c.Workspace)
	}
	var undone []string
	for _, ch := range fileEvents(t, h, r.ID) {
		if ch.Op == ff.Op {
			if ch.Source != event.FileByUndo || ch.Undoes != "after:"+node {
				t.Errorf("restore change %+v", ch)
			}
			undone = append(undone, ch.Path)
		}
	}
	if diff := cmp.Diff([]string{"a.txt", "b.txt"}, undone); diff != "" {
		t.Errorf("restore's changes in the source's journal (-want +got):\n%s", diff)
	}

	// The restore is undone like any other op of the source run.
	if _, err := h.svc.Restore(context.Background(), r.ID, run.RestoreParams{Kind: run.RestoreUndo, Op: ff.Op}); err != nil {
		t.Fatalf("undo the restore: %v", err)
	}
	if h.content(t, "a.txt") != "two" || h.content(t, "b.txt") != "bee" {
		t.Errorf("after the undo: a.txt %q, b.txt %q", h.content(t, "a.txt"), h.content(t, "b.txt"))
	}

	// From the last write on, the restore and its undo cancel out: nothing
	// to put back, and the fork says so.
	res = h.command(t, r.ID, run.Command{CommandID: "again", Type: run.CmdFork, NodeID: fc[2].Op, Files: event.ForkRestore})
	if res.Status != "accepted" {
		t.Fatalf("fork = %+v", res)
	}
	if _, ff := forkFilesOf(t, h, res.Fork); !cmp.Equal(ff, &event.ForkFiles{Choice: event.ForkRestore}) || h.content(t, "a.txt") != "two" {
		t.Errorf("restore with nothing to do: %+v, a.txt %q", ff, h.content(t, "a.txt"))
	}
	checkLog(t, h.events(t, r.ID))
}

// Restore works in the source's own folder only.
func TestForkRestoreNeedsTheSameFolder(t *testing.T) {
	t.Parallel()
	h, r, fc := writer(t)
	res := h.command(t, r.ID, run.Command{CommandID: "f", Type: run.CmdFork, NodeID: fc[0].Op, Files: event.ForkRestore,
		Agent: "ag_test", Workspace: t.TempDir()})
	if res.Status != "rejected" || !strings.Contains(res.Message, "own folder") || h.content(t, "a.txt") != "two" {
		t.Fatalf("restore into another folder = %+v", res)
	}
}

// Copy makes a sibling folder with everything in it, and the fork works
// there; the original is untouched.
func TestForkCopiesFiles(t *testing.T) {
	t.Parallel()
	h, r, fc := writer(t)
	if err := os.MkdirAll(filepath.Join(h.ws, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	h.writeFile(t, ".git/HEAD", "ref: main\n")
	res := h.command(t, r.ID, run.Command{CommandID: "f", Type: run.CmdFork, NodeID: fc[0].Op, Files: event.ForkCopy})
	if res.Status != "accepted" {
		t.Fatalf("fork = %+v", res)
	}
	dst := h.ws + "-fork-" + res.Fork
	c, ff := forkFilesOf(t, h, res.Fork)
	if diff := cmp.Diff(&event.ForkFiles{Choice: event.ForkCopy, From: h.ws, Copied: 3}, ff); diff != "" {
		t.Errorf("fork_files (-want +got):\n%s", diff)
	}
	f, err := h.st.GetRun(context.Background(), res.Fork)
	if err != nil || c.Workspace != dst || f.Workspace != dst {
		t.Fatalf("fork's workspace %s (run %s, %v); want %s", c.Workspace, f.Workspace, err, dst)
	}
	for name, want := range map[string]string{"a.txt": "two", "b.txt": "bee", ".git/HEAD": "ref: main\n"} {
		if b, err := os.ReadFile(filepath.Join(dst, name)); err != nil || string(b) != want {
			t.Errorf("copy's %s: %q, %v; want %q", name, b, err, want)
		}
	}
}

// A folder over the bound is not copied, and no fork is made.
func TestForkCopyBound(t *testing.T) {
	t.Parallel()
	h, r, fc := writer(t)
	// Sparse: its size is over the bound, its blocks are not.
	big, err := os.Create(filepath.Join(h.ws, "big.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(big.Truncate(1<<30+1), big.Close()); err != nil {
		t.Fatal(err)
	}
	before := runCount(t, h)
	res := h.command(t, r.ID, run.Command{CommandID: "f", Type: run.CmdFork, NodeID: fc[0].Op, Files: event.ForkCopy})
	if res.Status != "rejected" || !strings.Contains(res.Message, "more than 1024 MiB") {
		t.Fatalf("copy of a folder over 1 GiB = %+v", res)
	}
	if n := runCount(t, h); n != before {
		t.Errorf("a refused copy made a fork: %d runs, was %d", n, before)
	}
	matches, _ := filepath.Glob(h.ws + "-fork-*")
	if len(matches) != 0 {
		t.Errorf("a refused copy left %v", matches)
	}
}

// A files choice is checked: one of the three, and with fork only.
func TestForkFilesChecked(t *testing.T) {
	t.Parallel()
	h, r, fc := writer(t)
	for _, c := range []run.Command{
		{CommandID: "a", Type: run.CmdFork, NodeID: fc[0].Op, Files: "move"},
		{CommandID: "b", Type: run.CmdPause, Files: event.ForkKeep},
	} {
		if _, err := h.svc.Command(context.Background(), r.ID, c); !errors.Is(err, run.ErrInvalid) {
			t.Errorf("Command(%+v) = %v; want ErrInvalid", c, err)
		}
	}
}
