package attention

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"steward/backend/event"
	"steward/backend/store"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const runID = "run_abcdefgh12345678" // shown as run_abcdef

// openStore opens the database at path with the production constructor; pub
// may be nil, for a second process that shares the file.
func openStore(t *testing.T, path string, pub store.Publisher) *store.Store {
	t.Helper()
	var opts *store.Options
	if pub != nil {
		opts = &store.Options{Publisher: pub}
	}
	st, err := store.Open(path, opts)
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

func appendEv(t *testing.T, st *store.Store, ev event.Event) {
	t.Helper()
	if _, err := st.Append(context.Background(), ev); err != nil {
		t.Fatalf("append %s: %v", ev.Type, err)
	}
}

func createRun(t *testing.T, st *store.Store, id string) {
	t.Helper()
	appendEv(t, st, event.New(id, event.RunCreated, "", event.RunCreatedData{
		Agent: event.AgentRef{ID: "ag_1", Name: "default", Provider: "script", Model: "m"}, Instructions: "write",
		Workspace: t.TempDir(), Mode: "ask", MaxSteps: 10,
	}))
}

func request(id, node, tool string) event.Event {
	return event.New(runID, event.ApprovalRequested, node, event.ApprovalRequestedData{
		InteractionID: id, Tool: tool, Arguments: []byte(`{"path":"a.txt"}`), Risk: "write", Reason: "mode ask",
	})
}

func decide(id string) event.Event {
	return event.New(runID, event.ApprovalDecided, "", event.ApprovalDecidedData{InteractionID: id, Decision: "approve", Source: "web"})
}

// watch runs w in a goroutine; the reports arrive on the channel, and stop
// ends Run and waits for it.
func watch(t *testing.T, w *Watcher) (reports <-chan Attention, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	c := make(chan Attention, 100)
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.Run(ctx, func(a Attention) { c <- a })
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Error("Run did not return within 5 s of cancel")
			}
		})
	}
	t.Cleanup(stop)
	return c, stop
}

func next(t *testing.T, c <-chan Attention) Attention {
	t.Helper()
	select {
	case a := <-c:
		return a
	case <-time.After(5 * time.Second):
		t.Fatal("no report within 5 s")
		return Attention{}
	}
}

func TestRun(t *testing.T) {
	t.Parallel()
	bus := event.NewBus()
	st := openStore(t, filepath.Join(t.TempDir(), "steward.db"), bus)
	createRun(t, st, runID)
	// Pending before the watcher starts (say, before a restart): counted,
	// without a notice.
	appendEv(t, st, request("ia_old", "n1", "shell"))

	reports, stop := watch(t, New(st, bus, &Options{Resync: -1}))
	steps := []struct {
		name string
		ev   event.Event // appended before the report is expected; zero for the first report
		want Attention
	}{
		{name: "at start", want: Attention{Pending: 1}},
		{
			name: "approval requested",
			ev:   request("ia_1", "n2", "write_file"),
			want: Attention{Pending: 2, Notify: &Notice{Title: "Steward: approval needed", Body: "write_file in run run_abcdef"}},
		},
		{name: "approval decided", ev: decide("ia_old"), want: Attention{Pending: 1}},
		{
			name: "question asked",
			ev: event.New(runID, event.ApprovalRequested, "n3", event.ApprovalRequestedData{
				InteractionID: "ia_q", Kind: event.InteractionQuestion, Tool: "ask_user",
				Question: &event.Question{Text: "Which\n  database should I use?"},
			}),
			want: Attention{Pending: 2, Notify: &Notice{Title: "Steward: question from an agent", Body: "Which database should I use? (run run_abcdef)"}},
		},
		{
			// Ending a run cancels its open interactions with no event of their own.
			name: "run cancelled",
			ev:   event.New(runID, event.RunStatus, "", event.RunStatusData{Status: "cancelled"}),
			want: Attention{},
		},
	}
	for _, s := range steps {
		if s.ev.Type != "" {
			appendEv(t, st, s.ev)
		}
		if diff := cmp.Diff(s.want, next(t, reports)); diff != "" {
			t.Errorf("%s: report (-want +got):\n%s", s.name, diff)
		}
	}

	// A status that does not end the run, and events of other kinds, report
	// nothing: the next report is the next request's.
	createRun(t, st, "run_other")
	appendEv(t, st, event.New("run_other", event.RunStatus, "", event.RunStatusData{Status: "running"}))
	appendEv(t, st, event.New("run_other", event.NodeStarted, "n1", event.NodeStartedData{Kind: "llm"}))
	appendEv(t, st, event.New("run_other", event.ApprovalRequested, "n1", event.ApprovalRequestedData{InteractionID: "ia_2", Tool: "shell"}))
	want := Attention{Pending: 1, Notify: &Notice{Title: "Steward: approval needed", Body: "shell in run run_other"}}
	if diff := cmp.Diff(want, next(t, reports)); diff != "" {
		t.Errorf("after unrelated events and a request (-want +got):\n%s", diff)
	}
	stop()
	select {
	case a := <-reports:
		t.Errorf("unexpected report %+v", a)
	default:
	}
}

// An approval opened and answered by another process reaches this one's
// watcher without an event on its bus, at the next resync.
func TestResyncSeesAnotherProcess(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "steward.db")
	bus := event.NewBus()
	here := openStore(t, path, bus)
	there := openStore(t, path, nil)
	createRun(t, there, runID)

	reports, _ := watch(t, New(here, bus, &Options{Resync: 20 * time.Millisecond}))
	if diff := cmp.Diff(Attention{}, next(t, reports)); diff != "" {
		t.Errorf("at start (-want +got):\n%s", diff)
	}
	appendEv(t, there, request("ia_1", "n1", "shell"))
	want := Attention{Pending: 1, Notify: &Notice{Title: "Steward: approval needed", Body: "shell in run run_abcdef"}}
	if diff := cmp.Diff(want, next(t, reports)); diff != "" {
		t.Errorf("after a request elsewhere (-want +got):\n%s", diff)
	}
	appendEv(t, there, decide("ia_1"))
	if diff := cmp.Diff(Attention{}, next(t, reports)); diff != "" {
		t.Errorf("after an answer elsewhere (-want +got):\n%s", diff)
	}
}

// A report that blocks while many events commit gets the watcher cut off the
// bus; it subscribes again and reads the count, which is still right.
func TestSlowReportCutOff(t *testing.T) {
	t.Parallel()
	bus := event.NewBus()
	st := openStore(t, filepath.Join(t.TempDir(), "steward.db"), bus)
	createRun(t, st, runID)

	entered, release := make(chan struct{}), make(chan struct{})
	var calls atomic.Int32
	reports := make(chan Attention, 10)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		New(st, bus, &Options{Resync: -1}).Run(ctx, func(a Attention) {
			if calls.Add(1) == 1 {
				close(entered)
				<-release // the first report stalls until the feed has overflowed
			}
			reports <- a
		})
	}()
	defer func() { cancel(); <-done }()

	<-entered // subscribed, and the first read is done
	const n = 3 * buffer
	for i := range n {
		appendEv(t, st, request(fmt.Sprintf("ia_%03d", i), fmt.Sprintf("n%d", i), "shell"))
	}
	close(release)
	if diff := cmp.Diff(Attention{}, next(t, reports)); diff != "" {
		t.Errorf("first report (-want +got):\n%s", diff)
	}
	want := Attention{Pending: n, Notify: &Notice{Title: "Steward: approval needed",
		Body: fmt.Sprintf("shell in run run_abcdef, and %d more", n-1)}}
	if diff := cmp.Diff(want, next(t, reports)); diff != "" {
		t.Errorf("report after the cut-off (-want +got):\n%s", diff)
	}
}

// fakeStore is a Store whose reads the test decides.
type fakeStore struct {
	list func() ([]store.Interaction, error)
}

func (f fakeStore) ListInteractions(context.Context, store.InteractionFilter) ([]store.Interaction, error) {
	return f.list()
}

// Failing reads are logged once, and the watcher keeps reading.
func TestStoreErrorsLoggedOnce(t *testing.T) {
	t.Parallel()
	var reads atomic.Int32
	st := fakeStore{list: func() ([]store.Interaction, error) {
		if reads.Add(1) <= 3 {
			return nil, errors.New("disk on fire")
		}
		return []store.Interaction{{ID: "ia_1", RunID: runID, Kind: "approval", Tool: "shell"}}, nil
	}}
	var mu sync.Mutex
	var logged []string
	logf := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		logged = append(logged, fmt.Sprintf(format, args...))
	}
	reports, stop := watch(t, New(st, event.NewBus(), &Options{Resync: 5 * time.Millisecond, Logf: logf}))
	// The first successful read is the first report: it counts, it does not notify.
	if diff := cmp.Diff(Attention{Pending: 1}, next(t, reports)); diff != "" {
		t.Errorf("first report (-want +got):\n%s", diff)
	}
	stop()
	mu.Lock()
	defer mu.Unlock()
	if diff := cmp.Diff([]string{"attention: read pending interactions: disk on fire"}, logged); diff != "" {
		t.Errorf("log (-want +got):\n%s", diff)
	}
}

func TestNotice(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 150)
	tests := []struct {
		name  string
		fresh []store.Interaction
		want  *Notice
	}{
		{name: "none"},
		{
			name:  "approval",
			fresh: []store.Interaction{{RunID: runID, Kind: "approval", Tool: "write_file"}},
			want:  &Notice{Title: "Steward: approval needed", Body: "write_file in run run_abcdef"},
		},
		{
			name:  "approval of an old row without a kind, short run id",
			fresh: []store.Interaction{{RunID: "run_1", Tool: "shell"}},
			want:  &Notice{Title: "Steward: approval needed", Body: "shell in run run_1"},
		},
		{
			name:  "question",
			fresh: []store.Interaction{{RunID: runID, Kind: "question", Question: `{"text":"Tabs\tor spaces?"}`}},
			want:  &Notice{Title: "Steward: question from an agent", Body: "Tabs or spaces? (run run_abcdef)"},
		},
		{
			name:  "long question",
			fresh: []store.Interaction{{RunID: runID, Kind: "question", Question: `{"text":"` + long + `"}`}},
			want:  &Notice{Title: "Steward: question from an agent", Body: strings.Repeat("é", 99) + "… (run run_abcdef)"},
		},
		{
			name:  "question without text",
			fresh: []store.Interaction{{RunID: runID, Kind: "question", Tool: "ask_user", Question: `not json`}},
			want:  &Notice{Title: "Steward: question from an agent", Body: "ask_user (run run_abcdef)"},
		},
		{
			name:  "unknown kind",
			fresh: []store.Interaction{{RunID: runID, Kind: "review"}},
			want:  &Notice{Title: "Steward: waiting for you", Body: "review in run run_abcdef"},
		},
		{
			name: "several: about the first requested",
			fresh: []store.Interaction{ // newest first
				{RunID: runID, Kind: "approval", Tool: "shell"},
				{RunID: runID, Kind: "approval", Tool: "git_commit"},
				{RunID: runID, Kind: "approval", Tool: "write_file"},
			},
			want: &Notice{Title: "Steward: approval needed", Body: "write_file in run run_abcdef, and 2 more"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, notice(tt.fresh)); diff != "" {
				t.Errorf("notice (-want +got):\n%s", diff)
			}
		})
	}
}
