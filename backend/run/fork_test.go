package run_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"steward/backend/event"
	"steward/backend/llm"
	"steward/backend/run"
	"steward/backend/store"
	"steward/backend/tool"
)

// interruptedResult is what the model reads for a call that has no recorded
// result in the conversation it is sent.
const interruptedResult = "error interrupted: no result was recorded for this call; its outcome is unknown"

func TestFork(t *testing.T) {
	t.Parallel()
	rec := &recording{next: scripted(t, `{"turns": [
		{"text": "Looking.", "tool_calls": [
			{"name": "list_dir", "arguments": {"path": "."}},
			{"name": "read_file", "arguments": {"path": "hello.txt"}}]},
		{"text": "Done: {{last_tool_output}}"}
	]}`)}
	h := newHarness(t, fixed(rec))
	h.writeFile(t, "hello.txt", "Hello!")
	src := h.start(t, testAgent(), "Summarise hello.txt")
	if end := h.waitEnd(t, src.ID, 5*time.Second); end.Status != string(run.Completed) {
		t.Fatalf("source run = %+v", end)
	}
	srcEvents := h.events(t, src.ID)
	checkLog(t, srcEvents)
	listing := finished(t, srcEvents, "n4").Output
	user := llm.Message{Role: llm.RoleUser, Text: "Summarise hello.txt"}
	asked := llm.Message{Role: llm.RoleAssistant, Text: "Looking.", ToolCalls: []llm.ToolCall{
		{ID: "call_1_0", Name: "list_dir", Arguments: json.RawMessage(`{"path":"."}`)},
		{ID: "call_1_1", Name: "read_file", Arguments: json.RawMessage(`{"path":"hello.txt"}`)},
	}}
	synthesized := func(id string) llm.Message {
		return llm.Message{Role: llm.RoleTool, ToolCallID: id, IsError: true, Text: interruptedResult}
	}

	// Sequential: each fork's model request is the next one recorded.
	tests := []struct {
		name string
		node string
		want []llm.Message // the fork's first model request
	}{
		{"from the first model call", "n3", []llm.Message{user, asked, synthesized("call_1_0"), synthesized("call_1_1")}},
		{"from the first tool call", "n4", []llm.Message{user, asked,
			{Role: llm.RoleTool, ToolCallID: "call_1_0", Text: listing}, synthesized("call_1_1")}},
		{"from the instructions", "n2", []llm.Message{user}},
		{"from the last model call", "n6", []llm.Message{user, asked,
			{Role: llm.RoleTool, ToolCallID: "call_1_0", Text: listing},
			{Role: llm.RoleTool, ToolCallID: "call_1_1", Text: "Hello!"},
			{Role: llm.RoleAssistant, Text: "Done: Hello!"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := h.command(t, src.ID, run.Command{CommandID: "fork-" + tt.node, Type: run.CmdFork, NodeID: tt.node})
			if res.Status != "accepted" || res.Fork == "" || res.Fork == src.ID {
				t.Fatalf("fork = %+v", res)
			}
			f := h.waitRun(t, res.Fork, 0, run.Paused, "forked from "+src.ID+" at "+tt.node)
			if f.ForkedFrom != src.ID || f.Instructions != src.Instructions || f.AgentName != src.AgentName {
				t.Errorf("fork = %+v", f)
			}
			if diff := cmp.Diff(modelNext, nextOf(t, f)); diff != "" {
				t.Errorf("fork's next (-want +got):\n%s", diff)
			}

			// The source records the fork, and its graph links the node to
			// the new run.
			var link *event.RunForkedData
			for _, ev := range h.events(t, src.ID) {
				if ev.Type == event.RunForked {
					if d := decode[event.RunForkedData](t, ev); d.Fork == res.Fork {
						link = &d
					}
				}
			}
			if link == nil || link.NodeID != tt.node {
				t.Errorf("run.forked in the source = %+v, want node %s", link, tt.node)
			}
			_, edges, err := h.st.Graph(context.Background(), src.ID)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(edges, store.Edge{From: tt.node, To: "run:" + res.Fork, Kind: "fork"}) {
				t.Errorf("source edges %v lack the fork edge from %s", edges, tt.node)
			}

			// The fork's first model call continues the conversation up to
			// the node, repaired.
			n := len(rec.requests())
			h.accept(t, res.Fork, cmd(run.CmdContinue))
			if end := h.waitEnd(t, res.Fork, 5*time.Second); end.Status != string(run.Completed) {
				t.Fatalf("fork = %+v", end)
			}
			reqs := rec.requests()
			if len(reqs) <= n {
				t.Fatalf("the fork made no model call")
			}
			if diff := cmp.Diff(tt.want, reqs[n].Messages, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("fork's first request (-want +got):\n%s", diff)
			}
			evs := h.events(t, res.Fork)
			checkLog(t, evs)
			created := decode[event.RunCreatedData](t, evs[0])
			if created.ForkedFrom == nil || *created.ForkedFrom != (event.NodeRef{RunID: src.ID, NodeID: tt.node}) || len(created.History) != len(tt.want) {
				t.Errorf("fork's run.created: forked_from %+v, %d history messages", created.ForkedFrom, len(created.History))
			}
		})
	}

	// The source's own log is untouched but for the run.forked events, which
	// come after its end.
	var own []event.Event
	for _, ev := range h.events(t, src.ID) {
		if ev.Type != event.RunForked {
			own = append(own, ev)
		}
	}
	if diff := cmp.Diff(srcEvents, own); diff != "" {
		t.Errorf("source log changed (-before +after):\n%s", diff)
	}
}

// TestForkRejected: a fork needs a node that finished.
func TestForkRejected(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := newHeldModel(scripted(t, `{"turns": [{"text": "Done."}]}`), 1)
	h := newHarness(t, fixed(m), newGate().tool())
	live := h.start(t, testAgent(), "go")
	await(t, m.entered, "the model call")

	done := h.start(t, testAgent(), "go") // model call 2: not held
	h.waitEnd(t, done.ID, 5*time.Second)

	crash := crashedRun(t, h, "run_crashed", testAgent("gate"), "go")
	c := event.ToolCall{ID: "call_1_0", Name: "gate", Arguments: json.RawMessage(`{}`)}
	crash.model("n3", 1, []string{"n2"}, "", c)
	crash.toolStarted("n4", "n3", c, tool.RiskRead, "allow")
	crash.add(event.ToolExecuting, "n4", event.ToolExecutingData{})
	h.recoverOne(t)
	h.waitRun(t, crash.run, 0, run.Paused, "interrupted")

	tests := []struct {
		name, run, node, msg string
	}{
		{"a model call in flight", live.ID, "n3", "has not finished"},
		{"the running run itself", live.ID, "n1", "has not finished"},
		{"an unknown node", live.ID, "n99", "has not finished (or does not exist)"},
		{"the ended run itself", done.ID, "n1", "is the run itself"},
		{"an interrupted call", crash.run, "n4", "was interrupted"},
	}
	for _, tt := range tests {
		res := h.command(t, tt.run, run.Command{CommandID: "f-" + tt.name, Type: run.CmdFork, NodeID: tt.node})
		if res.Status != "rejected" || res.Code != run.CodeInvalidState || !strings.Contains(res.Message, tt.msg) || res.Fork != "" {
			t.Errorf("%s: fork = %+v, want invalid_state saying %q", tt.name, res, tt.msg)
		}
	}
	if _, err := h.svc.Command(ctx, done.ID, run.Command{CommandID: "f-none", Type: run.CmdFork}); !errors.Is(err, run.ErrInvalid) {
		t.Errorf("fork without node_id: %v, want ErrInvalid", err)
	}
	// No fork was made or recorded.
	runs, err := h.st.ListRuns(ctx, store.RunFilter{})
	if err != nil || len(runs) != 3 {
		t.Errorf("%d runs (%v), want the 3 of the test", len(runs), err)
	}
	for _, id := range []string{live.ID, done.ID, crash.run} {
		if n := countType(h.events(t, id), event.RunForked); n != 0 {
			t.Errorf("run %s has %d run.forked events", id, n)
		}
	}
	m.release <- struct{}{}
	h.waitEnd(t, live.ID, 5*time.Second)
}
