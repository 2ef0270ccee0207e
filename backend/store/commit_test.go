package store_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"steward/backend/event"
	"steward/backend/store"
)

// stepLog is a run of three model calls, the first two with a tool call,
// every call with its usage, as the engine writes it.
func stepLog(run string) []event.Event {
	evs := []event.Event{
		created(run),
		event.New(run, event.RunStatus, "", event.RunStatusData{Status: "running"}),
		event.New(run, event.NodeStarted, "n1", event.NodeStartedData{Kind: event.KindAgent, Label: "default"}),
		event.New(run, event.NodeStarted, "n2", event.NodeStartedData{Kind: event.KindUser, Parent: "n1", Label: "instructions"}),
		event.New(run, event.NodeFinished, "n2", event.NodeFinishedData{Status: event.NodeSucceeded}),
	}
	after := "n2"
	// The costs sum differently in another order: (0.1+0.2)+0.3 is not
	// 0.1+(0.2+0.3) in floating point.
	for i, cost := range []float64{0.1, 0.2, 0.3} {
		llm, tl := fmt.Sprintf("n%d", 3+2*i), fmt.Sprintf("n%d", 4+2*i)
		evs = append(evs,
			event.New(run, event.NodeStarted, llm, event.NodeStartedData{Kind: event.KindLLM, Parent: "n1", After: []string{after}, Label: fmt.Sprintf("model call %d", i+1)}),
			event.New(run, event.LLMDelta, llm, event.LLMDeltaData{Text: "thinking"}),
			event.New(run, event.NodeFinished, llm, event.NodeFinishedData{Status: event.NodeSucceeded, DurationMS: 12,
				Usage: &event.Usage{InputTokens: int64(100 * (i + 1)), OutputTokens: 7, CachedTokens: 3}, CostUSD: cost}),
		)
		after = llm
		if i == 2 {
			break
		}
		evs = append(evs,
			event.New(run, event.NodeStarted, tl, event.NodeStartedData{Kind: event.KindTool, Parent: llm, After: []string{llm}, Label: "read_file", Tool: "read_file"}),
			event.New(run, event.PolicyDecided, tl, event.PolicyDecidedData{Effect: "allow", Reason: "mode auto"}),
			event.New(run, event.ToolExecuting, tl, event.ToolExecutingData{}),
			event.New(run, event.NodeFinished, tl, event.NodeFinishedData{Status: event.NodeSucceeded, Output: "ok", DurationMS: 1}),
		)
		after = tl
	}
	return append(evs, event.New(run, event.RunStatus, "", event.RunStatusData{Status: "completed"}))
}

// A group commit writes each run's row once for the whole group; what the
// projections hold is the same as when every event commits alone: the
// counters, the cost summed call by call in the order of the log, the graph
// and the log itself.
func TestGroupProjectsAsEventsOneByOne(t *testing.T) {
	t.Parallel()
	clock := func() time.Time { return time.UnixMilli(1_700_000_000_000) }
	openAt := func() *store.Store {
		st, err := store.Open(filepath.Join(t.TempDir(), "steward.db"), &store.Options{Now: clock})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	ctx := context.Background()
	single, grouped := openAt(), openAt()
	for _, ev := range stepLog("r") {
		mustAppend(t, single, ev)
	}
	// The first model call commits alone, the rest in one group: the
	// group then adds its two calls' costs to a cost already stored.
	log := stepLog("r")
	for _, part := range [][]event.Event{log[:8], log[8:]} {
		if _, err := grouped.SubmitAll(part).Wait(); err != nil {
			t.Fatal(err)
		}
	}
	want, err := single.GetRun(ctx, "r")
	if err != nil {
		t.Fatal(err)
	}
	got, err := grouped.GetRun(ctx, "r")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("run row, grouped (-one by one +grouped):\n%s", diff)
	}
	a, b, c := 0.1, 0.2, 0.3
	if cost := (a + b) + c; want.CostUSD != cost || want.Steps != 3 || want.InputTokens != 600 || want.LastSeq != int64(len(stepLog("r"))) {
		t.Errorf("run row %+v: want cost %v (summed in log order), 3 steps, 600 input tokens, last seq %d", want, cost, len(stepLog("r")))
	}
	for _, st := range []*store.Store{single, grouped} {
		nodes, edges, err := st.Graph(ctx, "r")
		if err != nil {
			t.Fatal(err)
		}
		wantNodes, wantEdges, _ := single.Graph(ctx, "r")
		if diff := cmp.Diff(wantNodes, nodes); diff != "" {
			t.Errorf("nodes (-one by one +grouped):\n%s", diff)
		}
		if diff := cmp.Diff(wantEdges, edges); diff != "" {
			t.Errorf("edges (-one by one +grouped):\n%s", diff)
		}
		evs, err := st.Events(ctx, "r", 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		wantEvs, _ := single.Events(ctx, "r", 0, 0)
		if diff := cmp.Diff(wantEvs, evs); diff != "" {
			t.Errorf("log (-one by one +grouped):\n%s", diff)
		}
	}
}

// Data that is no JSON is refused with an error that says so, and only that
// event: the others of the same group commit (it used to fail the whole
// group, other writers' events with it).
func TestDataThatIsNoJSONIsRefusedAlone(t *testing.T) {
	t.Parallel()
	st, _ := open(t, nil)
	mustAppend(t, st, created("r"))
	mustAppend(t, st, created("other"))
	good := func(run, text string) event.Event {
		return event.New(run, event.LLMDelta, "n3", event.LLMDeltaData{Text: text})
	}
	tests := []struct {
		name string
		data json.RawMessage
	}{
		{"truncated", json.RawMessage(`{"text":`)},
		{"empty", nil},
		{"two values", json.RawMessage(`{} {}`)},
		{"JSON5", json.RawMessage(`{text: 'a'}`)},
	}
	for _, tt := range tests {
		bad := event.Event{RunID: "r", Type: event.LLMDelta, NodeID: "n3", Data: tt.data}
		p1 := st.SubmitAll([]event.Event{good("r", "before "+tt.name), bad, good("r", "after "+tt.name)})
		p2 := st.Submit(good("other", tt.name)) // another writer, maybe the same group
		_, err := p1.Wait()
		if err == nil || !strings.Contains(err.Error(), "llm.delta: data is not JSON") {
			t.Errorf("%s: Wait = %v, want the llm.delta refused as not JSON", tt.name, err)
		}
		if _, err := p2.Wait(); err != nil {
			t.Errorf("%s: the other run's append failed: %v", tt.name, err)
		}
	}
	evs, err := st.Events(context.Background(), "r", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for i, ev := range evs[1:] {
		var d event.LLMDeltaData
		if err := ev.Decode(&d); err != nil || ev.Seq != int64(i+2) {
			t.Fatalf("event %d: seq %d, %v", i, ev.Seq, err)
		}
		texts = append(texts, d.Text)
	}
	want := []string{"before truncated", "after truncated", "before empty", "after empty", "before two values", "after two values", "before JSON5", "after JSON5"}
	if diff := cmp.Diff(want, texts); diff != "" {
		t.Errorf("stored (-want +got):\n%s", diff)
	}
}

// The log holds an event's data compact, as it always did.
func TestDataIsStoredCompact(t *testing.T) {
	t.Parallel()
	st, _ := open(t, nil)
	mustAppend(t, st, created("r"))
	ev := event.Event{RunID: "r", Type: event.LLMDelta, NodeID: "n3", Data: json.RawMessage("{ \"text\" : \"a \\u003c b\",\n \"n\": [1, 2.50] }")}
	stored := mustAppend(t, st, ev)
	evs, err := st.Events(context.Background(), "r", 1, 1)
	if err != nil || len(evs) != 1 {
		t.Fatalf("events: %v %v", evs, err)
	}
	const want = `{"text":"a \u003c b","n":[1,2.50]}`
	if string(evs[0].Data) != want || string(stored.Data) != want {
		t.Errorf("stored %s, returned %s; want %s", evs[0].Data, stored.Data, want)
	}
}

// Migration 0012 drops the parent edges stored before it: the graph shows
// each once, read from the nodes.
func TestMigrationDropsStoredParentEdges(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "steward.db")
	st, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range stepLog("r")[:8] {
		mustAppend(t, st, ev)
	}
	_, want, err := st.Graph(context.Background(), "r")
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	// The database as schema 11 left it: a row for every parent edge.
	db, err := sql.Open("sqlite3", store.WriterDSN(path))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range append(undo16, []string{
		`INSERT INTO edges(run_id, src, dst, kind) SELECT run_id, parent, id, 'parent' FROM nodes WHERE parent != ''`,
		`ALTER TABLE interactions DROP COLUMN preview`, // added by 14
		`ALTER TABLE interactions DROP COLUMN schema`,  // added by 15
		`DELETE FROM schema_migrations WHERE version >= 12`,
	}...) {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	st, err = store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	_, got, err := st.Graph(context.Background(), "r")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("edges after migration (-before +after):\n%s", diff)
	}
}

// An import refused inside a group takes the group back to where it was for
// that run: a run created by another writer in the same group keeps its
// row (its last seq) and its log goes on.
func TestRefusedImportLeavesTheGroupsOtherWritesOfItsRun(t *testing.T) {
	t.Parallel()
	st, _ := open(t, nil)
	ctx := context.Background()
	mustAppend(t, st, created("busy"))
	for i := range 20 {
		// Keep the writer busy so that the next three go in one group.
		busy := make([]event.Event, 2000)
		for j := range busy {
			busy[j] = event.New("busy", event.LLMDelta, "n", event.LLMDeltaData{Text: "busy"})
		}
		p0 := st.SubmitAll(busy)
		run := fmt.Sprintf("r%d", i)
		p1 := st.SubmitAll([]event.Event{created(run), event.New(run, event.RunStatus, "", event.RunStatusData{Status: "running"})})
		imported := make(chan error, 1)
		go func() { _, err := st.ImportRun(ctx, recorded(run), "elsewhere"); imported <- err }()
		if _, err := p0.Wait(); err != nil {
			t.Fatal(err)
		}
		if _, err := p1.Wait(); err != nil {
			t.Fatal(err)
		}
		if err := <-imported; !errors.Is(err, store.ErrConflict) {
			t.Fatalf("import of an existing run: %v, want ErrConflict", err)
		}
		if r, err := st.GetRun(ctx, run); err != nil || r.LastSeq != 2 || r.Status != "running" || r.ImportedFrom != "" {
			t.Fatalf("run %s after the refused import = %+v, %v; want last seq 2, running, not imported", run, r, err)
		}
		if ev := mustAppend(t, st, event.New(run, event.LLMDelta, "n", event.LLMDeltaData{Text: "on"})); ev.Seq != 3 {
			t.Fatalf("next event of %s has seq %d, want 3", run, ev.Seq)
		}
	}
}
