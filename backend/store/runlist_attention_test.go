package store_test

import (
	"context"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"steward/backend/event"
	"steward/backend/store"
)

// The attention filter keeps the runs waiting on a person: status waiting,
// or an approval still pending, never one answered or of an imported run;
// with statuses, only those of the runs in them; in pages as any filter.
func TestListRunsAttention(t *testing.T) {
	t.Parallel()
	st, runs := openFixture(t)
	ctx := context.Background()
	pending := map[string]bool{}
	for i, r := range runs {
		if r.status != "running" && r.status != "paused" {
			continue
		}
		mustAppend(t, st, event.New(r.id, event.NodeStarted, "n1", event.NodeStartedData{Kind: event.KindTool, Label: "w", Tool: "w"}))
		mustAppend(t, st, event.New(r.id, event.ApprovalRequested, "n1", event.ApprovalRequestedData{InteractionID: "ia_" + r.id, Tool: "w"}))
		if i%2 == 0 { // answered: no longer waiting on anyone
			mustAppend(t, st, event.New(r.id, event.ApprovalDecided, "n1", event.ApprovalDecidedData{InteractionID: "ia_" + r.id, Decision: "approve", Source: "web"}))
		} else {
			pending[r.id] = true
		}
	}
	// An imported run with an approval pending in its recording: a record,
	// not a question to this person.
	rec := recorded("imp")
	rec[len(rec)-1] = event.New("imp", event.RunStatus, "", event.RunStatusData{Status: "paused"})
	if _, err := st.ImportRun(ctx, rec, "orig"); err != nil {
		t.Fatal(err)
	}
	if len(pending) == 0 {
		t.Fatal("the fixture has no pending approval")
	}
	attention := func(f store.RunFilter) []string {
		out := []string{}
		for _, id := range want(runs, f) {
			for _, r := range runs {
				if r.id == id && (r.status == "waiting" || pending[id]) {
					out = append(out, id)
				}
			}
		}
		return out
	}
	for name, f := range map[string]store.RunFilter{
		"alone":          {},
		"with statuses":  {Statuses: []string{"paused", "completed"}},
		"with waiting":   {Statuses: []string{"waiting"}},
		"with agent":     {Agent: "ag_1"},
		"with text":      {Text: "fix"},
		"with 1 char":    {Text: "x"},
		"before, status": {Before: store.RunCursor{CreatedAt: 1_010, ID: "r000"}, Statuses: []string{"paused", "running"}},
	} {
		t.Run(name, func(t *testing.T) {
			w := attention(f)
			f.Attention = true
			got := pages(t, st, f, 2) // paged by 2, as the UI pages by 100
			if diff := gocmp.Diff(w, got); diff != "" {
				t.Errorf("attention, %s (-want +got):\n%s", name, diff)
			}
		})
	}
	// The waiting runs are a walk of the status index; the pending ones are
	// read from interactions' status index, never a scan of the runs.
	plan, err := st.ListRunsPlan(store.RunFilter{Attention: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(plan, "interactions_pending") || strings.Contains(plan, "SCAN r ") || strings.HasSuffix(plan, "SCAN r") {
		t.Errorf("attention's plan scans runs or reads no index of pending interactions:\n%s", plan)
	}
}
