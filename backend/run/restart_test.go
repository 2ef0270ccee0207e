package run_test

// Restarts that the engine must see through: a new process with its
// predecessor's pid, and a process that died right after it answered a
// command.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"steward/backend/event"
	"steward/backend/run"
	"steward/backend/store"
)

// logLines collects what a Service logs.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) logf(format string, args ...any) {
	l.mu.Lock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
	l.mu.Unlock()
}

func (l *logLines) has(sub string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range l.lines {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// TestRecoverUnderTheSamePID: a server restarted with the pid its killed
// predecessor had (pid 1 in a container restarted by its runtime) takes the
// predecessor's leases at once, resumes the runs paused recovered, and says
// so in its log; a live driver's run is left to it, and the log says that too.
func TestRecoverUnderTheSamePID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		holder func(t *testing.T, path string) store.Holder
	}{
		{"a holder of this pid whose store is gone", func(t *testing.T, path string) store.Holder {
			gone, err := store.Open(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			h := gone.NewHolder("proc_predecessor") // this process's pid
			if err := gone.Close(); err != nil {
				t.Fatal(err)
			}
			return h
		}},
		// What versions before instance ids wrote: pid:name.
		{"a holder of this pid in the old form", func(*testing.T, string) store.Holder {
			return store.Holder{PID: os.Getpid(), Name: "proc_predecessor"}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, fixed(scripted(t, writeThenDone)))
			var logs logLines
			h.svc = h.service(t, func(c *run.Config) { c.Logf = logs.logf })
			svc := h.svc
			l := crashedRun(t, h, "run_crashed", testAgent(), "write")
			prev := tt.holder(t, h.path)
			if prev.PID != os.Getpid() {
				t.Fatalf("holder pid %d, want this process's %d", prev.PID, os.Getpid())
			}
			if _, ok, err := h.st.AcquireLease(context.Background(), l.run, prev, time.Hour); err != nil || !ok {
				t.Fatalf("plant lease: %v %v", ok, err)
			}
			// And a run whose driver lives: another store open on the
			// database, as another process would hold it.
			appendRun(t, h.st, "run_live", "running")
			other, err := store.Open(h.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { other.Close() })
			if _, ok, err := other.AcquireLease(context.Background(), "run_live", other.NewHolder("proc_live"), time.Hour); err != nil || !ok {
				t.Fatalf("plant lease: %v %v", ok, err)
			}

			start := time.Now()
			if n, err := svc.Recover(context.Background()); err != nil || n != 1 {
				t.Fatalf("Recover = %d, %v; want 1 (the crashed run, not the live one)", n, err)
			}
			h.waitRun(t, l.run, 0, run.Paused, "recovered")
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("recovered after %v: the lease was waited out", d)
			}
			if !logs.has(fmt.Sprintf("run %s: taken over from a Steward process that stopped (pid %d)", l.run, os.Getpid())) {
				t.Errorf("the log does not say the run was taken over: %q", logs.lines)
			}
			if !logs.has(fmt.Sprintf("run run_live: another Steward process drives this run (pid %d): left to it", os.Getpid())) {
				t.Errorf("the log does not say the live run was left to its driver: %q", logs.lines)
			}
			res, err := svc.Command(context.Background(), l.run, cmd(run.CmdContinue))
			if err != nil || res.Status != "accepted" {
				t.Fatalf("continue = %+v, %v", res, err)
			}
			it := h.pending(t, l.run)
			if _, err := h.in.Answer(context.Background(), it.ID, inboxApprove); err != nil {
				t.Fatal(err)
			}
			if end := h.waitEnd(t, l.run, 5*time.Second); end.Status != string(run.Completed) {
				t.Errorf("the recovered run ended %+v", end)
			}
			if got := h.get(t, "run_live"); got.Status != string(run.Running) {
				t.Errorf("the live driver's run became %s", got.Status)
			}
		})
	}
}

// dyingStore is a store whose process dies, as far as the database can
// tell, right after the answer to a command of type typ is saved: from then
// on every write fails and writes nothing. dead is a closed store, whose
// writes fail so.
type dyingStore struct {
	*store.Store
	dead *store.Store
	typ  string
	died atomic.Bool
}

func newDyingStore(t *testing.T, st *store.Store, typ string) *dyingStore {
	t.Helper()
	dead, err := store.Open(filepath.Join(t.TempDir(), "dead.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := dead.Close(); err != nil {
		t.Fatal(err)
	}
	return &dyingStore{Store: st, dead: dead, typ: typ}
}

func (d *dyingStore) SubmitCommand(c store.CommandRecord, evs []event.Event) *store.Pending {
	if d.died.Load() {
		return d.dead.SubmitCommand(c, evs)
	}
	p := d.Store.SubmitCommand(c, evs)
	if c.Type == d.typ {
		_, _ = p.Wait() // the caller waits for it too
		d.died.Store(true)
	}
	return p
}

func (d *dyingStore) SaveCommand(ctx context.Context, runID, id, typ string, res []byte) ([]byte, bool, error) {
	if d.died.Load() {
		return nil, false, store.ErrClosed
	}
	first, dup, err := d.Store.SaveCommand(ctx, runID, id, typ, res)
	if typ == d.typ {
		d.died.Store(true)
	}
	return first, dup, err
}

func (d *dyingStore) Append(ctx context.Context, ev event.Event) (event.Event, error) {
	if d.died.Load() {
		return event.Event{}, store.ErrClosed
	}
	return d.Store.Append(ctx, ev)
}

func (d *dyingStore) SubmitAll(evs []event.Event) *store.Pending {
	if d.died.Load() {
		return d.dead.SubmitAll(evs)
	}
	return d.Store.SubmitAll(evs)
}

func (d *dyingStore) AcquireLease(ctx context.Context, runID string, owner store.Holder, ttl time.Duration) (store.Holder, bool, error) {
	if d.died.Load() {
		return store.Holder{}, false, store.ErrClosed
	}
	return d.Store.AcquireLease(ctx, runID, owner, ttl)
}

func (d *dyingStore) RenewLeases(ctx context.Context, owner store.Holder, ttl time.Duration) error {
	if d.died.Load() {
		return store.ErrClosed
	}
	return d.Store.RenewLeases(ctx, owner, ttl)
}

func (d *dyingStore) ReleaseLease(ctx context.Context, runID string, owner store.Holder) error {
	if d.died.Load() {
		return store.ErrClosed
	}
	return d.Store.ReleaseLease(ctx, runID, owner)
}

// TestCommandAnsweredJustBeforeACrash: a command that was answered accepted
// just before the process died, and that the run had not yet acted on, is
// carried out after the restart, and the repeated command_id answers
// accepted again: an answer never stands without its effect.
func TestCommandAnsweredJustBeforeACrash(t *testing.T) {
	t.Parallel()
	const script = `{"turns": [
		{"text": "Probing.", "tool_calls": [{"name": "probe", "arguments": {"note": "x"}}]},
		{"text": "Done: {{last_tool_output}}"}
	]}`
	tests := []struct {
		typ string
		// after checks the run once the new process recovered it and the
		// command was sent again.
		after func(t *testing.T, h *harness, runID string, probes *atomic.Int32)
	}{
		{run.CmdRetry, func(t *testing.T, h *harness, runID string, probes *atomic.Int32) {
			p := h.waitRun(t, runID, 0, run.Paused, "recovered")
			next := nextOf(t, p)
			if next.Kind != "tool" || next.Tool != "probe" || next.Interrupted || next.NodeID == "n4" {
				t.Fatalf("next = %+v, want the retry's own node of probe", next)
			}
			if got := startOf(t, h.events(t, runID), next.NodeID); got.RetryOf != "n4" {
				t.Errorf("node %s retries %q, want n4", next.NodeID, got.RetryOf)
			}
			continueToEnd(t, h, runID, run.Completed)
			if n := probes.Load(); n != 1 {
				t.Errorf("probe ran %d times, want once: the retry", n)
			}
		}},
		{run.CmdSkip, func(t *testing.T, h *harness, runID string, probes *atomic.Int32) {
			p := h.waitRun(t, runID, 0, run.Paused, "recovered")
			if next := nextOf(t, p); next.Kind != "model" {
				t.Fatalf("next = %+v, want the model call after the skipped one", next)
			}
			continueToEnd(t, h, runID, run.Completed)
			if n := probes.Load(); n != 0 {
				t.Errorf("probe ran %d times, want never", n)
			}
		}},
		{run.CmdCancel, func(t *testing.T, h *harness, runID string, probes *atomic.Int32) {
			if end := h.waitEnd(t, runID, 5*time.Second); end.Status != string(run.Cancelled) {
				t.Errorf("the run ended %+v, want cancelled without being asked again", end)
			}
		}},
		{run.CmdSteer, func(t *testing.T, h *harness, runID string, probes *atomic.Int32) {
			found := false
			for _, ev := range h.events(t, runID) {
				if ev.Type == event.NodeStarted {
					d := decode[event.NodeStartedData](t, ev)
					found = found || (d.Kind == event.KindUser && d.Text == "look at b.txt too")
				}
			}
			if !found {
				t.Error("the steer message is not in the log")
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.typ, func(t *testing.T) {
			t.Parallel()
			var probes atomic.Int32
			h := newHarness(t, fixed(scripted(t, script)), probeTool(&probes))
			l := crashedDuringProbe(t, h)
			dying := newDyingStore(t, h.st, tt.typ)
			svc := h.service(t, func(c *run.Config) { c.Store = dying })
			if n, err := svc.Recover(context.Background()); err != nil || n != 1 {
				t.Fatalf("Recover = %d, %v", n, err)
			}
			h.waitRun(t, l.run, 0, run.Paused, "interrupted")
			c := run.Command{CommandID: "the-command", Type: tt.typ}
			if tt.typ == run.CmdSteer {
				c.Text = "look at b.txt too"
			}
			res, err := svc.Command(context.Background(), l.run, c)
			if err != nil || res.Status != "accepted" {
				t.Fatalf("%s = %+v, %v", tt.typ, res, err)
			}
			if !dying.died.Load() {
				t.Fatal("the process did not die with the answer")
			}
			// The process is gone: its store's lock with it.
			if err := h.st.Close(); err != nil {
				t.Fatal(err)
			}
			h2 := h.restart(t)
			h2.recoverOne(t)
			again := h2.command(t, l.run, c)
			if again.Status != "accepted" {
				t.Errorf("the repeated command_id answers %+v, want accepted as before", again)
			}
			tt.after(t, h2, l.run, &probes)
		})
	}
}

// continueToEnd continues the paused run and waits for its end.
func continueToEnd(t *testing.T, h *harness, runID string, want run.Status) {
	t.Helper()
	if res := h.command(t, runID, cmd(run.CmdContinue)); res.Status != "accepted" {
		b, _ := json.Marshal(res)
		t.Fatalf("continue = %s", b)
	}
	if end := h.waitEnd(t, runID, 5*time.Second); end.Status != string(want) {
		t.Errorf("the run ended %+v, want %s", end, want)
	}
}
