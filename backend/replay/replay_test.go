package replay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"steward/backend/agent"
	"steward/backend/event"
	"steward/backend/exchange"
	"steward/backend/inbox"
	"steward/backend/llm"
	"steward/backend/llm/script"
	"steward/backend/recording"
	"steward/backend/replay"
	"steward/backend/run"
	"steward/backend/store"
	"steward/backend/tool"
	fstools "steward/backend/tools/fs"
	"steward/backend/tools/mcp/mcptest"
	"steward/backend/workspace"
)

func TestMain(m *testing.M) {
	mcptest.ServeIfAsked() // the MCP server of mcp_test.go is this binary again
	goleak.VerifyTestMain(m)
}

// source is the scripted run every test records: two calls in one turn (a
// write and a read), an edit of a file that was there before the run, a
// read and an edit of the file it wrote, then a final answer.
const source = `{"turns": [
	{"text": "Let me start.", "tool_calls": [
		{"name": "write_file", "arguments": {"path": "a.txt", "content": "one\n"}},
		{"name": "read_file", "arguments": {"path": "b.txt"}}]},
	{"tool_calls": [{"name": "edit_file", "arguments": {"path": "b.txt", "old_string": "bee", "new_string": "BEE"}}]},
	{"text": "Now a.", "tool_calls": [
		{"name": "read_file", "arguments": {"path": "a.txt"}},
		{"name": "edit_file", "arguments": {"path": "a.txt", "old_string": "one", "new_string": "two"}}]},
	{"text": "Done: {{last_tool_output}}"}
]}`

// env is the production pieces over a real store in a temporary folder,
// as the engine's own tests compose them.
type env struct {
	st    *store.Store
	in    *inbox.Inbox
	reg   *tool.Registry
	blobs *workspace.Blobs
	newID func(string) string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	dir := t.TempDir()
	st, err := store.Open(filepath.Join(dir, "steward.db"), &store.Options{Publisher: event.NewBus()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	var n atomic.Int64
	e := &env{st: st, reg: tool.NewRegistry(), newID: func(p string) string { return fmt.Sprintf("%s_%d", p, n.Add(1)) }}
	for _, tl := range fstools.Tools() {
		if err := e.reg.Register(tl); err != nil {
			t.Fatal(err)
		}
	}
	// The recorded runs' agent is one of this machine's: their replays keep
	// their settings (see run.Origin).
	if err := st.CreateAgent(context.Background(), agent.Agent{ID: "ag_test", Name: "tester", Provider: agent.ProviderScript,
		Tools: []string{"read_file", "write_file", "edit_file"}, Mode: agent.ModeAsk, MaxSteps: 10}); err != nil {
		t.Fatal(err)
	}
	e.in = inbox.New(st, e.reg, func() string { return e.newID("ia") })
	if e.blobs, err = workspace.NewBlobs(filepath.Join(dir, "blobs")); err != nil {
		t.Fatal(err)
	}
	return e
}

// service returns a run.Service over e's store, stopped when the test ends.
func (e *env) service(t *testing.T, cfg run.Config) *run.Service {
	t.Helper()
	cfg.Store, cfg.NewID, cfg.Logf, cfg.Blobs = e.st, e.newID, t.Logf, e.blobs
	if cfg.Approver == nil {
		cfg.Approver = e.in
	}
	if cfg.Tools == nil {
		cfg.Tools = e.reg
	}
	svc := run.New(cfg)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := svc.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	})
	return svc
}

func (e *env) wait(t *testing.T, svc *run.Service, id string) store.Run {
	t.Helper()
	if done := svc.Done(id); done != nil {
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("run %s did not end", id)
		}
	}
	r, err := e.st.GetRun(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func (e *env) events(t *testing.T, id string) []event.Event {
	t.Helper()
	evs, err := e.st.Events(context.Background(), id, 0, 100000)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// counting is a registry that counts the calls that reach it.
type counting struct {
	run.Tools
	calls atomic.Int64
}

func (c *counting) Call(ctx context.Context, env tool.Env, name string, args json.RawMessage) (tool.Result, error) {
	c.calls.Add(1)
	return c.Tools.Call(ctx, env, name, args)
}

type fixedModels struct{ p llm.Provider }

func (m fixedModels) Resolve(context.Context, agent.Agent) (run.Model, error) {
	return run.Model{Provider: m.p, Name: "script", Model: "test-model"}, nil
}

func scripted(t *testing.T, src string) *script.Provider {
	t.Helper()
	s, err := script.Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return script.New(s, script.Options{})
}

// recorded runs the source script in a workspace holding b.txt, exports
// the run as a recording and reads it back, as `steward export` and
// `steward replay` do.
func recorded(t *testing.T, e *env) (src store.Run, ws string, rec *replay.Recorded) {
	t.Helper()
	ws = t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "b.txt"), []byte("a bee\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	svc := e.service(t, run.Config{Models: fixedModels{scripted(t, source)}})
	a := agent.Agent{ID: "ag_test", Name: "tester", Provider: agent.ProviderScript, SystemPrompt: "You are a test agent.",
		Tools: []string{"read_file", "write_file", "edit_file"}, Mode: agent.ModeAuto, MaxSteps: 10}
	r, err := svc.Start(context.Background(), run.StartParams{Agent: a, Instructions: "fix the files", Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	if src = e.wait(t, svc, r.ID); src.Status != string(run.Completed) {
		t.Fatalf("source run ended %s (%s)", src.Status, src.Error)
	}
	_, rec = exported(t, e, r.ID)
	return src, ws, rec
}

// exported exports run id as a recording and reads it back, as `steward
// export` and `steward replay` do.
func exported(t *testing.T, e *env, id string) (*recording.Bundle, *replay.Recorded) {
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
	rec, err := replay.Load(b)
	if err != nil {
		t.Fatal(err)
	}
	return b, rec
}

// replayed starts the replay of rec in ws with the recorded tools or the
// real ones, and waits for its end.
func replayed(t *testing.T, e *env, rec *replay.Recorded, ws string, toolsRecorded bool, o replay.Options) (store.Run, *replay.Provider) {
	r, p, _ := replayedCounting(t, e, rec, ws, toolsRecorded, o)
	return r, p
}

// replayedCounting is replayed, and says how many calls reached the real
// tools.
func replayedCounting(t *testing.T, e *env, rec *replay.Recorded, ws string, toolsRecorded bool, o replay.Options) (store.Run, *replay.Provider, int64) {
	t.Helper()
	p := replay.NewProvider(rec, o)
	inner := &counting{Tools: e.reg}
	var tl run.Tools = inner
	if toolsRecorded {
		tl = replay.NewTools(rec, inner, replay.ToolsOptions{Provider: p, Live: o.LiveFrom > 0})
	}
	svc := e.service(t, run.Config{Models: replay.Models(rec, p), Tools: tl, Approver: replay.NewApprover(rec, e.in, p, nil)})
	r, err := svc.Start(context.Background(), rec.StartParams(ws))
	if err != nil {
		t.Fatal(err)
	}
	return e.wait(t, svc, r.ID), p, inner.calls.Load()
}

// comparable renders events without what a replay changes by design: run
// ids, seqs, times, durations, interaction ids, the workspace folder and
// the link to the source. Streamed text is compared as each node's whole
// text: how it is cut into llm.delta events depends on timing.
func comparable(t *testing.T, evs []event.Event) []string {
	t.Helper()
	var out []string
	streamed := map[string]string{}
	for _, ev := range evs {
		if ev.Type == event.LLMDelta {
			var d event.LLMDeltaData
			_ = ev.Decode(&d)
			streamed[ev.NodeID] += d.Text
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(ev.Data, &m); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"duration_ms", "interaction_id", "workspace", "replay_of", "expires_at"} {
			delete(m, k)
		}
		b, _ := json.Marshal(m)
		out = append(out, fmt.Sprintf("%s %s %s", ev.Type, ev.NodeID, b))
	}
	for node, text := range streamed {
		out = append(out, "streamed "+node+" "+text)
	}
	slices.Sort(out[len(out)-len(streamed):])
	return out
}

func content(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The test: a scripted run replayed with the recorded tools gives
// the same events apart from ids and times, and the files follow.
func TestReplayRecordedToolsReproducesTheEvents(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	src, srcWS, rec := recorded(t, e)
	// The workspace starts as the recorded one did, as `steward replay`
	// makes it, so the journal records the same contents before and after.
	ws := t.TempDir()
	if _, err := replay.PrepareWorkspace(rec, ws, replay.PrepareOptions{}); err != nil {
		t.Fatal(err)
	}
	r, p, calls := replayedCounting(t, e, rec, ws, true, replay.Options{})
	if d, ok := p.Divergence(); ok {
		t.Fatalf("diverged: %v", d)
	}
	if calls != 0 {
		t.Errorf("%d calls reached the real tools, want none", calls)
	}
	if r.Status != string(run.Completed) {
		t.Fatalf("replay ended %s (%s)", r.Status, r.Error)
	}
	if diff := cmp.Diff(comparable(t, e.events(t, src.ID)), comparable(t, e.events(t, r.ID))); diff != "" {
		t.Errorf("replayed events differ (-source +replay):\n%s", diff)
	}
	var created event.RunCreatedData
	if err := e.events(t, r.ID)[0].Decode(&created); err != nil || created.ReplayOf != src.ID {
		t.Errorf("run.created replay_of = %q, %v; want %s", created.ReplayOf, err, src.ID)
	}
	for _, f := range []string{"a.txt", "b.txt"} {
		if got, want := content(t, ws, f), content(t, srcWS, f); got != want {
			t.Errorf("%s after the replay: %q, want %q", f, got, want)
		}
	}
}

// With live tools in a fresh workspace, the files the run changed start as
// they were before it, and end as the recorded run left them.
func TestReplayLiveToolsInAFreshWorkspace(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	src, srcWS, rec := recorded(t, e)
	ws := filepath.Join(t.TempDir(), "fresh")
	prep, err := replay.PrepareWorkspace(rec, ws, replay.PrepareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := content(t, ws, "b.txt"); got != "a bee\n" || len(prep.Removed) != 1 || len(prep.Written) != 1 {
		t.Fatalf("prepared %+v; b.txt %q", prep, got)
	}
	r, p := replayed(t, e, rec, ws, false, replay.Options{})
	if d, ok := p.Divergence(); ok || r.Status != string(run.Completed) {
		t.Fatalf("replay ended %s; divergence %v (%v)", r.Status, d, ok)
	}
	for _, f := range []string{"a.txt", "b.txt"} {
		if got, want := content(t, ws, f), content(t, srcWS, f); got != want {
			t.Errorf("%s after the replay: %q, want %q", f, got, want)
		}
	}
	if diff := cmp.Diff(comparable(t, e.events(t, src.ID)), comparable(t, e.events(t, r.ID))); diff != "" {
		t.Errorf("replayed events differ (-source +replay):\n%s", diff)
	}
}

// A tool that answers otherwise than it did (b.txt changed before the
// replay) is reported as the first difference, with its step and field;
// the replay still runs to its end.
func TestReplayReportsTheFirstDivergence(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, _, rec := recorded(t, e)
	ws := t.TempDir()
	if _, err := replay.PrepareWorkspace(rec, ws, replay.PrepareOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "b.txt"), []byte("a wasp\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var seen []replay.Divergence
	r, p := replayed(t, e, rec, ws, false, replay.Options{OnDivergence: func(d replay.Divergence) { seen = append(seen, d) }})
	d, ok := p.Divergence()
	if !ok || d.Step != 2 || d.Field != "messages[3].content (tool result of call_1_1)" ||
		!strings.Contains(d.Recorded, "a bee") || !strings.Contains(d.Got, "a wasp") {
		t.Fatalf("divergence %+v (%v)", d, ok)
	}
	if len(seen) != 1 || seen[0] != d {
		t.Errorf("OnDivergence got %+v", seen)
	}
	if r.Status != string(run.Completed) {
		t.Errorf("a divergence is not fatal: replay ended %s (%s)", r.Status, r.Error)
	}
}

// --live-from N: the recorded answers up to N-1, then the live model's.
func TestReplayLiveFrom(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, _, rec := recorded(t, e)
	live := scripted(t, `{"turns": [{"text": "x"}, {"text": "x"}, {"text": "x"}, {"text": "The live model ends here."}]}`)
	r, p := replayed(t, e, rec, t.TempDir(), true, replay.Options{LiveFrom: 4, Live: live})
	if d, ok := p.Divergence(); ok || r.Status != string(run.Completed) {
		t.Fatalf("replay ended %s; divergence %v (%v)", r.Status, d, ok)
	}
	var texts []string
	for _, ev := range e.events(t, r.ID) {
		var d event.NodeFinishedData
		if ev.Type == event.NodeFinished && ev.Decode(&d) == nil && d.Text != "" {
			texts = append(texts, d.Text)
		}
	}
	if want := []string{"Let me start.", "Now a.", "The live model ends here."}; !cmp.Equal(texts, want) {
		t.Errorf("model texts %q, want %q", texts, want)
	}
}

// Past the recording's last answer, with no live model, the call fails
// with an error that says what to do.
func TestReplayEndsWithAHint(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, _, rec := recorded(t, e)
	p := replay.NewProvider(rec, replay.Options{})
	msgs := make([]llm.Message, 0, 2*rec.Steps())
	for range rec.Steps() {
		msgs = append(msgs, llm.Message{Role: llm.RoleUser, Text: "go"}, llm.Message{Role: llm.RoleAssistant, Text: "ok"})
	}
	_, err := p.Stream(context.Background(), llm.Request{Messages: msgs}, nil)
	if !errors.Is(err, replay.ErrEnded) || !strings.Contains(err.Error(), "--live-from 5") || llm.Retryable(err) {
		t.Fatalf("past the end: %v", err)
	}
}
