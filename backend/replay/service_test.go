package replay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"steward/backend/agent"
	"steward/backend/event"
	"steward/backend/exchange"
	"steward/backend/llm"
	"steward/backend/policy"
	"steward/backend/replay"
	"steward/backend/run"
	"steward/backend/store"
	"steward/backend/tool"
)

// replays is a replay.Service over e, its runs driven by svc.
func (e *env) replays(svc *run.Service, tools run.Tools, dir string) *replay.Service {
	if tools == nil {
		tools = e.reg
	}
	return replay.NewService(replay.Config{Runs: svc, Log: e.st, Blobs: e.blobs, Tools: tools, Inbox: e.in,
		Models: fixedModels{}, Dir: dir})
}

// The Replay button's path: a run of the database replayed by the
// Service that drives every run, with the recorded tools, in a new
// workspace under Dir. Global rules that would deny the run's calls, and
// a grant saved since, are not consulted: the recorded agent's rules
// decide, as they did.
func TestServiceReplaysARunOfTheDatabase(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	src, srcWS, _ := recorded(t, e)
	deny := []policy.Rule{{Effect: policy.Deny, Tool: "*_file", Match: "**"}}
	svc := e.service(t, run.Config{Models: fixedModels{scripted(t, `{"turns": [{"text": "the live model"}]}`)}, Rules: deny, Grants: e.st})
	dir := filepath.Join(t.TempDir(), "replays")
	inner := &counting{Tools: e.reg}
	started, err := e.replays(svc, inner, dir).Replay(context.Background(), src.ID, replay.Params{})
	if err != nil {
		t.Fatal(err)
	}
	r := e.wait(t, svc, started.Run.ID)
	if r.Status != string(run.Completed) || r.ReplayOf != src.ID {
		t.Fatalf("replay ended %s (%s), replay_of %q; want completed, %s", r.Status, r.Error, r.ReplayOf, src.ID)
	}
	if d, ok := started.Provider.Divergence(); ok {
		t.Fatalf("diverged: %v", d)
	}
	if n := inner.calls.Load(); n != 0 {
		t.Errorf("%d calls reached the real tools with tools recorded", n)
	}
	if filepath.Dir(r.Workspace) != dir {
		t.Errorf("workspace %s, want a new folder in %s", r.Workspace, dir)
	}
	if diff := cmp.Diff(comparable(t, e.events(t, src.ID)), comparable(t, e.events(t, r.ID))); diff != "" {
		t.Errorf("replayed events differ (-source +replay):\n%s", diff)
	}
	for _, f := range []string{"a.txt", "b.txt"} {
		if got, want := content(t, r.Workspace, f), content(t, srcWS, f); got != want {
			t.Errorf("%s after the replay: %q, want %q", f, got, want)
		}
	}
}

// lying answers read_file of b.txt with other content than the file's.
type lying struct{ run.Tools }

func (l lying) Call(ctx context.Context, env tool.Env, name string, args json.RawMessage) (tool.Result, error) {
	if name == "read_file" && strings.Contains(string(args), "b.txt") {
		return tool.Result{Output: "1\ta wasp\n"}, nil
	}
	return l.Tools.Call(ctx, env, name, args)
}

// With live tools that answer otherwise, the first divergence is in the
// replay's log, once, and the replay runs to its end.
func TestServiceRecordsTheDivergence(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	src, _, _ := recorded(t, e)
	svc := e.service(t, run.Config{Models: fixedModels{}})
	started, err := e.replays(svc, lying{e.reg}, t.TempDir()).Replay(context.Background(), src.ID,
		replay.Params{Tools: replay.ToolsLive, Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	r := e.wait(t, svc, started.Run.ID)
	if r.Status != string(run.Completed) {
		t.Fatalf("a divergence is not fatal: replay ended %s (%s)", r.Status, r.Error)
	}
	var got []event.ReplayDivergedData
	for _, ev := range e.events(t, r.ID) {
		if ev.Type == event.ReplayDiverged {
			var d event.ReplayDivergedData
			if err := ev.Decode(&d); err != nil {
				t.Fatal(err)
			}
			got = append(got, d)
		}
	}
	if len(got) != 1 || got[0].Step != 2 || !strings.Contains(got[0].Recorded, "a bee") || !strings.Contains(got[0].Got, "a wasp") ||
		!strings.HasPrefix(got[0].Field, "messages[3].content") {
		t.Fatalf("replay.diverged events %+v, want one at model call 2 on the tool result of b.txt", got)
	}
}

// What cannot be replayed is refused before anything starts, saying why.
func TestServiceRefuses(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	src, _, _ := recorded(t, e)
	block := make(chan struct{})
	t.Cleanup(func() { close(block) })
	svc := e.service(t, run.Config{Models: fixedModels{blocking{block}}})
	rs := e.replays(svc, nil, t.TempDir())
	ctx := context.Background()
	a := agent.Agent{ID: "ag_test", Name: "tester", Provider: agent.ProviderScript, Mode: agent.ModeAuto, MaxSteps: 10}
	live, err := svc.Start(ctx, run.StartParams{Agent: a, Instructions: "wait", Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	fork, err := svc.Command(ctx, src.ID, run.Command{CommandID: "c1", Type: run.CmdFork, NodeID: "n3"})
	if err != nil || fork.Fork == "" {
		t.Fatalf("fork: %+v, %v", fork, err)
	}
	if _, err := svc.Command(ctx, fork.Fork, run.Command{CommandID: "c2", Type: run.CmdCancel}); err != nil {
		t.Fatal(err)
	}
	e.wait(t, svc, fork.Fork)
	ex := exchange.New(exchange.Config{Store: e.st, Blobs: e.blobs, Version: "test", NewID: e.newID})
	var buf bytes.Buffer
	if _, err := ex.Export(ctx, src.ID, exchange.FormatSteward, &buf); err != nil {
		t.Fatal(err)
	}
	imported, err := ex.Import(ctx, bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, run string
		p         replay.Params
		is        error
		says      string
	}{
		{"tools", src.ID, replay.Params{Tools: "maybe"}, run.ErrInvalid, `tools is "maybe"`},
		{"live from", src.ID, replay.Params{LiveFrom: -1}, run.ErrInvalid, "live_from is -1"},
		{"workspace", src.ID, replay.Params{Workspace: filepath.Join(t.TempDir(), "nope")}, run.ErrInvalid, "is not a folder"},
		{"unknown", "run_nope", replay.Params{}, store.ErrNotFound, "run_nope"},
		{"its own workspace", src.ID, replay.Params{Workspace: src.Workspace + "/."}, run.ErrInvalid, "is the run's own"},
		{"active", live.ID, replay.Params{}, store.ErrConflict, "replay it when it has ended"},
		{"fork", fork.Fork, replay.Params{}, run.ErrInvalid, "it is a fork of run " + src.ID},
		// A recording made elsewhere replays with one of this machine's
		// agents, whatever the tools (see foreign_test.go).
		{"imported, no agent", imported.ID, replay.Params{}, run.ErrInvalid, "was imported from a recording made elsewhere: its recorded agent"},
		{"imported, live tools, no agent", imported.ID, replay.Params{Tools: replay.ToolsLive}, run.ErrInvalid, "choose one of this machine's agents"},
		{"imported, unknown agent", imported.ID, replay.Params{Agent: "nobody"}, run.ErrInvalid, `agent "nobody" does not exist`},
		{"mode", src.ID, replay.Params{Mode: "yolo"}, run.ErrInvalid, `mode "yolo" is not one of`},
	} {
		_, err := rs.Replay(ctx, c.run, c.p)
		if !errors.Is(err, c.is) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %v; want %v saying %q", c.name, err, c.is, c.says)
		}
	}
}

// blocking is a model that answers when its channel closes.
type blocking struct{ c chan struct{} }

func (b blocking) Stream(ctx context.Context, _ llm.Request, _ func(llm.Delta)) (*llm.Response, error) {
	select {
	case <-b.c:
		return &llm.Response{Text: "done", StopReason: llm.StopEnd}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// A replay that Steward stopped is not resumed after a restart, where its
// recording is not at hand and the agent's real model would take over: it
// fails, saying what to do.
func TestRecoverEndsAnInterruptedReplay(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	src, _, rec := recorded(t, e)
	block := make(chan struct{})
	defer close(block)
	svc := run.New(run.Config{Store: e.st, NewID: e.newID, Logf: t.Logf, Blobs: e.blobs, Approver: e.in, Tools: e.reg, Models: fixedModels{}})
	sp := rec.StartParams(t.TempDir())
	sp.Runtime = &run.Runtime{Model: run.Model{Provider: blocking{block}, Name: "script"}, Tools: e.reg, Approver: e.in}
	r, err := svc.Start(context.Background(), sp)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := svc.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if got, _ := e.st.GetRun(ctx, r.ID); got.Status != string(run.Paused) || got.ReplayOf != src.ID {
		t.Fatalf("after shutdown the replay is %s, replay_of %q", got.Status, got.ReplayOf)
	}
	live := scripted(t, `{"turns": [{"text": "the agent's real model"}]}`)
	next := e.service(t, run.Config{Models: fixedModels{live}})
	if n, err := next.Recover(ctx); err != nil || n != 0 {
		t.Fatalf("Recover = %d, %v; want 0 resumed", n, err)
	}
	got, err := e.st.GetRun(ctx, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != string(run.Failed) || got.Reason != "replay interrupted" || !strings.Contains(got.Error, "replay run "+src.ID+" again") {
		t.Errorf("recovered replay: %s, %q, %q", got.Status, got.Reason, got.Error)
	}
	if next.Active(r.ID) {
		t.Error("the replay is driven after the restart")
	}
	open := map[string]bool{}
	for _, ev := range e.events(t, r.ID) {
		switch ev.Type {
		case event.NodeStarted:
			open[ev.NodeID] = true
		case event.NodeFinished:
			delete(open, ev.NodeID)
		}
	}
	if len(open) > 0 {
		t.Errorf("nodes left open after the replay failed: %v", open)
	}
}

// A folder given as the workspace must exist. One that holds files is
// refused, with nothing written, unless the person allows it (the replay
// puts the recorded files back over what is there); then it is used as is.
func TestServiceUsesTheGivenWorkspace(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	src, _, _ := recorded(t, e)
	svc := e.service(t, run.Config{Models: fixedModels{}})
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "keep.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	rs := e.replays(svc, nil, t.TempDir())
	_, err := rs.Replay(context.Background(), src.ID, replay.Params{Workspace: ws})
	if !errors.Is(err, run.ErrInvalid) || !errors.Is(err, replay.ErrRefused) || !strings.Contains(err.Error(), "is not empty (it holds keep.txt)") {
		t.Fatalf("replay into a folder that holds a file: %v; want refused", err)
	}
	if entries, _ := os.ReadDir(ws); len(entries) != 1 {
		t.Fatalf("the refused replay wrote in the folder: %v", entries)
	}
	started, err := rs.Replay(context.Background(), src.ID, replay.Params{Workspace: ws, NonEmpty: true})
	if err != nil {
		t.Fatal(err)
	}
	r := e.wait(t, svc, started.Run.ID)
	if r.Workspace != ws || r.Status != string(run.Completed) || content(t, ws, "keep.txt") != "mine" || content(t, ws, "a.txt") != "two\n" {
		t.Errorf("replay in %s ended %s; keep.txt %q", r.Workspace, r.Status, content(t, ws, "keep.txt"))
	}
}

type failingRuns struct{}

func (failingRuns) Start(context.Context, run.StartParams) (store.Run, error) {
	return store.Run{}, run.ErrShuttingDown
}

// A replay that cannot start leaves no folder behind in Dir.
func TestServiceCleansUpAFailedStart(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	src, _, _ := recorded(t, e)
	dir := t.TempDir()
	rs := replay.NewService(replay.Config{Runs: failingRuns{}, Log: e.st, Blobs: e.blobs, Tools: e.reg, Inbox: e.in, Models: fixedModels{}, Dir: dir})
	if _, err := rs.Replay(context.Background(), src.ID, replay.Params{}); !errors.Is(err, run.ErrShuttingDown) {
		t.Fatalf("Replay = %v, want the engine's refusal", err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}
