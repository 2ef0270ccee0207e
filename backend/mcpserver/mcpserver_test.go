package mcpserver_test

import (
	"archive/zip"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"steward/backend/event"
	"steward/backend/mcpserver"
	"steward/backend/store"
)

func TestToolsAndTheirAnnotations(t *testing.T) {
	t.Parallel()
	cs := newEnv(t).connect(t)
	// It claims what it does: a fixed list of tools.
	if caps := cs.InitializeResult().Capabilities; caps.Tools == nil || caps.Tools.ListChanged || caps.Resources != nil || caps.Prompts != nil {
		t.Errorf("capabilities %+v: want tools without listChanged, and no resources or prompts", caps)
	}
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	type hints struct {
		ReadOnly, Destructive, Idempotent, OpenWorld bool
	}
	got := map[string]hints{}
	for _, tl := range res.Tools {
		a := tl.Annotations
		if a == nil {
			t.Fatalf("%s has no annotations", tl.Name)
		}
		// Unset destructive and open-world hints mean true.
		got[tl.Name] = hints{a.ReadOnlyHint, a.DestructiveHint == nil || *a.DestructiveHint, a.IdempotentHint, a.OpenWorldHint == nil || *a.OpenWorldHint}
		if tl.OutputSchema == nil {
			t.Errorf("%s has no output schema", tl.Name)
		}
	}
	want := map[string]hints{
		"start_run":    {Destructive: false, OpenWorld: true},
		"list_runs":    {ReadOnly: true, Destructive: true},
		"get_run":      {ReadOnly: true, Destructive: true},
		"wait_run":     {ReadOnly: true, Destructive: true},
		"send_command": {Destructive: true},
		"export_run":   {Idempotent: true},
	}
	// Destructive is meaningless for a read-only tool and left unset there.
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	for _, tl := range res.Tools {
		if slices.Contains([]string{"answer", "approve"}, tl.Name) || strings.Contains(tl.Name, "approv") {
			t.Errorf("tool %s answers approvals: a model must not approve its own calls", tl.Name)
		}
	}
}

func TestInvalidInputsAreToolErrors(t *testing.T) {
	t.Parallel()
	cs := newEnv(t).connect(t)
	ws := t.TempDir()
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"start_run", map[string]any{"agent": "nobody", "instructions": "x", "workspace": ws}, `agent "nobody" does not exist`},
		{"start_run", map[string]any{"instructions": "x"}, "workspace"},
		{"start_run", map[string]any{"instructions": "x", "workspace": ""}, "workspace is missing"},
		{"start_run", map[string]any{"instructions": "x", "workspace": "rel/dir"}, "not an absolute path"},
		{"start_run", map[string]any{"instructions": "x", "workspace": filepath.Join(ws, "gone")}, "does not exist"},
		{"start_run", map[string]any{"instructions": "  ", "workspace": ws}, "instructions are empty"},
		{"get_run", map[string]any{"run_id": "run_nope"}, `run "run_nope" does not exist`},
		{"get_run", map[string]any{"run_id": ""}, "run_id is empty"},
		{"wait_run", map[string]any{"run_id": "run_nope", "timeout_seconds": 1}, `run "run_nope" does not exist`},
		{"wait_run", map[string]any{"run_id": "run_x", "timeout_seconds": 100000}, "timeout_seconds"},
		{"send_command", map[string]any{"run_id": "run_x", "command": "approve"}, "command"},
		{"send_command", map[string]any{"run_id": "run_nope", "command": "cancel"}, `run "run_nope" does not exist`},
		{"list_runs", map[string]any{"status": "sleeping"}, "status"},
		{"list_runs", map[string]any{"limit": 1000}, "limit 1000"},
		{"list_runs", map[string]any{"agent": "nobody"}, `agent "nobody" does not exist`},
		{"export_run", map[string]any{"run_id": "run_x", "format": "video"}, "format"},
		{"export_run", map[string]any{"run_id": "run_nope"}, `run "run_nope" does not exist`},
	} {
		t.Run(tc.tool+"/"+tc.want, func(t *testing.T) {
			res := call(t, cs, tc.tool, tc.args, nil)
			if !res.IsError || !strings.Contains(text(res), tc.want) {
				t.Errorf("%s(%v) = error %v %q, want a tool error saying %q", tc.tool, tc.args, res.IsError, text(res), tc.want)
			}
		})
	}
}

// TestDemoRunOverMCP drives the built-in demo script: it lists the
// workspace, then asks to write a file, which waits for a person.
func TestDemoRunOverMCP(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cs := e.connect(t)
	runDemoToApproval(t, e, cs)
}

// runDemoToApproval starts the demo, waits until it asks for approval,
// checks what get_run says of it, cancels it and exports it.
func runDemoToApproval(t *testing.T, e *env, cs *mcp.ClientSession) {
	t.Helper()
	ws := t.TempDir()
	var started mcpserver.RunView
	mustOK(t, cs, "start_run", map[string]any{"instructions": "write the demo note", "workspace": ws}, &started)
	if started.ID == "" || started.UIURL != uiBase+"#run="+started.ID || started.Agent != "default" {
		t.Fatalf("start_run = %+v", started)
	}
	var waited mcpserver.WaitOutput
	mustOK(t, cs, "wait_run", map[string]any{"run_id": started.ID, "timeout_seconds": 15}, &waited)
	// The approval is asked a moment before the run's status says waiting:
	// either way it needs a person now.
	if waited.TimedOut || waited.Ended || len(waited.Pending) != 1 || waited.Pending[0].Tool != "write_file" {
		t.Fatalf("wait_run = %+v, want waiting on write_file", waited)
	}
	var got mcpserver.RunView
	mustOK(t, cs, "get_run", map[string]any{"run_id": started.ID}, &got)
	link := uiBase + "#run=" + started.ID
	if len(got.Pending) != 1 || got.Pending[0].UIURL != link || !strings.Contains(got.NeedsPerson, link) ||
		!strings.Contains(got.NeedsPerson, "cannot be answered through MCP") || !strings.Contains(got.Pending[0].Arguments, "steward-demo.md") {
		t.Errorf("get_run = %+v, want the pending write with the link %s", got, link)
	}
	if !strings.Contains(got.LastMessage, "write a short note") {
		t.Errorf("last message = %q, want the demo's second turn", got.LastMessage)
	}
	var list mcpserver.ListOutput
	mustOK(t, cs, "list_runs", map[string]any{"agent": "default"}, &list)
	if len(list.Runs) != 1 || list.Runs[0].ID != started.ID || list.Runs[0].PendingApprovals != 1 || list.Runs[0].UIURL != link {
		t.Errorf("list_runs = %+v", list)
	}
	mustOK(t, cs, "list_runs", map[string]any{"status": "completed"}, &list)
	if len(list.Runs) != 0 {
		t.Errorf("list_runs(completed) = %+v", list)
	}
	// steer needs text, and a person, not the caller, answers approvals.
	if res := call(t, cs, "send_command", map[string]any{"run_id": started.ID, "command": "steer"}, nil); !res.IsError {
		t.Errorf("steer without text: %s", text(res))
	}
	var cmd mcpserver.CommandOutput
	mustOK(t, cs, "send_command", map[string]any{"run_id": started.ID, "command": "cancel"}, &cmd)
	if cmd.Status != "accepted" {
		t.Errorf("cancel = %+v", cmd)
	}
	// The cancel is carried out by the run's goroutine: until then the
	// approval is still open, and wait_run says so at once.
	deadline := time.Now().Add(waitTimeout)
	for !waited.Ended && time.Now().Before(deadline) {
		waited = mcpserver.WaitOutput{}
		mustOK(t, cs, "wait_run", map[string]any{"run_id": started.ID, "timeout_seconds": 15}, &waited)
		time.Sleep(20 * time.Millisecond)
	}
	if waited.Status != "cancelled" || !waited.Ended || len(waited.Pending) != 0 || waited.NeedsPerson != "" {
		t.Fatalf("after cancel: %+v", waited)
	}
	if _, err := os.Stat(filepath.Join(ws, "steward-demo.md")); !os.IsNotExist(err) {
		t.Errorf("the write that nobody approved happened (%v)", err)
	}
	// A run that has ended refuses a second cancel, as a tool error.
	if res := call(t, cs, "send_command", map[string]any{"run_id": started.ID, "command": "cancel"}, nil); !res.IsError || !strings.Contains(text(res), "rejected") {
		t.Errorf("cancel of a cancelled run: %v %s", res.IsError, text(res))
	}
	var out mcpserver.ExportOutput
	mustOK(t, cs, "export_run", map[string]any{"run_id": started.ID}, &out)
	if filepath.Dir(out.Path) != e.exports || filepath.Ext(out.Path) != ".steward" {
		t.Fatalf("export = %+v, want a .steward file in %s", out, e.exports)
	}
	zr, err := zip.OpenReader(out.Path)
	if err != nil {
		t.Fatalf("the recording is not a zip: %v", err)
	}
	zr.Close()
	mustOK(t, cs, "export_run", map[string]any{"run_id": started.ID, "format": "html"}, &out)
	if b, err := os.ReadFile(out.Path); err != nil || filepath.Ext(out.Path) != ".html" || !strings.Contains(string(b), "<html") {
		t.Errorf("html export %s: %v", out.Path, err)
	}
	if left, _ := filepath.Glob(filepath.Join(e.exports, ".export-*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
	// The interaction was never answered through MCP.
	its, err := e.st.ListInteractions(context.Background(), store.InteractionFilter{RunID: started.ID})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range its {
		if it.Decision == event.DecisionApprove {
			t.Errorf("interaction %s was approved", it.ID)
		}
	}
}

func TestWaitRunReturnsAtOnceWhenAPersonIsNeeded(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cs := e.connect(t)
	var started mcpserver.RunView
	mustOK(t, cs, "start_run", map[string]any{"instructions": "x", "workspace": t.TempDir()}, &started)
	var w mcpserver.WaitOutput
	mustOK(t, cs, "wait_run", map[string]any{"run_id": started.ID, "timeout_seconds": 10}, &w)
	start := time.Now()
	mustOK(t, cs, "wait_run", map[string]any{"run_id": started.ID, "timeout_seconds": 5}, &w)
	if w.TimedOut || len(w.Pending) != 1 || time.Since(start) > 3*time.Second {
		t.Errorf("wait on a waiting run = %+v after %v", w, time.Since(start))
	}
}

// fakeReader is a store whose one run has the status status() returns.
type fakeReader struct {
	status func() string
}

func (f fakeReader) GetRun(_ context.Context, id string) (store.Run, error) {
	if id != "run_1" {
		return store.Run{}, store.ErrNotFound
	}
	return store.Run{ID: id, AgentName: "default", Status: f.status()}, nil
}
func (fakeReader) ListRuns(context.Context, store.RunFilter) ([]store.Run, error) { return nil, nil }
func (fakeReader) Graph(context.Context, string) ([]store.Node, []store.Edge, error) {
	return nil, nil, nil
}
func (fakeReader) NodeEvents(context.Context, string, string) ([]event.Event, error) { return nil, nil }
func (fakeReader) ListInteractions(context.Context, store.InteractionFilter) ([]store.Interaction, error) {
	return nil, nil
}

func TestWaitRunIsBoundedByItsDeadline(t *testing.T) {
	t.Parallel()
	var status atomic.Value
	status.Store("running")
	bus := event.NewBus()
	srv := mcpserver.New(mcpserver.Config{Store: fakeReader{status: func() string { return status.Load().(string) }}, Bus: bus,
		NewID: func(p string) string { return p + "_1" }})
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cs.Close(); _ = ss.Wait() }()

	start := time.Now()
	var w mcpserver.WaitOutput
	mustOK(t, cs, "wait_run", map[string]any{"run_id": "run_1", "timeout_seconds": 0.5}, &w)
	if el := time.Since(start); !w.TimedOut || w.Status != "running" || el < 400*time.Millisecond || el > 5*time.Second {
		t.Errorf("wait on a running run = %+v after %v, want timed_out after 0.5s", w, el)
	}
	// An event of the run wakes the wait before the next poll.
	go func() {
		time.Sleep(200 * time.Millisecond)
		status.Store("completed")
		bus.Publish([]event.Event{{RunID: "run_1", Seq: 1, Type: event.RunStatus}})
	}()
	start = time.Now()
	mustOK(t, cs, "wait_run", map[string]any{"run_id": "run_1", "timeout_seconds": 30}, &w)
	if el := time.Since(start); w.TimedOut || !w.Ended || el > 900*time.Millisecond {
		t.Errorf("wait on a run that ends = %+v after %v, want ended, woken by the bus before the 1s poll", w, el)
	}
}
