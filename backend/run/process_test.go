package run_test

// Several runs at once, and two processes on one database (a server beside
// `steward run`).

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"steward/backend/event"
	"steward/backend/inbox"
	"steward/backend/run"
	"steward/backend/store"
)

// TestRecoverLeavesLiveRunsAlone starts a second service on the same
// database, as a server started beside `steward run`: it must not resume the
// run the first one drives, but it takes over a run whose driver died.
func TestRecoverLeavesLiveRunsAlone(t *testing.T) {
	t.Parallel()
	h := newHarness(t, fixed(scripted(t, writeThenDone)))
	r := h.start(t, testAgent(), "write")
	it := h.pending(t, r.ID)

	bus := event.NewBus()
	st2, err := store.Open(h.path, &store.Options{Publisher: bus})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st2.Close() })
	cfg := h.cfg
	cfg.Store, cfg.Approver = st2, inbox.New(st2, nil, func() string { return h.cfg.NewID("ia") })
	other := run.New(cfg)
	t.Cleanup(func() { other.Shutdown(context.Background()) })
	if n, err := other.Recover(context.Background()); err != nil || n != 0 {
		t.Fatalf("Recover beside a live driver = %d, %v; want 0", n, err)
	}
	if got, _ := h.st.GetRun(context.Background(), r.ID); got.Status != string(run.Waiting) {
		t.Errorf("the live run became %s", got.Status)
	}

	// A run whose driver's process is gone (a lease held through a store
	// that closed) is taken over at once.
	appendRun(t, h.st, "orphaned", "running")
	gone, err := store.Open(h.path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := gone.AcquireLease(context.Background(), "orphaned", gone.NewHolder("dead"), time.Hour); err != nil || !ok {
		t.Fatalf("plant lease: %v %v", ok, err)
	}
	if err := gone.Close(); err != nil {
		t.Fatal(err)
	}
	if n, err := other.Recover(context.Background()); err != nil || n != 1 {
		t.Fatalf("Recover of a dead driver's run = %d, %v; want 1", n, err)
	}
	if _, err := h.in.Answer(context.Background(), it.ID, inboxApprove); err != nil {
		t.Fatal(err)
	}
	if end := h.waitEnd(t, r.ID, 5*time.Second); end.Status != "completed" {
		t.Errorf("live run = %+v", end)
	}
}

// TestCommandsToAnotherProcessesRun checks that a service refuses to act on a
// run that another live process drives, cancel included: only the driver
// may write the run's end.
func TestCommandsToAnotherProcessesRun(t *testing.T) {
	t.Parallel()
	h := newHarness(t, fixed(scripted(t, writeThenDone)))
	appendRun(t, h.st, "theirs", "running")
	// A live holder: another store open on the database, as another
	// process would have it.
	other, err := store.Open(h.path, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	if _, ok, err := other.AcquireLease(context.Background(), "theirs", other.NewHolder("other"), time.Hour); err != nil || !ok {
		t.Fatalf("plant lease: %v %v", ok, err)
	}
	for _, typ := range []string{"cancel", "pause"} {
		got := h.command(t, "theirs", run.Command{CommandID: "x-" + typ, Type: typ})
		if got.Status != "rejected" || !strings.Contains(got.Message, "another Steward process (pid "+strconv.Itoa(os.Getpid())+",") {
			t.Errorf("%s of another process's run = %+v", typ, got)
		}
	}
	if r, _ := h.st.GetRun(context.Background(), "theirs"); r.Status != "running" {
		t.Errorf("the run became %s", r.Status)
	}
}

// TestConcurrentRuns runs several scripted runs at once through one
// provider and one store: each log stays whole and ordered.
func TestConcurrentRuns(t *testing.T) {
	t.Parallel()
	h := newHarness(t, fixed(scripted(t, `{"turns": [
		{"text": "Looking.", "tool_calls": [{"name": "list_dir"}, {"name": "read_file", "arguments": {"path": "a.txt"}}]},
		{"text": "Again.", "tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}}]},
		{"text": "Done: {{last_tool_output}}"}
	]}`)))
	h.writeFile(t, "a.txt", "A")
	var ids []string
	for range 8 {
		ids = append(ids, h.start(t, testAgent(), "look").ID)
	}
	slices.Sort(ids)
	if len(slices.Compact(slices.Clone(ids))) != len(ids) {
		t.Fatalf("run ids not unique: %v", ids)
	}
	for _, id := range ids {
		if end := h.waitEnd(t, id, 10*time.Second); end.Status != "completed" || end.Steps != 3 {
			t.Errorf("run %s = %+v", id, end)
		}
		evs := h.events(t, id)
		checkLog(t, evs)
		if got := finished(t, evs, "n8").Text; got != "Done: A" {
			t.Errorf("run %s: last text %q", id, got)
		}
	}
}

// TestAnswerFromAnotherProcess answers an approval through a second store
// and inbox on the same database file, as the CLI beside a server does.
func TestAnswerFromAnotherProcess(t *testing.T) {
	t.Parallel()
	// The store's writer must read each run's last seq inside its write
	// transaction: an append made through another Store on the same file
	// would otherwise hand the engine's next event a taken seq.
	h := newHarness(t, fixed(scripted(t, `{"turns": [
		{"tool_calls": [{"name": "write_file", "arguments": {"path": "out.txt", "content": "hello"}}]},
		{"text": "Done."}
	]}`)))
	r := h.start(t, testAgent(), "write")
	it := h.pending(t, r.ID)

	st2, err := store.Open(h.path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	if _, err := inbox.New(st2, nil, func() string { return "ia_other" }).Answer(context.Background(), it.ID, inbox.Decision{Decision: "approve", Source: "cli"}); err != nil {
		t.Fatal(err)
	}
	// The inbox polls every 500ms for answers given elsewhere.
	end := h.waitEnd(t, r.ID, 5*time.Second)
	if end.Status != "completed" {
		t.Errorf("run = %+v", end)
	}
	checkLog(t, h.events(t, r.ID))
	if b, err := os.ReadFile(filepath.Join(h.ws, "out.txt")); err != nil || string(b) != "hello" {
		t.Errorf("out.txt = %q, %v", b, err)
	}
}
