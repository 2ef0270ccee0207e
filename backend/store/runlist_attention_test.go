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
			// Paged by 2, as the UI pages by 100.
			var got []string
			f.Attention, f.Limit = true, 2
			for range 100 {
				page, err := st.ListRuns(ctx, f)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, ids(page)...)
				if len(page) < f.Limit {
					break
				}
				last := page[len(page)-1]
				f.Before = store.RunCursor{CreatedAt: last.CreatedAt, ID: last.ID}
			}
			if got == nil {
				got = []string{}
			}
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

// Text of one or two characters is found wherever it is: at the start of a
// trigram, in a text's last two characters, as the whole of a text, in any
// ASCII case, LIKE's own % _ \ as themselves; what is in no run finds none.
func TestListRunsShortText(t *testing.T) {
	t.Parallel()
	st, runs := openFixture(t)
	ctx := context.Background()
	queries := map[string]bool{"%": true, "_": true, `\`: true, "%%": true, "q": true, "zq": true, "ZQ": true, "#": true, "jj": true}
	for _, r := range runs {
		rs := []rune(r.instructions)
		for i := range rs {
			for n := 1; n <= 2 && i+n <= len(rs); n++ {
				q := string(rs[i : i+n])
				queries[q], queries[strings.ToUpper(q)] = true, true
			}
		}
	}
	for q := range queries {
		for _, f := range []store.RunFilter{{Text: q, Limit: 1000}, {Text: q, Statuses: []string{"completed", "waiting"}, Limit: 1000}} {
			got, err := st.ListRuns(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			w := want(runs, f)
			if w == nil {
				w = []string{}
			}
			if diff := gocmp.Diff(w, ids(got)); diff != "" {
				t.Errorf("ListRuns(%+v) (-want +got):\n%s", f, diff)
			}
		}
	}
	// The 2-char search's plan reads the trigram and tail indexes, never
	// every run.
	plan, err := st.ListRunsPlan(store.RunFilter{Text: "lc"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(plan, "runs_tail2") || strings.Contains(plan, "SCAN r ") || strings.HasSuffix(plan, "SCAN r") || strings.Contains(plan, "SCAN runs\n") {
		t.Errorf("short text's plan scans runs or reads no tail index:\n%s", plan)
	}
}
