package run_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"steward/backend/event"
	"steward/backend/inbox"
	"steward/backend/run"
	"steward/backend/store"
	"steward/backend/workspace"
)

// holdBlob makes the journal's copy of content a named pipe, so that a
// restore that puts content back blocks reading it, after it has checked
// the run and the disk and before it writes. It returns once the restore
// is there, and release lets it go on.
func holdBlob(t *testing.T, h *harness, content string) (entered <-chan struct{}, release func()) {
	t.Helper()
	sum := workspace.Sum([]byte(content))
	path := filepath.Join(filepath.Dir(h.path), "blobs", sum[:2], sum[2:])
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the journal keeps no copy of %q: %v", content, err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	in := make(chan struct{})
	var w *os.File
	go func() {
		// Opening the writing end without blocking fails until a reader
		// has the pipe open: then the restore waits in its read.
		for {
			f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0)
			if err == nil {
				w = f
				close(in)
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	t.Cleanup(func() {
		if w != nil {
			w.Close()
		}
	})
	return in, func() {
		if _, err := w.WriteString(content); err != nil {
			t.Error(err)
		}
		if err := w.Close(); err != nil {
			t.Error(err)
		}
		w = nil
	}
}

func pendingOf(t *testing.T, h *harness, runID string) []store.Interaction {
	t.Helper()
	its, err := h.st.ListInteractions(context.Background(), store.InteractionFilter{RunID: runID, Status: event.InteractionPending})
	if err != nil {
		t.Fatal(err)
	}
	return its
}

// readWriteWrite reads a.txt, writes it, writes b.txt, then ends.
const readWriteWrite = `{"turns": [
	{"tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}}]},
	{"tool_calls": [{"name": "write_file", "arguments": {"path": "a.txt", "content": "one"}}]},
	{"tool_calls": [{"name": "write_file", "arguments": {"path": "b.txt", "content": "two"}}]},
	{"text": "Done."}
]}`

// TestRestoreHoldsTheRunStill: a restore of a run's files that found the
// run stopped (paused, or waiting on an approval) writes before the run
// acts again. A continue sent meanwhile, and the answer to the approval,
// wait for it: the run's next call cannot run among the restore's writes.
// Both take the run's command lock; without it, the continue was applied
// at once and the run went on while the restore was putting a.txt back.
// Run it with -race.
func TestRestoreHoldsTheRunStill(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// stop brings the run, after its first write, to a stop before
		// its second; resume sends what makes it go on, in a goroutine.
		stop   func(t *testing.T, h *harness, id string)
		resume func(h *harness, id string) error
	}{
		{"paused, then continued",
			func(t *testing.T, h *harness, id string) {
				h.waitRun(t, id, 0, run.Paused, "breakpoint")
				h.accept(t, id, cmd(run.CmdContinue))
				waitFor(t, 5*time.Second, "the pause before the second write", func() bool {
					return len(fileEvents(t, h, id)) == 1 && h.get(t, id).Status == string(run.Paused)
				})
			},
			func(h *harness, id string) error {
				res, err := h.svc.Command(context.Background(), id, cmd(run.CmdContinue))
				if err == nil && res.Status != "accepted" {
					err = errors.New(res.Code + ": " + res.Message)
				}
				return err
			}},
		{"waiting, then approved",
			func(t *testing.T, h *harness, id string) {
				first := h.pending(t, id)
				if _, err := h.in.Answer(context.Background(), first.ID, inbox.Decision{Decision: "approve", Source: "web"}); err != nil {
					t.Fatal(err)
				}
				waitFor(t, 5*time.Second, "the approval of the second write", func() bool {
					return len(fileEvents(t, h, id)) == 1 && len(pendingOf(t, h, id)) == 1 && h.get(t, id).Status == string(run.Waiting)
				})
			},
			func(h *harness, id string) error {
				its, err := h.st.ListInteractions(context.Background(), store.InteractionFilter{RunID: id, Status: event.InteractionPending})
				if err != nil || len(its) != 1 {
					return errors.Join(err, errors.New("no single pending approval"))
				}
				_, err = h.in.Answer(context.Background(), its[0].ID, inbox.Decision{Decision: "approve", Source: "web"})
				return err
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, fixed(scripted(t, readWriteWrite)))
			h.writeFile(t, "a.txt", "zero")
			a := testAgent()
			if tt.name == "paused, then continued" {
				a = autoAgent()
				a.BreakBefore = []string{"write_file"}
			}
			r := h.start(t, a, "write a.txt and b.txt")
			tt.stop(t, h, r.ID)
			if got := h.content(t, "a.txt"); got != "one" {
				t.Fatalf("a.txt holds %q after its write", got)
			}

			entered, release := holdBlob(t, h, "zero")
			restored := make(chan error, 1)
			go func() {
				_, err := h.svc.Restore(context.Background(), r.ID, run.RestoreParams{Kind: run.RestoreRevert})
				restored <- err
			}()
			await(t, entered, "the restore reading the content it puts back")
			resumed := make(chan error, 1)
			go func() { resumed <- tt.resume(h, r.ID) }()

			// While the restore holds the run, the run does not act.
			deadline := time.After(300 * time.Millisecond)
		hold:
			for {
				select {
				case err := <-resumed:
					if tt.name == "paused, then continued" {
						t.Fatalf("continue answered (%v) while a restore of the run's files was under way", err)
					}
					if err != nil {
						t.Fatal(err)
					}
					resumed = nil // an answer is taken by the inbox at once; the run waits to act on it
				case <-deadline:
					break hold
				case <-time.After(5 * time.Millisecond):
				}
				if n := countType(h.events(t, r.ID), event.ToolExecuting); n > 2 {
					t.Fatalf("the second write started (%d calls executing) while a restore was under way", n)
				}
			}
			if st := h.get(t, r.ID).Status; st == string(run.Running) {
				t.Fatalf("the run is %s while a restore of its files is under way", st)
			}

			release()
			if err := <-restored; err != nil {
				t.Fatalf("revert: %v", err)
			}
			if resumed != nil {
				if err := <-resumed; err != nil {
					t.Fatalf("resume after the restore: %v", err)
				}
			}
			if end := h.waitEnd(t, r.ID, 5*time.Second); end.Status != string(run.Completed) {
				t.Fatalf("run ended %s (%s)", end.Status, end.Error)
			}
			// The restore put a.txt back, then the second write ran: in that
			// order in the journal.
			fc := fileEvents(t, h, r.ID)
			sum := func(s string) string { return workspace.Sum([]byte(s)) }
			if len(fc) != 3 || fc[1].Source != event.FileByUndo || fc[1].Path != "a.txt" || fc[1].After != sum("zero") ||
				fc[2].Source != event.FileByTool || fc[2].Path != "b.txt" || fc[2].After != sum("two") {
				t.Errorf("journal %+v, want the write of a.txt, its revert, the write of b.txt", fc)
			}
			if a, b := h.content(t, "a.txt"), h.content(t, "b.txt"); a != "zero" || b != "two" {
				t.Errorf("a.txt holds %q and b.txt %q, want zero and two", a, b)
			}
		})
	}
}
