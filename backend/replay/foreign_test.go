package replay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"steward/backend/agent"
	"steward/backend/config"
	"steward/backend/exchange"
	"steward/backend/inbox"
	"steward/backend/llm"
	"steward/backend/policy"
	"steward/backend/replay"
	"steward/backend/run"
	"steward/backend/store"
	"steward/backend/tool"
)

// personKey is this machine's OpenAI key.
const personKey = "sk-person-0123456789abcdefghij"

// chatServer is an OpenAI-compatible server that answers every chat
// completion with text, streamed, and keeps the Authorization of each.
type chatServer struct {
	*httptest.Server
	mu     sync.Mutex
	auths  []string
	models []string // the model each request asked for
}

func newChatServer(t *testing.T, text string) *chatServer {
	t.Helper()
	c := &chatServer{}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Model string `json:"model"`
		}
		_ = json.NewDecoder(r.Body).Decode(&body)
		c.mu.Lock()
		c.auths = append(c.auths, r.Header.Get("Authorization"))
		c.models = append(c.models, body.Model)
		c.mu.Unlock()
		if r.URL.Path != "/v1/chat/completions" {
			http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		content, _ := json.Marshal(map[string]string{"role": "assistant", "content": text})
		for _, chunk := range []string{
			`{"id":"c1","object":"chat.completion.chunk","created":1700000000,"model":"m","choices":[{"index":0,"delta":` + string(content) + `,"finish_reason":null}]}`,
			`{"id":"c1","object":"chat.completion.chunk","created":1700000000,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
			`{"id":"c1","object":"chat.completion.chunk","created":1700000000,"model":"m","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`,
		} {
			fmt.Fprintf(w, "data: %s\n\n", chunk)
		}
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(c.Close)
	return c
}

func (c *chatServer) requests() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.auths...)
}

// importedRecording records the source script as agent a (not an agent of
// this machine) in a workspace holding b.txt, a person approving every
// call that asks, exports it and imports it: the run a crafted recording
// becomes. It returns the imported run and the recorded workspace.
func importedRecording(t *testing.T, e *env, a agent.Agent) (store.Run, string) {
	t.Helper()
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "b.txt"), []byte("a bee\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	svc := e.service(t, run.Config{Models: fixedModels{scripted(t, source)}})
	var id atomic.Value
	id.Store("")
	e.answerer(t, func() string { return id.Load().(string) }, inbox.Decision{Decision: "approve", Source: "web"})
	r, err := svc.Start(context.Background(), run.StartParams{Agent: a, Instructions: "fix the files", Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	id.Store(r.ID)
	if src := e.wait(t, svc, r.ID); src.Status != string(run.Completed) {
		t.Fatalf("source ended %s (%s)", src.Status, src.Error)
	}
	ex := exchange.New(exchange.Config{Store: e.st, Blobs: e.blobs, Version: "test", NewID: e.newID})
	var buf bytes.Buffer
	if _, err := ex.Export(context.Background(), r.ID, exchange.FormatSteward, &buf); err != nil {
		t.Fatal(err)
	}
	imported, err := ex.Import(context.Background(), bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	return imported, ws
}

// waitFor polls cond for up to 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// A replay of an imported run takes no setting from it: it needs one of
// this machine's agents, starts paused, runs in ask mode (the chosen agent
// is in auto), calls only that agent's provider with this machine's key,
// lets the recorded answers decide nothing that runs for real, and writes
// nothing in the recorded workspace.
func TestReplayOfAnImportedRunTakesNothingRecorded(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	theirSrv, mySrv := newChatServer(t, "their answer"), newChatServer(t, "my answer")
	ctx := context.Background()
	mine := agent.Agent{ID: "ag_mine", Name: "mine", Provider: agent.ProviderOpenAI, BaseURL: mySrv.URL + "/v1/", Model: "my-model",
		Tools: []string{"read_file", "write_file", "edit_file"}, Mode: agent.ModeAuto, MaxSteps: 10}
	if err := e.st.CreateAgent(ctx, mine); err != nil {
		t.Fatal(err)
	}
	theirs := agent.Agent{ID: "ag_theirs", Name: "theirs", Provider: agent.ProviderOpenAI, BaseURL: theirSrv.URL + "/v1/", Model: "their-model",
		SystemPrompt: "You are a test agent.", Tools: []string{"read_file", "write_file", "edit_file"}, Mode: agent.ModeAsk, MaxSteps: 10,
		Rules: []policy.Rule{{Effect: policy.Allow, Tool: "*", Match: "**"}}}
	imported, decoy := importedRecording(t, e, theirs)
	decoyBefore := tree(t, decoy)

	svc := e.service(t, run.Config{Models: fixedModels{}})
	dir := filepath.Join(t.TempDir(), "replays")
	rs := replay.NewService(replay.Config{Runs: svc, Log: e.st, Blobs: e.blobs, Tools: e.reg, Inbox: e.in, Dir: dir,
		Models: config.NewModels(config.Config{OpenAI: config.OpenAI{APIKey: personKey}})})

	if _, err := rs.Replay(ctx, imported.ID, replay.Params{LiveFrom: 1}); err == nil || !strings.Contains(err.Error(), "choose one of this machine's agents") {
		t.Fatalf("a replay of an imported run without an agent: %v", err)
	}

	// started replays p and checks that it waits, paused, as a run of mine
	// in ask mode in a new folder under dir.
	started := func(t *testing.T, p replay.Params) replay.Started {
		t.Helper()
		p.Agent = "mine"
		s, err := rs.Replay(ctx, imported.ID, p)
		if err != nil {
			t.Fatal(err)
		}
		r := s.Run
		waitFor(t, "the replay to pause", func() bool {
			r, _ = e.st.GetRun(ctx, s.Run.ID)
			return r.Status == string(run.Paused)
		})
		if !strings.Contains(r.Reason, "replay of") || r.AgentID != "ag_mine" || r.Mode != agent.ModeAsk || r.Unattended || filepath.Dir(r.Workspace) != dir {
			t.Fatalf("the replay waits as %+v; want paused, of agent mine in mode ask, in a new folder under %s", r, dir)
		}
		if _, err := svc.Command(ctx, r.ID, run.Command{CommandID: e.newID("cmd"), Type: run.CmdContinue}); err != nil {
			t.Fatal(err)
		}
		return s
	}

	t.Run("recorded results", func(t *testing.T) {
		s := started(t, replay.Params{})
		if r := e.wait(t, svc, s.Run.ID); r.Status != string(run.Completed) {
			t.Fatalf("replay ended %s (%s)", r.Status, r.Error)
		}
		if d, ok := s.Provider.Divergence(); ok {
			t.Errorf("diverged: %v", d)
		}
		if content(t, s.Run.Workspace, "a.txt") != "two\n" {
			t.Errorf("the recorded results were not written in the replay's folder")
		}
	})
	t.Run("live model from call 1", func(t *testing.T) {
		s := started(t, replay.Params{LiveFrom: 1})
		if r := e.wait(t, svc, s.Run.ID); r.Status != string(run.Completed) {
			t.Fatalf("replay ended %s (%s)", r.Status, r.Error)
		}
		if got := mySrv.requests(); len(got) == 0 || got[0] != "Bearer "+personKey {
			t.Errorf("the chosen agent's server got %q; want the live call, with this machine's key", got)
		}
		mySrv.mu.Lock()
		defer mySrv.mu.Unlock()
		for _, m := range mySrv.models {
			if m != "my-model" {
				t.Errorf("the live call asked for model %q; want the chosen agent's, my-model", m)
			}
		}
	})
	t.Run("live tools", func(t *testing.T) {
		s := started(t, replay.Params{Tools: replay.ToolsLive})
		// The recording approved the write; here a person is asked, and
		// until then nothing is written.
		var it store.Interaction
		waitFor(t, "the write to ask", func() bool {
			its, _ := e.st.ListInteractions(ctx, store.InteractionFilter{RunID: s.Run.ID, Status: "pending"})
			if len(its) == 1 {
				it = its[0]
			}
			return len(its) == 1
		})
		time.Sleep(100 * time.Millisecond) // a recorded answer would have come by now
		if now, _ := e.st.GetInteraction(ctx, it.ID); now.Status != "pending" || it.Tool != "write_file" {
			t.Errorf("the live write's approval is %s (%s), want pending: a recorded answer decides nothing here", now.Status, it.Tool)
		}
		if _, err := os.Stat(filepath.Join(s.Run.Workspace, "a.txt")); !os.IsNotExist(err) {
			t.Errorf("a.txt was written before anyone approved it: %v", err)
		}
		if _, err := svc.Command(ctx, s.Run.ID, run.Command{CommandID: e.newID("cmd"), Type: run.CmdCancel}); err != nil {
			t.Fatal(err)
		}
		e.wait(t, svc, s.Run.ID)
	})
	if got := theirSrv.requests(); len(got) != 0 {
		t.Errorf("the recorded base URL got %d requests (%q): it must get none", len(got), got)
	}
	if diff := decoyBefore.diff(tree(t, decoy)); diff != "" {
		t.Errorf("the recorded workspace changed: %s", diff)
	}
}

// A replay of a run of this machine goes live with its agent's provider as
// it is defined now, not as the run recorded it.
func TestReplayOfALocalRunCallsTheAgentsCurrentProvider(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	oldSrv, newSrv := newChatServer(t, "old"), newChatServer(t, "new")
	ctx := context.Background()
	a := agent.Agent{ID: "ag_moving", Name: "moving", Provider: agent.ProviderOpenAI, BaseURL: oldSrv.URL + "/v1/",
		SystemPrompt: "You are a test agent.", Tools: []string{"read_file", "write_file", "edit_file"}, Mode: agent.ModeAuto, MaxSteps: 10}
	if err := e.st.CreateAgent(ctx, a); err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "b.txt"), []byte("a bee\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	svc := e.service(t, run.Config{Models: fixedModels{scripted(t, source)}})
	src, err := svc.Start(ctx, run.StartParams{Agent: a, Instructions: "fix the files", Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	e.wait(t, svc, src.ID)
	a.BaseURL = newSrv.URL + "/v1/"
	if err := e.st.UpdateAgent(ctx, a); err != nil {
		t.Fatal(err)
	}
	rs := replay.NewService(replay.Config{Runs: svc, Log: e.st, Blobs: e.blobs, Tools: e.reg, Inbox: e.in, Dir: t.TempDir(),
		Models: config.NewModels(config.Config{OpenAI: config.OpenAI{APIKey: personKey}})})
	s, err := rs.Replay(ctx, src.ID, replay.Params{LiveFrom: 2})
	if err != nil {
		t.Fatal(err)
	}
	if r := e.wait(t, svc, s.Run.ID); r.Status != string(run.Completed) {
		t.Fatalf("replay ended %s (%s)", r.Status, r.Error)
	}
	if n := len(oldSrv.requests()); n != 0 {
		t.Errorf("the base URL the run recorded got %d requests; the agent has moved away from it", n)
	}
	if n := len(newSrv.requests()); n == 0 {
		t.Errorf("the agent's current base URL got no request")
	}
}

// snapshot is a folder's tree: every entry's kind and content (a link's
// target).
type snapshot map[string]string

func tree(t *testing.T, dir string) snapshot {
	t.Helper()
	s := snapshot{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case d.Type()&os.ModeSymlink != 0:
			target, err := os.Readlink(p)
			s[rel] = "link " + target
			return err
		case d.IsDir():
			s[rel] = "dir"
		default:
			b, err := os.ReadFile(p)
			s[rel] = "file " + string(b)
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (s snapshot) diff(o snapshot) string {
	var out []string
	for k, v := range s {
		if o[k] != v {
			out = append(out, fmt.Sprintf("%s: %q -> %q", k, v, o[k]))
		}
	}
	for k, v := range o {
		if _, ok := s[k]; !ok {
			out = append(out, fmt.Sprintf("%s: new %q", k, v))
		}
	}
	return strings.Join(out, "; ")
}

// With the recorded tools and a live model after LiveFrom, only the live
// model's calls may run for real: a call of a recorded response that the
// recording cannot answer (a crafted one, approved from the recording) is
// refused, never run.
func TestRecordedToolsRunOnlyTheLiveModelsCalls(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, _, rec := recorded(t, e)
	p := replay.NewProvider(rec, replay.Options{LiveFrom: 2, Live: scripted(t, `{"turns": [{"text": "live"}]}`)})
	inner := &counting{Tools: e.reg}
	tl := replay.NewTools(rec, inner, replay.ToolsOptions{Provider: p, Live: true})
	env := tool.Env{RunID: "run_r", Workspace: t.TempDir()}
	ctx := context.Background()
	unrecorded := json.RawMessage(`{"path": "elsewhere.txt", "content": "x"}`)

	if _, err := p.Stream(ctx, llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Text: "fix the files"}}}, nil); err != nil {
		t.Fatal(err)
	}
	res, err := tl.Call(ctx, env, "write_file", unrecorded)
	if err != nil || res.Code != replay.CodeDiverged || inner.calls.Load() != 0 {
		t.Fatalf("a call of a recorded turn the recording cannot answer: %+v, %v, %d real calls", res, err, inner.calls.Load())
	}
	live := []llm.Message{{Role: llm.RoleUser, Text: "fix the files"}, {Role: llm.RoleAssistant, Text: "Let me start."}}
	if _, err := p.Stream(ctx, llm.Request{Messages: live}, nil); err != nil {
		t.Fatal(err)
	}
	if res, err := tl.Call(ctx, env, "write_file", unrecorded); err != nil || res.IsError || inner.calls.Load() != 1 {
		t.Errorf("the live model's call: %+v, %v, %d real calls; want it run", res, err, inner.calls.Load())
	}
}
