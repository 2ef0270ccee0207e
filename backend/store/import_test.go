package store_test

import (
	"context"
	"errors"
	"testing"

	"steward/backend/event"
	"steward/backend/store"
)

// recorded is the log of a run that waited on an approval (still open when
// it was recorded), as a recording holds it.
func recorded(run string) []event.Event {
	return []event.Event{
		created(run),
		event.New(run, event.NodeStarted, "n1", event.NodeStartedData{Kind: event.KindAgent, Label: "default"}),
		event.New(run, event.NodeStarted, "n2", event.NodeStartedData{Kind: event.KindTool, Parent: "n1", Label: "write_file", Tool: "write_file"}),
		event.New(run, event.ApprovalRequested, "n2", event.ApprovalRequestedData{InteractionID: "ia_1", Tool: "write_file"}),
		event.New(run, event.RunStatus, "", event.RunStatusData{Status: "waiting"}),
	}
}

func TestImportRun(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	st, _ := open(t, rec)
	rec.st = st
	ctx := context.Background()
	// The recording was made here: its interaction id is already taken.
	for _, ev := range recorded("run_orig") {
		mustAppend(t, st, ev)
	}

	evs := recorded("run_imp")
	for i := range evs {
		evs[i].TS = int64(1000 + i)
	}
	got, err := st.ImportRun(ctx, evs, "run_orig")
	if err != nil {
		t.Fatal(err)
	}
	for i, ev := range got {
		if ev.Seq != int64(i+1) || ev.TS != int64(1000+i) || ev.RunID != "run_imp" {
			t.Errorf("event %d stored as %+v", i, ev)
		}
	}
	r, err := st.GetRun(ctx, "run_imp")
	if err != nil || r.ImportedFrom != "run_orig" || r.Status != "waiting" || r.PendingApprovals != 0 || r.LastSeq != 5 {
		t.Fatalf("imported run = %+v, %v", r, err)
	}
	if orig, _ := st.GetRun(ctx, "run_orig"); orig.ImportedFrom != "" || orig.PendingApprovals != 1 {
		t.Errorf("the original run = %+v", orig)
	}
	// Its approval is history: nothing waits in the inbox for it.
	open, err := st.ListInteractions(ctx, store.InteractionFilter{RunID: "run_imp"})
	if err != nil || len(open) != 0 {
		t.Errorf("interactions of the imported run = %+v, %v", open, err)
	}
	if len(rec.unseen) != 0 || len(rec.events) != 10 {
		t.Errorf("published %d events, %v not readable when published", len(rec.events), rec.unseen)
	}

	// All or nothing: a log that breaks half way writes nothing.
	bad := recorded("run_bad")
	bad = append(bad[:3], append([]event.Event{created("run_bad")}, bad[3:]...)...)
	if _, err := st.ImportRun(ctx, bad, "run_x"); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("import of a broken log = %v, want ErrConflict", err)
	}
	if _, err := st.GetRun(ctx, "run_bad"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the broken import left run_bad: %v", err)
	}
	if evs, _ := st.Events(ctx, "run_bad", 0, 100); len(evs) != 0 {
		t.Errorf("the broken import left %d events", len(evs))
	}
	// An id already taken, a log of two runs, a log without run.created.
	if _, err := st.ImportRun(ctx, recorded("run_imp"), "run_orig"); !errors.Is(err, store.ErrConflict) {
		t.Errorf("import under a taken id = %v", err)
	}
	mixed := append(recorded("run_a"), created("run_b"))
	if _, err := st.ImportRun(ctx, mixed, "x"); !errors.Is(err, store.ErrConflict) {
		t.Errorf("import of two runs = %v", err)
	}
	if _, err := st.ImportRun(ctx, recorded("run_c")[1:], "x"); !errors.Is(err, store.ErrConflict) {
		t.Errorf("import without run.created = %v", err)
	}
	// Appends of other runs go on around a failed import.
	mustAppend(t, st, event.New("run_orig", event.RunStatus, "", event.RunStatusData{Status: "running"}))
}
