package run_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"steward/backend/agent"
	"steward/backend/event"
	"steward/backend/inbox"
	"steward/backend/llm"
	"steward/backend/llm/openai"
	"steward/backend/run"
	"steward/backend/store"
	"steward/backend/tool"
)

func TestScriptedRunCompletes(t *testing.T) {
	t.Parallel()
	rec := &recording{next: scripted(t, `{"turns": [
		{"text": "I will look around first.", "tool_calls": [
			{"name": "list_dir", "arguments": {"path": "."}},
			{"name": "read_file", "arguments": {"path": "hello.txt"}}], "usage": {"input_tokens": 120, "output_tokens": 30}},
		{"text": "hello.txt says: {{last_tool_output}}", "usage": {"input_tokens": 200, "output_tokens": 12}}
	]}`)}
	h := newHarness(t, fixed(rec))
	h.writeFile(t, "hello.txt", "Hello, Steward!\n")
	a := testAgent()

	created := h.start(t, a, "Summarise hello.txt")
	if created.Instructions != "Summarise hello.txt" || created.AgentName != "tester" || created.Model != "test-model" {
		t.Errorf("Start returned %+v", created)
	}
	r := h.waitEnd(t, created.ID, 5*time.Second)

	evs := h.events(t, r.ID)
	checkLog(t, evs)
	want := []string{
		"run.created",
		"run.status running",
		"start n1 agent",
		"start n2 user parent=n1",
		"finish n2 succeeded",
		"start n3 llm parent=n1 after=n2",
		"finish n3 succeeded",
		// The calls of one turn open together and are decided together,
		// then run in order.
		"start n4 tool list_dir parent=n3 after=n3",
		"start n5 tool read_file parent=n3 after=n3",
		"policy n4 allow",
		"policy n5 allow",
		"tool.executing",
		"finish n4 succeeded",
		"tool.executing",
		"finish n5 succeeded",
		"start n6 llm parent=n1 after=n4,n5",
		"finish n6 succeeded",
		"finish n1 succeeded",
		"run.status completed",
	}
	if diff := cmp.Diff(want, trace(t, evs)); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}

	// The streamed text of each model call adds up to its final text.
	deltas := map[string]string{}
	var usage event.Usage
	for _, ev := range evs {
		switch ev.Type {
		case event.LLMDelta:
			deltas[ev.NodeID] += decode[event.LLMDeltaData](t, ev).Text
		case event.NodeStarted:
			d := decode[event.NodeStartedData](t, ev)
			if d.Kind == event.KindUser && d.Text != "Summarise hello.txt" {
				t.Errorf("user node text = %q", d.Text)
			}
			if d.Kind == event.KindLLM && d.Model != "test-model" {
				t.Errorf("llm node %s model = %q", ev.NodeID, d.Model)
			}
		case event.NodeFinished:
			if u := decode[event.NodeFinishedData](t, ev).Usage; u != nil {
				usage.InputTokens += u.InputTokens
				usage.OutputTokens += u.OutputTokens
			}
		}
	}
	first, second := finished(t, evs, "n3"), finished(t, evs, "n6")
	if first.Text != "I will look around first." || deltas["n3"] != first.Text {
		t.Errorf("n3 text %q, deltas %q", first.Text, deltas["n3"])
	}
	if second.Text != "hello.txt says: Hello, Steward!" || deltas["n6"] != second.Text {
		t.Errorf("n6 text %q, deltas %q", second.Text, deltas["n6"])
	}
	if second.StopReason != llm.StopEnd || first.StopReason != llm.StopToolCalls {
		t.Errorf("stop reasons %q, %q", first.StopReason, second.StopReason)
	}
	wantCalls := []event.ToolCall{
		{ID: "call_1_0", Name: "list_dir", Arguments: json.RawMessage(`{"path":"."}`)},
		{ID: "call_1_1", Name: "read_file", Arguments: json.RawMessage(`{"path":"hello.txt"}`)},
	}
	if diff := cmp.Diff(wantCalls, first.ToolCalls); diff != "" {
		t.Errorf("n3 tool calls (-want +got):\n%s", diff)
	}
	if out := finished(t, evs, "n5").Output; out != "Hello, Steward!\n" {
		t.Errorf("read_file output = %q", out)
	}
	if out := finished(t, evs, "n4").Output; !strings.Contains(out, "hello.txt") {
		t.Errorf("list_dir output = %q, want it to list hello.txt", out)
	}

	// The projection agrees with the log.
	if r.Status != "completed" || r.Steps != 2 || r.Error != "" || r.LastSeq != int64(len(evs)) {
		t.Errorf("run = %+v", r)
	}
	if usage.InputTokens != 320 || usage.OutputTokens != 42 || r.InputTokens != usage.InputTokens || r.OutputTokens != usage.OutputTokens {
		t.Errorf("run usage in=%d out=%d, sum of nodes %+v", r.InputTokens, r.OutputTokens, usage)
	}
	nodes, edges, err := h.st.Graph(context.Background(), r.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		if n.Status != event.NodeSucceeded || n.FinishedAt == nil {
			t.Errorf("node %s: status %s, finished %v", n.ID, n.Status, n.FinishedAt)
		}
	}
	wantEdges := []store.Edge{
		{From: "n1", To: "n2", Kind: "parent"}, {From: "n1", To: "n3", Kind: "parent"}, {From: "n1", To: "n6", Kind: "parent"},
		{From: "n2", To: "n3", Kind: "after"},
		{From: "n3", To: "n4", Kind: "after"}, {From: "n3", To: "n4", Kind: "parent"},
		{From: "n3", To: "n5", Kind: "after"}, {From: "n3", To: "n5", Kind: "parent"},
		{From: "n4", To: "n6", Kind: "after"}, {From: "n5", To: "n6", Kind: "after"},
	}
	if diff := cmp.Diff(wantEdges, edges); diff != "" {
		t.Errorf("edges (-want +got):\n%s", diff)
	}

	// What the model was sent: the agent's prompt and tools, then the
	// conversation with each tool result right after its call.
	reqs := rec.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls, want 2", len(reqs))
	}
	var names []string
	for _, sp := range reqs[0].Tools {
		names = append(names, sp.Name)
	}
	if diff := cmp.Diff([]string{"list_dir", "read_file", "write_file"}, names); diff != "" {
		t.Errorf("tools offered (-want +got):\n%s", diff)
	}
	if reqs[0].System != a.SystemPrompt || reqs[0].Model != "test-model" {
		t.Errorf("request 1: system %q, model %q", reqs[0].System, reqs[0].Model)
	}
	var roles []string
	for _, m := range reqs[1].Messages {
		roles = append(roles, string(m.Role)+":"+m.ToolCallID)
	}
	if diff := cmp.Diff([]string{"user:", "assistant:", "tool:call_1_0", "tool:call_1_1"}, roles); diff != "" {
		t.Errorf("request 2 messages (-want +got):\n%s", diff)
	}
}

func TestApproval(t *testing.T) {
	t.Parallel()
	const writeScript = `{"turns": [
		{"text": "Writing.", "tool_calls": [{"name": "write_file", "arguments": {"path": "out.txt", "content": "hello"}}]},
		{"text": "Finished."}
	]}`

	t.Run("approve", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, fixed(scripted(t, writeScript)))
		r := h.start(t, testAgent(), "write out.txt")
		it := h.pending(t, r.ID)
		if it.Tool != "write_file" || it.NodeID != "n4" || it.Risk != string(tool.RiskWrite) || it.Kind != "approval" {
			t.Errorf("interaction = %+v", it)
		}
		if got := h.nodeStatus(t, r.ID)["n4"]; got != event.NodeWaiting {
			t.Errorf("tool node status while waiting = %q, want waiting", got)
		}
		if got, _ := h.st.GetRun(context.Background(), r.ID); got.PendingApprovals != 1 {
			t.Errorf("pending approvals = %d, want 1", got.PendingApprovals)
		}
		if _, err := os.Stat(filepath.Join(h.ws, "out.txt")); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("out.txt exists before the approval: %v", err)
		}

		ans, err := h.in.Answer(context.Background(), it.ID, inbox.Decision{Decision: "approve", Source: "web"})
		if err != nil {
			t.Fatalf("Answer: %v", err)
		}
		if ans.Status != "answered" || ans.Decision != "approve" || ans.Source != "web" {
			t.Errorf("answered interaction = %+v", ans)
		}
		end := h.waitEnd(t, r.ID, 5*time.Second)
		if end.Status != "completed" || end.PendingApprovals != 0 {
			t.Errorf("run = %+v", end)
		}
		b, err := os.ReadFile(filepath.Join(h.ws, "out.txt"))
		if err != nil || string(b) != "hello" {
			t.Errorf("out.txt = %q, %v", b, err)
		}
		evs := h.events(t, r.ID)
		checkLog(t, evs)
		want := []string{
			"run.created", "run.status running",
			"start n1 agent", "start n2 user parent=n1", "finish n2 succeeded",
			"start n3 llm parent=n1 after=n2", "finish n3 succeeded",
			"start n4 tool write_file parent=n3 after=n3",
			"policy n4 ask",
			"approval.requested n4 write_file",
			"run.status waiting",
			"approval.decided n4 approve",
			"run.status running",
			"tool.executing",
			"file.changed n4 out.txt", // the journal, before the node ends
			"finish n4 succeeded",
			"start n5 llm parent=n1 after=n4", "finish n5 succeeded",
			"finish n1 succeeded", "run.status completed",
		}
		if diff := cmp.Diff(want, trace(t, evs)); diff != "" {
			t.Errorf("events (-want +got):\n%s", diff)
		}

		// The first answer stands.
		_, err = h.in.Answer(context.Background(), it.ID, inbox.Decision{Decision: "deny"})
		if !errors.Is(err, inbox.ErrAnswered) {
			t.Errorf("second Answer: %v, want ErrAnswered", err)
		}
	})

	t.Run("deny with feedback", func(t *testing.T) {
		t.Parallel()
		rec := &recording{next: scripted(t, writeScript)}
		h := newHarness(t, fixed(rec))
		r := h.start(t, testAgent(), "write out.txt")
		it := h.pending(t, r.ID)
		const feedback = "Please write to notes.md instead."
		if _, err := h.in.Answer(context.Background(), it.ID, inbox.Decision{Decision: "deny", Feedback: feedback}); err != nil {
			t.Fatalf("Answer: %v", err)
		}
		end := h.waitEnd(t, r.ID, 5*time.Second)
		if end.Status != "completed" {
			t.Errorf("run = %+v", end)
		}
		if _, err := os.Stat(filepath.Join(h.ws, "out.txt")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("out.txt was written although denied: %v", err)
		}
		reqs := rec.requests()
		if len(reqs) != 2 {
			t.Fatalf("%d model calls, want 2", len(reqs))
		}
		m := toolMessage(t, reqs[1], "call_1_0")
		if !m.IsError || !strings.Contains(m.Text, feedback) || !strings.Contains(m.Text, "denied") {
			t.Errorf("tool message = %+v, want an error with the feedback", m)
		}
		evs := h.events(t, r.ID)
		checkLog(t, evs)
		if d := finished(t, evs, "n4"); d.Status != event.NodeDenied || !d.IsError || d.Code != "denied" || "error denied: "+d.Output != m.Text {
			t.Errorf("tool node finished %+v; the model got %q", d, m.Text)
		}
		got, err := h.st.GetInteraction(context.Background(), it.ID)
		if err != nil || got.Status != "answered" || got.Decision != "deny" || got.Feedback != feedback || got.Source != "api" {
			t.Errorf("interaction = %+v, %v", got, err)
		}
		_, err = h.in.Answer(context.Background(), it.ID, inbox.Decision{Decision: "approve"})
		if !errors.Is(err, inbox.ErrAnswered) {
			t.Errorf("second Answer: %v, want ErrAnswered", err)
		}
	})

	t.Run("bad answers", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, fixed(scripted(t, writeScript)))
		r := h.start(t, testAgent(), "write out.txt")
		it := h.pending(t, r.ID)
		tests := []struct {
			name string
			id   string
			d    inbox.Decision
			want error
		}{
			{"unknown id", "ia_nope", inbox.Decision{Decision: "approve"}, inbox.ErrNotFound},
			{"decision maybe", it.ID, inbox.Decision{Decision: "maybe"}, inbox.ErrInvalid},
			{"empty decision", it.ID, inbox.Decision{}, inbox.ErrInvalid},
			{"approve with feedback", it.ID, inbox.Decision{Decision: "approve", Feedback: "ok"}, inbox.ErrInvalid},
		}
		for _, tt := range tests {
			if _, err := h.in.Answer(context.Background(), tt.id, tt.d); !errors.Is(err, tt.want) {
				t.Errorf("%s: Answer error = %v, want %v", tt.name, err, tt.want)
			}
		}
		// None of them decided anything: the run still waits.
		if got := h.pending(t, r.ID); got.Status != "pending" {
			t.Errorf("interaction = %+v", got)
		}
		if _, err := h.in.Answer(context.Background(), it.ID, inbox.Decision{Decision: "approve"}); err != nil {
			t.Fatal(err)
		}
		if end := h.waitEnd(t, r.ID, 5*time.Second); end.Status != "completed" {
			t.Errorf("run = %+v", end)
		}
	})
}

func TestBadToolCalls(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		tools []string // of the agent; the file tools when empty
		call  string   // the one tool call of turn 1
		want  string   // in what the model is told
	}{
		{"missing required field", nil, `{"name": "write_file", "arguments": {"path": "a.txt"}}`,
			`arguments of write_file do not match its schema: validating root: required: missing properties: ["content"]`},
		{"extra field", nil, `{"name": "read_file", "arguments": {"path": "a.txt", "mode": "fast"}}`,
			`arguments of read_file do not match its schema: validating root: unexpected additional properties ["mode"]`},
		{"wrong type", nil, `{"name": "read_file", "arguments": {"path": 7}}`,
			`arguments of read_file do not match its schema: validating root: validating /properties/path`},
		{"unknown tool", nil, `{"name": "delete_everything", "arguments": {}}`,
			`unknown tool "delete_everything"; this agent can use: [list_dir read_file write_file]`},
		{"tool not in the agent's list", []string{"list_dir", "read_file"}, `{"name": "write_file", "arguments": {"path": "a.txt", "content": "x"}}`,
			`unknown tool "write_file"; this agent can use: [list_dir read_file]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := &recording{next: scripted(t, `{"turns": [{"tool_calls": [`+tt.call+`]}, {"text": "Sorry."}]}`)}
			h := newHarness(t, fixed(rec))
			h.writeFile(t, "a.txt", "A\n")
			r := h.start(t, testAgent(tt.tools...), "do it")
			end := h.waitEnd(t, r.ID, 5*time.Second)
			if end.Status != "completed" || end.Steps != 2 {
				t.Errorf("run = %+v", end)
			}
			evs := h.events(t, r.ID)
			checkLog(t, evs)
			for _, ev := range evs {
				// Checks come before the policy: nothing was decided or asked.
				if ev.Type == event.PolicyDecided || ev.Type == event.ApprovalRequested {
					t.Errorf("unexpected %s for a call that failed its checks", ev.Type)
				}
			}
			d := finished(t, evs, "n4")
			if d.Status != event.NodeFailed || !d.IsError || !strings.Contains(d.Output, tt.want) {
				t.Errorf("tool node finished %+v, want failed with %q", d, tt.want)
			}
			reqs := rec.requests()
			if len(reqs) != 2 {
				t.Fatalf("%d model calls, want 2", len(reqs))
			}
			m := toolMessage(t, reqs[1], "call_1_0")
			if d.Code == "" || !m.IsError || m.Text != "error "+d.Code+": "+d.Output {
				t.Errorf("tool message %+v, want the node's code %q and error output %q", m, d.Code, d.Output)
			}
			if b, _ := os.ReadFile(filepath.Join(h.ws, "a.txt")); string(b) != "A\n" {
				t.Errorf("a.txt changed to %q", b)
			}
		})
	}
}

func TestModelFailure(t *testing.T) {
	t.Parallel()
	openaiModel := func(base string) *models {
		return &models{resolve: func(context.Context, agent.Agent) (run.Model, error) {
			return run.Model{Provider: openai.New(openai.Config{BaseURL: base, APIKey: "x", Model: "m"}), Name: "openai", Model: "m"}, nil
		}}
	}
	check := func(t *testing.T, h *harness, id string, want ...string) {
		t.Helper()
		end := h.waitEnd(t, id, 10*time.Second)
		evs := h.events(t, id)
		checkLog(t, evs)
		st := lastStatus(t, evs)
		if end.Status != "failed" || st.Status != "failed" || end.Error != st.Error {
			t.Errorf("run = %+v, last status %+v", end, st)
		}
		llmNode := finished(t, evs, "n3")
		if llmNode.Status != event.NodeFailed || finished(t, evs, "n1").Status != event.NodeFailed {
			t.Errorf("llm node %+v, root %+v", llmNode, finished(t, evs, "n1"))
		}
		for _, w := range want {
			if !strings.Contains(st.Error, w) || !strings.Contains(llmNode.Error, w) {
				t.Errorf("run error %q and node error %q, want both to contain %q", st.Error, llmNode.Error, w)
			}
		}
	}

	t.Run("unreachable", func(t *testing.T) {
		t.Parallel()
		// Port 1 refuses connections.
		h := newHarness(t, openaiModel("http://127.0.0.1:1/v1"))
		r := h.start(t, testAgent(), "hello")
		check(t, h, r.ID, "cannot reach", "http://127.0.0.1:1/v1")
	})

	t.Run("server error", func(t *testing.T) {
		t.Parallel()
		const msg = "The server had an error while processing your request."
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = w.Write([]byte(`{"error":{"message":"` + msg + `","type":"server_error"}}`))
		}))
		t.Cleanup(srv.Close)
		h := newHarness(t, openaiModel(srv.URL+"/v1"))
		r := h.start(t, testAgent(), "hello")
		check(t, h, r.ID, msg, "500")
	})

	t.Run("provider error", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, fixed(&provider{stream: func(context.Context, llm.Request, func(llm.Delta)) (*llm.Response, error) {
			return nil, &llm.Error{Kind: llm.ErrAuth, StatusCode: 401, Message: "Incorrect API key provided."}
		}}))
		r := h.start(t, testAgent(), "hello")
		check(t, h, r.ID, "Incorrect API key provided.")
	})
}
