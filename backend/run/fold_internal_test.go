package run

import (
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"steward/backend/agent"
	"steward/backend/event"
	"steward/backend/inbox"
	"steward/backend/llm/script"
	"steward/backend/store"
	"steward/backend/tool"
	fstools "steward/backend/tools/fs"
)

type scriptModels struct{ p *script.Provider }

func (m scriptModels) Resolve(context.Context, agent.Agent) (Model, error) {
	return Model{Provider: m.p, Name: "script", Model: "test-model"}, nil
}

// facts is what a fold knows, for comparing two folds.
func facts(f *Fold) map[string]any {
	return map[string]any{
		"agent": f.agent, "breakBefore": f.breakBefore, "status": f.status, "root": f.root, "nodes": f.nodes, "step": f.step,
		"conversation": f.conv, "queued": f.queued, "queuedNodes": f.queuedNodes, "lastLLM": f.lastLLM, "turnNodes": f.turnNodes,
		"llmOpen": f.llmOpen, "final": f.final, "calls": f.calls, "tools": f.tools, "limits": f.limits, "tokens": f.tokens,
		"cost": f.cost, "workMS": f.workMS, "files": f.files,
	}
}

// An active run's fold is the fold of its log, the events others wrote to
// it included: the inbox's approvals and answers (given while the run waits
// on another call of the turn, too), and an event appended while the run is
// paused, which the run folds when it next meets its log.
func TestActiveFoldIsTheFoldOfTheLog(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	st, err := store.Open(filepath.Join(dir, "steward.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	reg := tool.NewRegistry()
	for _, tl := range fstools.Tools() {
		if err := reg.Register(tl); err != nil {
			t.Fatal(err)
		}
	}
	var n atomic.Int64
	newID := func(p string) string { return fmt.Sprintf("%s_%d", p, n.Add(1)) }
	in := inbox.New(st, reg, func() string { return newID("ia") })
	sc, err := script.Parse([]byte(`{"turns": [
		{"tool_calls": [
			{"name": "write_file", "arguments": {"path": "a.txt", "content": "a\n"}},
			{"name": "write_file", "arguments": {"path": "b.txt", "content": "b\n"}}]},
		{"tool_calls": [{"name": "list_dir", "arguments": {}}]},
		{"tool_calls": [{"name": "list_dir", "arguments": {}}]},
		{"text": "done"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	svc := New(Config{Store: st, Approver: in, Tools: reg, Models: scriptModels{script.New(sc, script.Options{})}, NewID: newID, Logf: t.Logf})
	defer func() { _ = svc.Shutdown(context.Background()) }()
	a := agent.Agent{ID: "ag", Name: "tester", Provider: agent.ProviderScript, Tools: []string{"write_file", "list_dir"}, Mode: agent.ModeAsk,
		MaxSteps: 10, BreakBefore: []string{"list_dir"}}
	r, err := svc.Start(context.Background(), StartParams{Agent: a, Instructions: "write", Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	wait := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for !cond() {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", what)
			}
			time.Sleep(2 * time.Millisecond)
		}
	}
	var its []store.Interaction
	wait("two approvals", func() bool {
		its, _ = st.ListInteractions(context.Background(), store.InteractionFilter{RunID: r.ID, Status: "pending"})
		return len(its) == 2
	})
	// The second first: the run waits on the first, and finds the second
	// answered in its fold when it comes to it.
	for _, it := range []store.Interaction{its[1], its[0]} {
		if _, err := in.Answer(context.Background(), it.ID, inbox.Decision{Decision: "approve", Source: "web"}); err != nil {
			t.Fatal(err)
		}
	}
	check := func(breaks int) {
		t.Helper()
		wait("a pause at the breakpoint", func() bool {
			got, _ := st.GetRun(context.Background(), r.ID)
			return got.Status == string(Paused) && got.Steps == breaks+1
		})
		act := svc.lookup(r.ID)
		evs, err := svc.allEvents(context.Background(), r.ID)
		if err != nil {
			t.Fatal(err)
		}
		// The store shows the pause once its events commit; the run's
		// goroutine notes their seqs a moment later, when its wait for the
		// commit returns.
		wait("the run to note its commits", func() bool {
			act.mu.Lock()
			defer act.mu.Unlock()
			return act.folded == evs[len(evs)-1].Seq || act.behind || act.lost != nil
		})
		f := NewFold()
		for _, ev := range evs {
			f.Apply(ev)
		}
		act.mu.Lock()
		defer act.mu.Unlock()
		if diff := cmp.Diff(facts(f), facts(&act.st.Fold), cmp.AllowUnexported(toolState{})); diff != "" {
			t.Errorf("the active run's fold is not the fold of its log (-log +active):\n%s", diff)
		}
		if last := evs[len(evs)-1].Seq; act.folded != last || len(act.own) != 0 || act.behind {
			t.Errorf("folded %d of %d, %d own events unplaced, behind %v", act.folded, last, len(act.own), act.behind)
		}
	}
	check(1)
	// Another writer appends while the run is paused; the run folds it when
	// it meets its log next.
	if _, err := st.Append(context.Background(), event.New(r.ID, event.ReplayDiverged, "", event.ReplayDivergedData{Step: 1, Field: "system"})); err != nil {
		t.Fatal(err)
	}
	if res, err := svc.Command(context.Background(), r.ID, Command{CommandID: "c1", Type: CmdContinue}); err != nil || res.Status != "accepted" {
		t.Fatalf("continue: %+v, %v", res, err)
	}
	check(2)
}
