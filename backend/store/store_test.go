package store_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"steward/backend/agent"
	"steward/backend/event"
	"steward/backend/store"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(cleanup{m}) }

// cleanup removes what the benchmarks made for the whole process (the
// run-list database) once every test and benchmark has run.
type cleanup struct{ *testing.M }

func (c cleanup) Run() int {
	defer removeListDatabase()
	return c.M.Run()
}

// recorder is a Publisher that checks every published event is already
// readable from the database: publish after commit.
type recorder struct {
	mu     sync.Mutex
	st     *store.Store
	events []event.Event
	unseen []string
}

func (r *recorder) Publish(evs []event.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, ev := range evs {
		if r.st != nil {
			got, err := r.st.Events(context.Background(), ev.RunID, ev.Seq-1, 1)
			if err != nil || len(got) != 1 || got[0].Seq != ev.Seq {
				r.unseen = append(r.unseen, fmt.Sprintf("%s/%d", ev.RunID, ev.Seq))
			}
		}
		r.events = append(r.events, ev)
	}
}

func open(t *testing.T, pub store.Publisher) (*store.Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "steward.db")
	st, err := store.Open(path, &store.Options{Publisher: pub})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, path
}

func created(run string) event.Event {
	return event.New(run, event.RunCreated, "", event.RunCreatedData{
		Agent: event.AgentRef{ID: "ag_1", Name: "default", Provider: "script", Model: "demo"}, Instructions: "do it " + run,
		Workspace: "/tmp/ws", Mode: "ask", MaxSteps: 10,
	})
}

func mustAppend(t *testing.T, st *store.Store, ev event.Event) event.Event {
	t.Helper()
	got, err := st.Append(context.Background(), ev)
	if err != nil {
		t.Fatalf("append %s: %v", ev.Type, err)
	}
	return got
}

func TestAppendSequencesAndPreconditions(t *testing.T) {
	t.Parallel()
	st, _ := open(t, nil)
	ctx := context.Background()
	if ev := mustAppend(t, st, created("r1")); ev.Seq != 1 || ev.TS == 0 {
		t.Fatalf("first event: seq %d ts %d", ev.Seq, ev.TS)
	}
	if ev := mustAppend(t, st, event.New("r1", event.RunStatus, "", event.RunStatusData{Status: "running"})); ev.Seq != 2 {
		t.Fatalf("second event seq %d, want 2", ev.Seq)
	}
	if _, err := st.Append(ctx, created("r1")); !errors.Is(err, store.ErrConflict) {
		t.Errorf("second run.created: %v, want ErrConflict", err)
	}
	if _, err := st.Append(ctx, event.New("nope", event.RunStatus, "", event.RunStatusData{Status: "running"})); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("event of unknown run: %v, want ErrNotFound", err)
	}
	bad := event.Event{RunID: "r1", Type: event.NodeStarted, NodeID: "n1", Data: []byte(`{"kind": 5}`)}
	if _, err := st.Append(ctx, bad); err == nil {
		t.Errorf("bad payload accepted")
	}
	// Failed items leave no gap.
	if ev := mustAppend(t, st, event.New("r1", event.RunStatus, "", event.RunStatusData{Status: "completed"})); ev.Seq != 3 {
		t.Errorf("seq after refused appends = %d, want 3", ev.Seq)
	}
	r, err := st.GetRun(ctx, "r1")
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != "completed" || r.LastSeq != 3 || r.Instructions != "do it r1" {
		t.Errorf("run = %+v", r)
	}
	if _, err := st.GetRun(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("GetRun(nope) = %v", err)
	}
}

func TestConcurrentAppendsAreDenseAndPublishedAfterCommit(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	st, _ := open(t, rec)
	rec.st = st
	const runs, writers, per = 4, 8, 50
	for i := range runs {
		mustAppend(t, st, created(fmt.Sprintf("r%d", i)))
	}
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range per {
				run := fmt.Sprintf("r%d", (w+i)%runs)
				if _, err := st.Append(context.Background(), event.New(run, event.LLMDelta, "n1", event.LLMDeltaData{Text: "x"})); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	total := 0
	for i := range runs {
		evs, err := st.Events(context.Background(), fmt.Sprintf("r%d", i), 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		for j, ev := range evs {
			if ev.Seq != int64(j+1) {
				t.Fatalf("run r%d: event %d has seq %d", i, j, ev.Seq)
			}
		}
		total += len(evs)
	}
	if want := runs + writers*per; total != want {
		t.Errorf("stored %d events, want %d", total, want)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.events) != total {
		t.Errorf("published %d events, stored %d", len(rec.events), total)
	}
	if len(rec.unseen) > 0 {
		t.Errorf("published before commit: %v", rec.unseen)
	}
	last := map[string]int64{}
	for _, ev := range rec.events {
		if ev.Seq != last[ev.RunID]+1 {
			t.Fatalf("published out of order: %s seq %d after %d", ev.RunID, ev.Seq, last[ev.RunID])
		}
		last[ev.RunID] = ev.Seq
	}
}

func TestSubmitThenWaitKeepsOrder(t *testing.T) {
	t.Parallel()
	st, _ := open(t, nil)
	mustAppend(t, st, created("r"))
	var ps []*store.Pending
	for i := range 100 {
		ps = append(ps, st.Submit(event.New("r", event.LLMDelta, "n", event.LLMDeltaData{Text: fmt.Sprint(i)})))
	}
	for i, p := range ps {
		ev, err := p.Wait()
		if err != nil || ev.Seq != int64(i+2) {
			t.Fatalf("pending %d: seq %d err %v", i, ev.Seq, err)
		}
	}
}

func TestProjections(t *testing.T) {
	t.Parallel()
	st, _ := open(t, nil)
	ctx := context.Background()
	mustAppend(t, st, created("r"))
	mustAppend(t, st, event.New("r", event.NodeStarted, "n1", event.NodeStartedData{Kind: event.KindAgent, Label: "default"}))
	mustAppend(t, st, event.New("r", event.NodeStarted, "n2", event.NodeStartedData{Kind: event.KindUser, Parent: "n1", Label: "instructions"}))
	mustAppend(t, st, event.New("r", event.NodeStarted, "n3", event.NodeStartedData{Kind: event.KindLLM, Parent: "n1", After: []string{"n2"}, Label: "model call 1"}))
	mustAppend(t, st, event.New("r", event.NodeFinished, "n3", event.NodeFinishedData{Status: event.NodeSucceeded, Usage: &event.Usage{InputTokens: 10, OutputTokens: 5, CachedTokens: 2}}))
	mustAppend(t, st, event.New("r", event.NodeStarted, "n4", event.NodeStartedData{Kind: event.KindTool, Parent: "n3", After: []string{"n3"}, Label: "write_file", Tool: "write_file"}))
	mustAppend(t, st, event.New("r", event.ApprovalRequested, "n4", event.ApprovalRequestedData{InteractionID: "ia1", Tool: "write_file", Arguments: []byte(`{"path":"a"}`), Risk: "write", Reason: "mode ask"}))

	r, _ := st.GetRun(ctx, "r")
	if r.Steps != 1 || r.InputTokens != 10 || r.OutputTokens != 5 || r.CachedTokens != 2 || r.PendingApprovals != 1 {
		t.Errorf("run counters = %+v", r)
	}
	nodes, edges, err := st.Graph(ctx, "r")
	if err != nil {
		t.Fatal(err)
	}
	var ids, statuses []string
	for _, n := range nodes {
		ids = append(ids, n.ID)
		statuses = append(statuses, n.Status)
	}
	if diff := cmp.Diff([]string{"n1", "n2", "n3", "n4"}, ids); diff != "" {
		t.Errorf("node order (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"running", "succeeded", "succeeded", "waiting"}, statuses); diff != "" {
		t.Errorf("node statuses (-want +got):\n%s", diff)
	}
	wantEdges := []store.Edge{{"n1", "n2", "parent"}, {"n1", "n3", "parent"}, {"n2", "n3", "after"}, {"n3", "n4", "after"}, {"n3", "n4", "parent"}}
	if diff := cmp.Diff(wantEdges, edges); diff != "" {
		t.Errorf("edges (-want +got):\n%s", diff)
	}
	pending, err := st.ListInteractions(ctx, store.InteractionFilter{Status: "pending"})
	if err != nil || len(pending) != 1 || pending[0].Tool != "write_file" || pending[0].Arguments != `{"path":"a"}` {
		t.Fatalf("pending = %+v, %v", pending, err)
	}

	// First answer wins; the loser is not stored.
	decide := func(dec event.Decision) error {
		_, err := st.Append(ctx, event.New("r", event.ApprovalDecided, "n4", event.ApprovalDecidedData{InteractionID: "ia1", Decision: dec, Source: "web"}))
		return err
	}
	errs := make(chan error, 2)
	go func() { errs <- decide("approve") }()
	go func() { errs <- decide("deny") }()
	e1, e2 := <-errs, <-errs
	if (e1 == nil) == (e2 == nil) || !(errors.Is(e1, store.ErrConflict) || errors.Is(e2, store.ErrConflict)) {
		t.Fatalf("two answers: %v and %v, want exactly one conflict", e1, e2)
	}
	evs, _ := st.Events(ctx, "r", 0, 0)
	decided := 0
	for _, ev := range evs {
		if ev.Type == event.ApprovalDecided {
			decided++
		}
	}
	if decided != 1 {
		t.Errorf("%d approval.decided events stored, want 1", decided)
	}
	it, _ := st.GetInteraction(ctx, "ia1")
	if it.Status != "answered" || it.AnsweredAt == nil {
		t.Errorf("interaction = %+v", it)
	}
	if _, err := st.GetInteraction(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("unknown interaction: %v", err)
	}
}

func TestTerminalStatusCancelsOpenInteractions(t *testing.T) {
	t.Parallel()
	st, _ := open(t, nil)
	ctx := context.Background()
	mustAppend(t, st, created("r"))
	mustAppend(t, st, event.New("r", event.NodeStarted, "n1", event.NodeStartedData{Kind: event.KindTool, Label: "w"}))
	mustAppend(t, st, event.New("r", event.ApprovalRequested, "n1", event.ApprovalRequestedData{InteractionID: "ia", Tool: "w"}))
	mustAppend(t, st, event.New("r", event.RunStatus, "", event.RunStatusData{Status: "cancelled"}))
	it, _ := st.GetInteraction(ctx, "ia")
	if it.Status != "cancelled" {
		t.Errorf("interaction status %s, want cancelled", it.Status)
	}
}

func TestReopenContinuesSequence(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "s.db")
	st, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	mustAppend(t, st, created("r"))
	mustAppend(t, st, event.New("r", event.RunStatus, "", event.RunStatusData{Status: "running"}))
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Append(context.Background(), created("x")); !errors.Is(err, store.ErrClosed) {
		t.Errorf("append after close: %v", err)
	}
	st2, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	if ev := mustAppend(t, st2, event.New("r", event.RunStatus, "", event.RunStatusData{Status: "completed"})); ev.Seq != 3 {
		t.Errorf("seq after reopen = %d, want 3", ev.Seq)
	}
}

func TestListRunsFilters(t *testing.T) {
	t.Parallel()
	st, _ := open(t, nil)
	ctx := context.Background()
	for _, id := range []string{"a", "b", "c"} {
		mustAppend(t, st, created(id))
	}
	mustAppend(t, st, event.New("b", event.RunStatus, "", event.RunStatusData{Status: "completed"}))
	all, _ := st.ListRuns(ctx, store.RunFilter{})
	if len(all) != 3 {
		t.Fatalf("%d runs", len(all))
	}
	done, _ := st.ListRuns(ctx, store.RunFilter{Statuses: []string{"completed"}})
	if len(done) != 1 || done[0].ID != "b" {
		t.Errorf("completed = %+v", done)
	}
	text, _ := st.ListRuns(ctx, store.RunFilter{Text: "DO IT C"})
	if len(text) != 1 || text[0].ID != "c" {
		t.Errorf("text filter = %+v", text)
	}
	byAgent, _ := st.ListRuns(ctx, store.RunFilter{Agent: "default", Limit: 2})
	if len(byAgent) != 2 {
		t.Errorf("agent filter with limit = %d runs", len(byAgent))
	}
}

func TestAgentsAndCommands(t *testing.T) {
	t.Parallel()
	st, _ := open(t, nil)
	ctx := context.Background()
	a := agent.Default()
	a.ID = "ag_1"
	if err := st.CreateAgent(ctx, a); err != nil {
		t.Fatal(err)
	}
	b := a
	b.ID = "ag_2"
	if err := st.CreateAgent(ctx, b); !errors.Is(err, store.ErrConflict) {
		t.Errorf("duplicate name: %v", err)
	}
	got, err := st.GetAgent(ctx, "default")
	if err != nil || got.ID != "ag_1" {
		t.Fatalf("by name: %+v %v", got, err)
	}
	if diff := cmp.Diff(a, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	if err := st.DeleteAgent(ctx, "ag_9"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("delete unknown: %v", err)
	}
	first, dup, err := st.SaveCommand(ctx, "r", "c1", "cancel", []byte(`{"status":"accepted"}`))
	if err != nil || dup || string(first) != `{"status":"accepted"}` {
		t.Fatalf("first save: %s %v %v", first, dup, err)
	}
	first, dup, err = st.SaveCommand(ctx, "r", "c1", "cancel", []byte(`{"status":"rejected"}`))
	if err != nil || !dup || string(first) != `{"status":"accepted"}` {
		t.Errorf("repeat save: %s %v %v", first, dup, err)
	}
}

// TestEventDataRoundTrip checks that the log gives back every byte of an
// event's payload and its ids, whatever characters they hold.
func TestEventDataRoundTrip(t *testing.T) {
	t.Parallel()
	st, _ := open(t, nil)
	ctx := context.Background()
	run := "r \"quoted\" \\ ü"
	mustAppend(t, st, created(run))
	payloads := []string{
		`{"text":"plain"}`,
		`{"text":"\u003cb\u003e \"q\" \\ \n\t é 日本 \ud83d\ude00"}`,
		`{"n":1e3,"f":1.50,"big":12345678901234567890,"neg":-0,"arr":[1,{"a":null}],"t":true}`,
		`{"nested":{"deep":{"deeper":["x","y"]}},"empty":{},"list":[]}`,
	}
	for _, p := range payloads {
		// Submitted without waiting, so they commit in one group.
		st.Submit(event.Event{RunID: run, Type: event.LLMDelta, NodeID: "n\"1", Data: []byte(p)})
	}
	last := mustAppend(t, st, event.New(run, event.RunStatus, "", event.RunStatusData{Status: "running"}))
	evs, err := st.Events(ctx, run, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != len(payloads)+1 || evs[len(evs)-1].Seq != last.Seq {
		t.Fatalf("read %d events", len(evs))
	}
	for i, p := range payloads {
		if got := string(evs[i].Data); got != p {
			t.Errorf("payload %d:\n got %s\nwant %s", i, got, p)
		}
		if evs[i].RunID != run || evs[i].NodeID != "n\"1" || evs[i].Type != event.LLMDelta {
			t.Errorf("event %d ids: %+v", i, evs[i])
		}
	}
}

func TestFileChangesProjection(t *testing.T) {
	t.Parallel()
	st, _ := open(t, nil)
	ctx := context.Background()
	mustAppend(t, st, event.New("run_f", event.RunCreated, "", event.RunCreatedData{Agent: event.AgentRef{Name: "a"}, Workspace: "/ws", Mode: "ask", MaxSteps: 3}))
	mustAppend(t, st, event.New("run_f", event.FileChanged, "n4", event.FileChangedData{Path: "a.txt", After: "aa", Size: 3, Source: event.FileByTool, Op: "n4"}))
	mustAppend(t, st, event.New("run_f", event.FileChanged, "", event.FileChangedData{Path: "b.txt", After: "bb", BeforeUnknown: true, Size: 5, Source: event.FileByExternal, Op: "x1"}))
	mustAppend(t, st, event.New("run_f", event.FileChanged, "", event.FileChangedData{Path: "a.txt", Before: "aa", Source: event.FileByUndo, Op: "u1", Undoes: "n4"}))
	got, err := st.FileChanges(ctx, "run_f")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].Seq != 2 || got[0].NodeID != "n4" || got[0].After != "aa" || got[0].Before != "" ||
		!got[1].BeforeUnknown || got[1].Source != "external" || got[2].Undoes != "n4" || got[2].After != "" || got[2].CreatedAt == 0 {
		t.Fatalf("journal %+v", got)
	}
	if none, err := st.FileChanges(ctx, "run_none"); err != nil || len(none) != 0 {
		t.Fatalf("no run: %v, %v", none, err)
	}
}
