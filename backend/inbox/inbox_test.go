package inbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"steward/backend/event"
	"steward/backend/store"
	"steward/backend/tool"
	fstools "steward/backend/tools/fs"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// openStore opens the database at path with the production constructor.
func openStore(t *testing.T, path string) *store.Store {
	t.Helper()
	st, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := st.Close(); err != nil {
			t.Errorf("close store: %v", err)
		}
	})
	return st
}

// setup returns an inbox over a fresh database holding one run, and the
// database's path.
func setup(t *testing.T) (*Inbox, *store.Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "steward.db")
	st := openStore(t, path)
	if _, err := st.Append(context.Background(), event.New("run_1", event.RunCreated, "", event.RunCreatedData{
		Agent: event.AgentRef{ID: "ag_1", Name: "default", Provider: "script", Model: "m"}, Instructions: "write",
		Workspace: t.TempDir(), Mode: "ask", MaxSteps: 10,
	})); err != nil {
		t.Fatal(err)
	}
	return newInbox(st), st, path
}

func newInbox(st Store) *Inbox {
	var n atomic.Int64
	reg := tool.NewRegistry()
	for _, tl := range fstools.Tools() {
		if err := reg.Register(tl); err != nil {
			panic(err)
		}
	}
	return New(st, reg, func() string { return fmt.Sprintf("ia_%d", n.Add(1)) })
}

func open(t *testing.T, in *Inbox) string {
	t.Helper()
	id, err := in.Open(context.Background(), Request{RunID: "run_1", NodeID: "n4", Tool: "write_file",
		Arguments: json.RawMessage(`{"path":"a.txt","content":"x"}`), Risk: "write", Reason: "mode ask: write tool write_file needs approval"})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return id
}

type waitResult struct {
	d   Decision
	err error
}

// wait runs in.Wait in a goroutine; the result arrives on the channel.
func wait(ctx context.Context, in *Inbox, id string) <-chan waitResult {
	c := make(chan waitResult, 1)
	go func() {
		d, err := in.Wait(ctx, id)
		c <- waitResult{d, err}
	}()
	return c
}

func receive(t *testing.T, c <-chan waitResult, within time.Duration) waitResult {
	t.Helper()
	select {
	case r := <-c:
		return r
	case <-time.After(within):
		t.Fatalf("Wait did not return within %v", within)
		return waitResult{}
	}
}

func TestOpen(t *testing.T) {
	t.Parallel()
	in, st, _ := setup(t)
	id := open(t, in)
	it, err := st.GetInteraction(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	want := store.Interaction{ID: id, RunID: "run_1", NodeID: "n4", Kind: "approval", Status: "pending", Tool: "write_file",
		Arguments: `{"path":"a.txt","content":"x"}`, Risk: "write", Reason: "mode ask: write tool write_file needs approval", CreatedAt: it.CreatedAt}
	if diff := cmp.Diff(want, it); diff != "" {
		t.Errorf("interaction (-want +got):\n%s", diff)
	}

	// A run that does not exist gets no approval, and no waiter is kept.
	if _, err := in.Open(context.Background(), Request{RunID: "run_nope", NodeID: "n1", Tool: "write_file"}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Open for an unknown run: %v", err)
	}
	in.mu.Lock()
	n := len(in.waiters)
	in.mu.Unlock()
	if n != 1 {
		t.Errorf("%d waiters, want 1 (the approval opened above)", n)
	}
}

func TestWaitWokenByAnswerHere(t *testing.T) {
	t.Parallel()
	in, st, _ := setup(t)
	in.poll = time.Hour // only the answer given here can wake the waiter
	id := open(t, in)
	c := wait(context.Background(), in, id)
	got, err := in.Answer(context.Background(), id, Decision{Decision: "deny", Feedback: "not that file", Source: "web"})
	if err != nil {
		t.Fatalf("Answer: %v", err)
	}
	if got.Status != "answered" || got.Decision != "deny" || got.Feedback != "not that file" || got.Source != "web" || got.AnsweredAt == nil {
		t.Errorf("Answer returned %+v", got)
	}
	r := receive(t, c, 2*time.Second)
	if r.err != nil || !cmp.Equal(r.d, Decision{Decision: "deny", Feedback: "not that file", Source: "web"}) {
		t.Errorf("Wait = %+v, %v", r.d, r.err)
	}
	// The decision is an event of the run: the audit log.
	evs, err := st.Events(context.Background(), "run_1", 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	last := evs[len(evs)-1]
	var d event.ApprovalDecidedData
	if err := last.Decode(&d); err != nil || last.Type != event.ApprovalDecided || last.NodeID != "n4" {
		t.Fatalf("last event = %+v", last)
	}
	if want := (event.ApprovalDecidedData{InteractionID: id, Decision: "deny", Feedback: "not that file", Source: "web"}); !cmp.Equal(d, want) {
		t.Errorf("approval.decided = %+v, want %+v", d, want)
	}
	assertNoWaiters(t, in)
}

func TestWaitAfterAnswer(t *testing.T) {
	t.Parallel()
	in, _, _ := setup(t)
	in.poll = time.Hour
	id := open(t, in)
	// Answered before anybody waits: the answer is kept for the waiter.
	if _, err := in.Answer(context.Background(), id, Decision{Decision: "approve"}); err != nil {
		t.Fatal(err)
	}
	r := receive(t, wait(context.Background(), in, id), 2*time.Second)
	if r.err != nil || !cmp.Equal(r.d, Decision{Decision: "approve", Source: "api"}) {
		t.Errorf("Wait = %+v, %v", r.d, r.err)
	}
}

func TestWaitSeesAnswerFromAnotherInbox(t *testing.T) {
	t.Parallel()
	in, _, path := setup(t)
	in.poll = 5 * time.Millisecond
	id := open(t, in)
	c := wait(context.Background(), in, id)

	// A second process: its own store on the same file, its own inbox.
	other := newInbox(openStore(t, path))
	if _, err := other.Answer(context.Background(), id, Decision{Decision: "approve", Source: "cli"}); err != nil {
		t.Fatalf("Answer from the other inbox: %v", err)
	}
	r := receive(t, c, 2*time.Second)
	if r.err != nil || !cmp.Equal(r.d, Decision{Decision: "approve", Source: "cli"}) {
		t.Errorf("Wait = %+v, %v", r.d, r.err)
	}
	// The first answer wins across processes too.
	if _, err := in.Answer(context.Background(), id, Decision{Decision: "deny"}); !errors.Is(err, ErrAnswered) {
		t.Errorf("Answer here after the other: %v, want ErrAnswered", err)
	}
}

func TestWaitCancelled(t *testing.T) {
	t.Parallel()
	in, st, _ := setup(t)
	in.poll = 5 * time.Millisecond
	id := open(t, in)
	ctx, cancel := context.WithCancel(context.Background())
	c := wait(ctx, in, id)
	cancel()
	r := receive(t, c, 2*time.Second)
	if !errors.Is(r.err, context.Canceled) {
		t.Errorf("Wait = %+v, %v; want context.Canceled", r.d, r.err)
	}
	assertNoWaiters(t, in)
	// Giving up waiting decides nothing.
	if it, err := st.GetInteraction(context.Background(), id); err != nil || it.Status != "pending" {
		t.Errorf("interaction = %+v, %v", it, err)
	}
}

func TestAnswerErrors(t *testing.T) {
	t.Parallel()
	in, st, _ := setup(t)
	id := open(t, in)
	tests := []struct {
		name string
		id   string
		d    Decision
		want error
	}{
		{"unknown id", "ia_nope", Decision{Decision: "approve"}, ErrNotFound},
		{"decision maybe", id, Decision{Decision: "maybe"}, ErrInvalid},
		{"no decision", id, Decision{}, ErrInvalid},
		{"decision in capitals", id, Decision{Decision: "APPROVE"}, ErrInvalid},
		{"approve with feedback", id, Decision{Decision: "approve", Feedback: "fine"}, ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := in.Answer(context.Background(), tt.id, tt.d); !errors.Is(err, tt.want) {
				t.Errorf("Answer = %v, want %v", err, tt.want)
			}
		})
	}
	if it, err := st.GetInteraction(context.Background(), id); err != nil || it.Status != "pending" {
		t.Errorf("a refused answer changed the interaction: %+v, %v", it, err)
	}

	t.Run("answered", func(t *testing.T) {
		if _, err := in.Answer(context.Background(), id, Decision{Decision: "approve"}); err != nil {
			t.Fatal(err)
		}
		got, err := in.Answer(context.Background(), id, Decision{Decision: "deny"})
		if !errors.Is(err, ErrAnswered) || got.Decision != "approve" {
			t.Errorf("second Answer = %+v, %v; want ErrAnswered with the first decision", got, err)
		}
	})

	t.Run("cancelled with its run", func(t *testing.T) {
		id := open(t, in)
		if _, err := st.Append(context.Background(), event.New("run_1", event.RunStatus, "", event.RunStatusData{Status: "cancelled"})); err != nil {
			t.Fatal(err)
		}
		if _, err := in.Answer(context.Background(), id, Decision{Decision: "approve"}); !errors.Is(err, ErrAnswered) {
			t.Errorf("Answer of a cancelled approval = %v, want ErrAnswered", err)
		}
	})
}

func TestConcurrentAnswers(t *testing.T) {
	t.Parallel()
	in, st, path := setup(t)
	other := newInbox(openStore(t, path))
	in.poll = 5 * time.Millisecond // the winner may be the other process
	id := open(t, in)
	c := wait(context.Background(), in, id)

	const n = 16
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			// Half answer here, half through the other process's inbox.
			answerer, d := in, Decision{Decision: "approve", Source: fmt.Sprint("here-", i)}
			if i%2 == 1 {
				answerer, d = other, Decision{Decision: "deny", Source: fmt.Sprint("there-", i)}
			}
			_, errs[i] = answerer.Answer(context.Background(), id, d)
		})
	}
	wg.Wait()
	winners := 0
	for i, err := range errs {
		switch {
		case err == nil:
			winners++
		case !errors.Is(err, ErrAnswered):
			t.Errorf("answer %d: %v, want nil or ErrAnswered", i, err)
		}
	}
	if winners != 1 {
		t.Fatalf("%d answers won, want exactly 1", winners)
	}
	it, err := st.GetInteraction(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := st.Events(context.Background(), "run_1", 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	decided := 0
	for _, ev := range evs {
		if ev.Type == event.ApprovalDecided {
			decided++
		}
	}
	if decided != 1 {
		t.Errorf("%d approval.decided events, want 1", decided)
	}
	// The waiter here gets the winning answer, wherever it was given.
	r := receive(t, c, 2*time.Second)
	if r.err != nil || r.d.Source != it.Source || r.d.Decision != it.Decision {
		t.Errorf("Wait = %+v, %v; the interaction says %+v", r.d, r.err, it)
	}
}

func assertNoWaiters(t *testing.T, in *Inbox) {
	t.Helper()
	in.mu.Lock()
	defer in.mu.Unlock()
	if len(in.waiters) != 0 {
		t.Errorf("%d waiters left behind", len(in.waiters))
	}
}

func TestAnswerSavesGrant(t *testing.T) {
	t.Parallel()
	in, st, _ := setup(t)
	ctx := context.Background()
	id := open(t, in)
	for _, d := range []Decision{
		{Decision: "deny", Scope: "forever"},
		{Decision: "deny", AnyArgument: true},
	} {
		if _, err := in.Answer(ctx, id, d); !errors.Is(err, ErrInvalid) {
			t.Errorf("Answer(%+v) = %v, want ErrInvalid", d, err)
		}
	}
	if _, err := in.Answer(ctx, id, Decision{Decision: "deny", Feedback: "no", Scope: store.ScopeAgent, Source: "cli"}); err != nil {
		t.Fatalf("Answer: %v", err)
	}
	gs, err := st.ListGrants(ctx)
	if err != nil || len(gs) != 1 {
		t.Fatalf("grants = %+v, %v", gs, err)
	}
	if g := gs[0]; g.ID != "gr_"+id || g.Effect != "deny" || g.Tool != "write_file" || g.Match != "a.txt" || g.Scope != "agent" || g.AgentID != "ag_1" {
		t.Errorf("grant = %+v", g)
	}
	// A later answer saves nothing.
	if _, err := in.Answer(ctx, id, Decision{Decision: "approve", Scope: store.ScopeEverywhere}); !errors.Is(err, ErrAnswered) {
		t.Errorf("second answer = %v, want ErrAnswered", err)
	}
	if gs, _ := st.ListGrants(ctx); len(gs) != 1 {
		t.Errorf("grants after a second answer = %+v", gs)
	}
	evs, err := st.Events(ctx, "run_1", 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	var d event.ApprovalDecidedData
	for _, ev := range evs {
		if ev.Type == event.ApprovalDecided {
			if err := json.Unmarshal(ev.Data, &d); err != nil {
				t.Fatal(err)
			}
		}
	}
	if d.Scope != "agent" || d.GrantID != "gr_"+id || d.Feedback != "no" {
		t.Errorf("approval.decided = %+v", d)
	}
}
