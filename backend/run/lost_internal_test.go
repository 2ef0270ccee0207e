package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"steward/backend/agent"
	"steward/backend/event"
	"steward/backend/inbox"
	"steward/backend/llm/script"
	"steward/backend/store"
	"steward/backend/tool"
	fstools "steward/backend/tools/fs"
)

// pauseRefusingStore is the store, except that the group that records a
// run's pause does not commit: its run.status is not JSON, which the store
// refuses (with the rest of that group) while it commits other groups.
type pauseRefusingStore struct {
	*store.Store
	refused atomic.Bool
}

func (s *pauseRefusingStore) SubmitAll(evs []event.Event) *store.Pending {
	for i, ev := range evs {
		if ev.Type == event.RunStatus && strings.Contains(string(ev.Data), `"status":"paused"`) && !s.refused.Swap(true) {
			evs = append([]event.Event(nil), evs...)
			evs[i].Data = []byte("not JSON")
		}
	}
	return s.Store.SubmitAll(evs)
}

// TestAFailedCommitEndsTheRun: when the events that record a pause do not
// commit, the run's fold holds what its log does not (the model's answer,
// the pause): the run must not go on from it. It ends failed, naming the
// lost commit, and the call it paused before never runs, even when a
// continue comes. Before, the failure was logged and the run stayed paused
// in memory with the log saying running; a continue then ran the call on a
// fold that was not its log.
func TestAFailedCommitEndsTheRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	real, err := store.Open(filepath.Join(dir, "steward.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer real.Close()
	st := &pauseRefusingStore{Store: real}
	reg := tool.NewRegistry()
	for _, tl := range fstools.Tools() {
		if err := reg.Register(tl); err != nil {
			t.Fatal(err)
		}
	}
	var n atomic.Int64
	newID := func(p string) string { return fmt.Sprintf("%s_%d", p, n.Add(1)) }
	sc, err := script.Parse([]byte(`{"turns": [
		{"tool_calls": [{"name": "write_file", "arguments": {"path": "a.txt", "content": "a\n"}}]},
		{"text": "done"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	svc := New(Config{Store: st, Approver: inbox.New(real, reg, func() string { return newID("ia") }), Tools: reg,
		Models: scriptModels{script.New(sc, script.Options{})}, NewID: newID, Logf: t.Logf})
	defer func() { _ = svc.Shutdown(context.Background()) }()
	ws := t.TempDir()
	a := agent.Agent{ID: "ag", Name: "tester", Provider: agent.ProviderScript, Tools: []string{"write_file"}, Mode: agent.ModeAuto,
		MaxSteps: 10, BreakBefore: []string{"write_file"}}
	r, err := svc.Start(context.Background(), StartParams{Agent: a, Instructions: "go", Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	var got store.Run
	for deadline := time.Now().Add(10 * time.Second); ; {
		got, err = real.GetRun(context.Background(), r.ID)
		if err != nil {
			t.Fatal(err)
		}
		if Status(got.Status).Terminal() {
			break
		}
		if st.refused.Load() {
			// What a person might press meanwhile changes nothing.
			_, _ = svc.Command(context.Background(), r.ID, Command{CommandID: newID("cmd"), Type: CmdContinue})
		}
		if time.Now().After(deadline) {
			t.Fatalf("the run is still %s (%s) after its pause failed to commit", got.Status, got.Reason)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if !st.refused.Load() {
		t.Fatal("the pause was never recorded: the test refused nothing")
	}
	if got.Status != string(Failed) || !strings.Contains(got.Error, "record the pause") || !strings.Contains(got.Error, "did not commit") {
		t.Errorf("run ended %s with error %q, want failed naming the pause that did not commit", got.Status, got.Error)
	}
	if _, err := os.Stat(filepath.Join(ws, "a.txt")); !os.IsNotExist(err) {
		t.Errorf("the call paused before ran after its pause was lost (stat: %v)", err)
	}
}
