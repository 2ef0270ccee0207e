package replay_test

import (
	"bytes"
	"context"
	"sync/atomic"
	"testing"
	"time"

	"steward/backend/agent"
	"steward/backend/event"
	"steward/backend/exchange"
	"steward/backend/inbox"
	"steward/backend/recording"
	"steward/backend/replay"
	"steward/backend/run"
	"steward/backend/store"
)

// answerer answers every pending interaction of run id() with d until the
// test ends, as a person at the inbox would.
func (e *env) answerer(t *testing.T, id func() string, d inbox.Decision) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			if runID := id(); runID != "" {
				pending, _ := e.st.ListInteractions(ctx, store.InteractionFilter{RunID: runID, Status: "pending"})
				for _, it := range pending {
					_, _ = e.in.Answer(ctx, it.ID, d) // a second answer is refused
				}
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
}

// askedSource runs the source script in mode ask, a person approving each
// of its writes, and returns it as a recording.
func askedSource(t *testing.T, e *env) (store.Run, *replay.Recorded) {
	t.Helper()
	ws := t.TempDir()
	svc := e.service(t, run.Config{Models: fixedModels{scripted(t, `{"turns": [
		{"tool_calls": [{"name": "write_file", "arguments": {"path": "a.txt", "content": "one\n"}}]},
		{"text": "done"}]}`)}})
	var id atomic.Value // the run's id, once started
	id.Store("")
	e.answerer(t, func() string { return id.Load().(string) }, inbox.Decision{Decision: "approve", Source: "web"})
	a := agent.Agent{ID: "ag_test", Name: "tester", Provider: agent.ProviderScript, Tools: []string{"write_file"}, Mode: agent.ModeAsk, MaxSteps: 10}
	r, err := svc.Start(context.Background(), run.StartParams{Agent: a, Instructions: "write a", Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	id.Store(r.ID)
	src := e.wait(t, svc, r.ID)
	if src.Status != string(run.Completed) {
		t.Fatalf("source ended %s (%s)", src.Status, src.Error)
	}
	rec, err := replay.Load(bundleOf(t, e, src.ID))
	if err != nil {
		t.Fatal(err)
	}
	return src, rec
}

func decisions(t *testing.T, e *env, runID string) []event.ApprovalDecidedData {
	t.Helper()
	var out []event.ApprovalDecidedData
	for _, ev := range e.events(t, runID) {
		if ev.Type == event.ApprovalDecided {
			var d event.ApprovalDecidedData
			if err := ev.Decode(&d); err != nil {
				t.Fatal(err)
			}
			out = append(out, d)
		}
	}
	return out
}

// A recorded approval answers the same call of the recording in the
// replay: nobody is asked.
func TestApproverAnswersAsRecorded(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, rec := askedSource(t, e)
	p := replay.NewProvider(rec, replay.Options{})
	svc := e.service(t, run.Config{Models: replay.Models(rec, p), Tools: replay.NewTools(rec, e.reg, replay.ToolsOptions{Provider: p}),
		Approver: replay.NewApprover(rec, e.in, p, nil)})
	r, err := svc.Start(context.Background(), rec.StartParams(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	if got := e.wait(t, svc, r.ID); got.Status != string(run.Completed) {
		t.Fatalf("replay ended %s (%s)", got.Status, got.Error)
	}
	if ds := decisions(t, e, r.ID); len(ds) != 1 || ds[0].Decision != "approve" || ds[0].Source != "web" {
		t.Errorf("decisions %+v, want the recorded approval", ds)
	}
}

// The same call asked for by the live model (after LiveFrom) is not
// answered by the recording: a person answers it.
func TestApproverLeavesALiveModelsCallToAPerson(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, rec := askedSource(t, e)
	live := scripted(t, `{"turns": [
		{"tool_calls": [{"name": "write_file", "arguments": {"path": "a.txt", "content": "one\n"}}]},
		{"text": "done"}]}`)
	p := replay.NewProvider(rec, replay.Options{LiveFrom: 1, Live: live})
	svc := e.service(t, run.Config{Models: replay.Models(rec, p), Tools: e.reg, Approver: replay.NewApprover(rec, e.in, p, nil)})
	r, err := svc.Start(context.Background(), rec.StartParams(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, _ := e.st.GetRun(context.Background(), r.ID)
		if got.Status == string(run.Waiting) && got.PendingApprovals == 1 {
			break
		}
		if time.Now().After(deadline) || run.Status(got.Status).Terminal() {
			t.Fatalf("the live model's write was not left to a person: run %s, %d pending", got.Status, got.PendingApprovals)
		}
		time.Sleep(5 * time.Millisecond)
	}
	e.answerer(t, func() string { return r.ID }, inbox.Decision{Decision: "deny", Feedback: "not now", Source: "cli"})
	if got := e.wait(t, svc, r.ID); got.Status != string(run.Completed) {
		t.Fatalf("replay ended %s (%s)", got.Status, got.Error)
	}
	if ds := decisions(t, e, r.ID); len(ds) != 1 || ds[0].Decision != "deny" || ds[0].Source != "cli" {
		t.Errorf("decisions %+v, want the person's deny", ds)
	}
}

// bundleOf exports run id and reads it back, as steward export and
// steward replay do.
func bundleOf(t *testing.T, e *env, id string) *recording.Bundle {
	t.Helper()
	ex := exchange.New(exchange.Config{Store: e.st, Blobs: e.blobs, Version: "test", NewID: e.newID})
	var buf bytes.Buffer
	if _, err := ex.Export(context.Background(), id, exchange.FormatSteward, &buf); err != nil {
		t.Fatal(err)
	}
	b, err := recording.Read(bytes.NewReader(buf.Bytes()), int64(buf.Len()), recording.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return b
}
