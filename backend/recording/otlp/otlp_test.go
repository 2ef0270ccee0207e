package otlp

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"steward/backend/event"
)

const t0 = int64(1_760_000_000_000) // unix ms of the scripted run's first event

// script builds a run's log from the real payload structs, with dense seqs
// and timestamps that advance by dt ms per event.
type script struct {
	run    string
	ts     int64
	events []event.Event
}

func (s *script) add(dt int64, typ event.Type, node string, data any) int64 {
	s.ts += dt
	e := event.New(s.run, typ, node, data)
	e.Seq, e.TS = int64(len(s.events)+1), s.ts
	s.events = append(s.events, e)
	return s.ts
}

// times records when the scripted run's nodes started and ended.
type times map[string][2]int64

// scriptedRun is a realistic run: instructions, a model call retried once
// that asks for three tools in one turn (one runs, one is approved and
// fails, one is denied), and a second model call that answers.
func scriptedRun() ([]event.Event, times) {
	s := &script{run: "run_1", ts: t0 - 10}
	tm := times{}
	spec, _ := json.Marshal(map[string]any{"name": "coder", "description": "Fixes failing tests", "system_prompt": "You are careful."})
	start := s.add(10, event.RunCreated, "", event.RunCreatedData{
		Agent:        event.AgentRef{ID: "agent_7", Name: "coder", Provider: "anthropic", Model: "claude-sonnet-4-5"},
		Instructions: "Fix the failing test in ./calc", Workspace: "/home/ada/calc", Mode: "build", MaxSteps: 20, Spec: spec,
	})
	s.add(1, event.NodeStarted, "n1", event.NodeStartedData{Kind: event.KindAgent, Label: "coder"})
	s.add(1, event.NodeStarted, "n2", event.NodeStartedData{Kind: event.KindUser, Parent: "n1", Label: "instructions", Text: "Fix the failing test in ./calc"})
	s.add(0, event.NodeFinished, "n2", event.NodeFinishedData{Status: event.NodeSucceeded})
	s.add(1, event.RunStatus, "", event.RunStatusData{Status: "running"})

	a := s.add(5, event.NodeStarted, "n3", event.NodeStartedData{Kind: event.KindLLM, Parent: "n1", After: []string{"n2"}, Label: "model call 1", Step: 1, Model: "claude-sonnet-4-5"})
	s.add(300, event.LLMAttempt, "n3", event.LLMAttemptData{Attempt: 1, Kind: "rate_limited", Error: "anthropic: 429 rate limited", RetryInMS: 2000})
	s.add(2000, event.LLMDelta, "n3", event.LLMDeltaData{Text: "Let me look."})
	calls := []event.ToolCall{
		{ID: "call_a", Name: "read_file", Arguments: json.RawMessage(`{"path":"calc.go"}`)},
		{ID: "call_b", Name: "run_command", Arguments: json.RawMessage(`{"command":"go test ./..."}`)},
		{ID: "call_c", Name: "write_file", Arguments: json.RawMessage(`{"path":"/etc/hosts"}`)},
	}
	b := s.add(900, event.NodeFinished, "n3", event.NodeFinishedData{Status: event.NodeSucceeded, Text: "Let me look.", ToolCalls: calls,
		StopReason: "tool_calls", Model: "claude-sonnet-4-5-20250929", Usage: &event.Usage{InputTokens: 1200, OutputTokens: 80, CachedTokens: 1000}, DurationMS: 3200, CostUSD: 0.0125})
	tm["n3"] = [2]int64{a, b}

	ta := s.add(2, event.NodeStarted, "n4", event.NodeStartedData{Kind: event.KindTool, Parent: "n3", After: []string{"n3"}, Label: "read_file", Tool: "read_file", CallID: "call_a", Arguments: calls[0].Arguments, Risk: "read"})
	tb := s.add(0, event.NodeStarted, "n5", event.NodeStartedData{Kind: event.KindTool, Parent: "n3", After: []string{"n3"}, Label: "run_command", Tool: "run_command", CallID: "call_b", Arguments: calls[1].Arguments, Risk: "exec"})
	tc := s.add(0, event.NodeStarted, "n6", event.NodeStartedData{Kind: event.KindTool, Parent: "n3", After: []string{"n3"}, Label: "write_file", Tool: "write_file", CallID: "call_c", Arguments: calls[2].Arguments, Risk: "write"})
	s.add(1, event.PolicyDecided, "n4", event.PolicyDecidedData{Effect: "allow", Reason: "read tools are allowed"})
	s.add(1, event.ToolExecuting, "n4", event.ToolExecutingData{})
	tm["n4"] = [2]int64{ta, s.add(20, event.NodeFinished, "n4", event.NodeFinishedData{Status: event.NodeSucceeded, Output: "package calc\n\nfunc Add(a, b int) int { return a - b }", DurationMS: 22})}
	s.add(1, event.PolicyDecided, "n5", event.PolicyDecidedData{Effect: "ask", Reason: "commands need approval"})
	s.add(0, event.ApprovalRequested, "n5", event.ApprovalRequestedData{InteractionID: "ia_1", Tool: "run_command", Arguments: calls[1].Arguments, Risk: "exec", Reason: "commands need approval", Group: "n3", GroupSize: 2})
	s.add(1, event.PolicyDecided, "n6", event.PolicyDecidedData{Effect: "ask", Reason: "writes outside the workspace need approval"})
	s.add(0, event.ApprovalRequested, "n6", event.ApprovalRequestedData{InteractionID: "ia_2", Tool: "write_file", Arguments: calls[2].Arguments, Risk: "write", Reason: "outside the workspace", Group: "n3", GroupSize: 2})
	s.add(4000, event.ApprovalDecided, "n5", event.ApprovalDecidedData{InteractionID: "ia_1", Decision: event.DecisionApprove, Source: "web", Scope: "run", GrantID: "grant_1"})
	s.add(1, event.ToolExecuting, "n5", event.ToolExecutingData{})
	s.add(500, event.FileChanged, "n5", event.FileChangedData{Path: "calc_test.out", After: strings.Repeat("a", 64), Size: 120, Source: event.FileByCommand, Op: "n5"})
	tm["n5"] = [2]int64{tb, s.add(700, event.NodeFinished, "n5", event.NodeFinishedData{Status: event.NodeFailed, Output: "exit status 1\n--- FAIL: TestAdd", IsError: true, Code: "command_failed", DurationMS: 5201})}
	s.add(3000, event.ApprovalDecided, "n6", event.ApprovalDecidedData{InteractionID: "ia_2", Decision: event.DecisionDeny, Feedback: "never touch /etc", Source: "cli"})
	tm["n6"] = [2]int64{tc, s.add(1, event.NodeFinished, "n6", event.NodeFinishedData{Status: event.NodeDenied, Output: "denied by the user: never touch /etc", IsError: true, Code: "denied", DurationMS: 9203})}

	a = s.add(5, event.NodeStarted, "n7", event.NodeStartedData{Kind: event.KindLLM, Parent: "n1", After: []string{"n4", "n5", "n6"}, Label: "model call 2", Step: 2, Model: "claude-sonnet-4-5"})
	b = s.add(1500, event.NodeFinished, "n7", event.NodeFinishedData{Status: event.NodeSucceeded, Text: "Add subtracts; it should add.", StopReason: "end_turn",
		Usage: &event.Usage{InputTokens: 2000, OutputTokens: 50}, DurationMS: 1500, CostUSD: 0.0075})
	tm["n7"] = [2]int64{a, b}
	s.add(1, event.NodeFinished, "n1", event.NodeFinishedData{Status: event.NodeSucceeded})
	tm["n1"] = [2]int64{start, s.add(1, event.RunStatus, "", event.RunStatusData{Status: "completed"})}
	return s.events, tm
}

func decodeRequest(t *testing.T, b []byte) exportRequest {
	t.Helper()
	var req exportRequest
	if err := json.Unmarshal(b, &req); err != nil {
		t.Fatalf("decode: %v\n%s", err, b)
	}
	if len(req.ResourceSpans) != 1 || len(req.ResourceSpans[0].ScopeSpans) != 1 {
		t.Fatalf("want one resource and one scope, got %s", b)
	}
	return req
}

func spansOf(req exportRequest) []span { return req.ResourceSpans[0].ScopeSpans[0].Spans }

func find(t *testing.T, spans []span, run, node string) span {
	t.Helper()
	id := spanID(run, node)
	for _, s := range spans {
		if s.SpanID == id {
			return s
		}
	}
	t.Fatalf("no span for node %s", node)
	return span{}
}

// value renders an attribute's value as text ("" when absent), so tests
// compare one string whatever the type.
func value(kvs []keyValue, key string) string {
	for _, kv := range kvs {
		if kv.Key != key {
			continue
		}
		v := kv.Value
		switch {
		case v.StringValue != nil:
			return *v.StringValue
		case v.IntValue != nil:
			return strconv.FormatInt(int64(*v.IntValue), 10)
		case v.DoubleValue != nil:
			return strconv.FormatFloat(*v.DoubleValue, 'f', -1, 64)
		case v.BoolValue != nil:
			return strconv.FormatBool(*v.BoolValue)
		case v.ArrayValue != nil:
			var parts []string
			for _, x := range v.ArrayValue.Values {
				parts = append(parts, *x.StringValue)
			}
			return "[" + strings.Join(parts, ",") + "]"
		}
	}
	return ""
}

func eventNamed(t *testing.T, s span, name string) spanEvent {
	t.Helper()
	for _, e := range s.Events {
		if e.Name == name {
			return e
		}
	}
	t.Fatalf("span %s has no event %s", s.Name, name)
	return spanEvent{}
}

func TestTracesScriptedRun(t *testing.T) {
	t.Parallel()
	events, tm := scriptedRun()
	out, err := Traces("run_1", events, Options{StewardVersion: "0.9.0"})
	if err != nil {
		t.Fatal(err)
	}
	req := decodeRequest(t, out)
	rs := req.ResourceSpans[0]
	for k, want := range map[string]string{"service.name": "steward", "service.version": "0.9.0", "steward.run.id": "run_1"} {
		if got := value(rs.Resource.Attributes, k); got != want {
			t.Errorf("resource %s = %q, want %q", k, got, want)
		}
	}
	spans := spansOf(req)
	if len(spans) != 6 {
		t.Fatalf("got %d spans, want 6 (run, 2 model calls, 3 tool calls)", len(spans))
	}
	trace := hexSHA("steward-trace:run_1", 16)
	root := find(t, spans, "run_1", "n1")
	for _, s := range spans {
		if s.TraceID != trace {
			t.Errorf("span %s trace %s, want %s", s.Name, s.TraceID, trace)
		}
	}

	type want struct {
		node, name, parent string
		kind               int
		attrs              map[string]string
	}
	for _, w := range []want{
		{"n1", "invoke_agent coder", "", kindInternal, map[string]string{
			"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "coder", "gen_ai.agent.id": "agent_7",
			"gen_ai.agent.description": "Fixes failing tests", "gen_ai.provider.name": "anthropic", "gen_ai.request.model": "claude-sonnet-4-5",
			"gen_ai.conversation.id": "run_1", "gen_ai.usage.input_tokens": "3200", "gen_ai.usage.output_tokens": "130",
			"gen_ai.usage.cache_read.input_tokens": "1000", "steward.cost_usd": "0.02", "steward.run.status": "completed",
			"steward.node.status": "succeeded", "steward.incomplete": "", "gen_ai.system_instructions": "",
		}},
		{"n3", "chat claude-sonnet-4-5", "n1", kindClient, map[string]string{
			"gen_ai.operation.name": "chat", "gen_ai.provider.name": "anthropic", "gen_ai.request.model": "claude-sonnet-4-5",
			"gen_ai.usage.input_tokens": "1200", "gen_ai.usage.output_tokens": "80", "gen_ai.usage.cache_read.input_tokens": "1000",
			"gen_ai.response.finish_reasons": "[tool_calls]", "gen_ai.response.model": "claude-sonnet-4-5-20250929", "steward.cost_usd": "0.0125", "steward.tool_calls": "3", "steward.step": "1",
			"gen_ai.input.messages": "", "gen_ai.output.messages": "",
		}},
		{"n7", "chat claude-sonnet-4-5", "n1", kindClient, map[string]string{
			"gen_ai.usage.input_tokens": "2000", "gen_ai.response.finish_reasons": "[end_turn]", "steward.step": "2", "gen_ai.response.model": "",
		}},
		{"n4", "execute_tool read_file", "n3", kindInternal, map[string]string{
			"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "read_file", "gen_ai.tool.call.id": "call_a",
			"gen_ai.tool.type": "function", "steward.node.status": "succeeded", "steward.tool.risk": "read",
			"gen_ai.tool.call.arguments": "", "gen_ai.tool.call.result": "", "error.type": "",
		}},
		{"n5", "execute_tool run_command", "n3", kindInternal, map[string]string{
			"gen_ai.tool.call.id": "call_b", "steward.node.status": "failed", "error.type": "command_failed", "steward.tool.code": "command_failed",
		}},
		{"n6", "execute_tool write_file", "n3", kindInternal, map[string]string{
			"gen_ai.tool.call.id": "call_c", "steward.node.status": "denied", "steward.tool.denied": "true", "error.type": "",
		}},
	} {
		s := find(t, spans, "run_1", w.node)
		if s.Name != w.name || s.Kind != w.kind {
			t.Errorf("%s: name %q kind %d, want %q kind %d", w.node, s.Name, s.Kind, w.name, w.kind)
		}
		wantParent := ""
		if w.parent != "" {
			wantParent = hexSHA("run_1/"+w.parent, 8)
		}
		if s.ParentSpanID != wantParent {
			t.Errorf("%s: parent %q, want %q (node %s)", w.node, s.ParentSpanID, wantParent, w.parent)
		}
		if s.SpanID != hexSHA("run_1/"+w.node, 8) {
			t.Errorf("%s: span id %s is not derived from run and node", w.node, s.SpanID)
		}
		if tt := tm[w.node]; int64(s.StartTimeUnixNano) != tt[0]*1e6 || int64(s.EndTimeUnixNano) != tt[1]*1e6 {
			t.Errorf("%s: times %d..%d, want %d..%d", w.node, s.StartTimeUnixNano, s.EndTimeUnixNano, tt[0]*1e6, tt[1]*1e6)
		}
		for k, v := range w.attrs {
			if got := value(s.Attributes, k); got != v {
				t.Errorf("%s: %s = %q, want %q", w.node, k, got, v)
			}
		}
	}

	if st := find(t, spans, "run_1", "n5").Status; st == nil || st.Code != statusError || st.Message != "run_command failed: command_failed" {
		t.Errorf("failed tool status = %+v, want ERROR with the code (no output without content)", st)
	}
	for _, n := range []string{"n1", "n3", "n4", "n6", "n7"} {
		if st := find(t, spans, "run_1", n).Status; st != nil {
			t.Errorf("%s: status %+v, want unset", n, st)
		}
	}

	retry := eventNamed(t, find(t, spans, "run_1", "n3"), "steward.llm.retry")
	if value(retry.Attributes, "steward.attempt") != "1" || value(retry.Attributes, "error.type") != "rate_limited" ||
		value(retry.Attributes, "steward.retry_in_ms") != "2000" || int64(retry.TimeUnixNano) != (tm["n3"][0]+300)*1e6 {
		t.Errorf("retry event = %+v", retry)
	}
	n6 := find(t, spans, "run_1", "n6")
	var names []string
	for _, e := range n6.Events {
		names = append(names, e.Name)
	}
	if d := cmp.Diff([]string{"steward.policy.decided", "steward.approval.requested", "steward.approval.decided"}, names); d != "" {
		t.Errorf("denied tool events (-want +got):\n%s", d)
	}
	denied := eventNamed(t, n6, "steward.approval.decided")
	if value(denied.Attributes, "steward.approval.decision") != "deny" || value(denied.Attributes, "steward.approval.source") != "cli" ||
		value(denied.Attributes, "steward.approval.feedback") != "" {
		t.Errorf("deny event = %+v, want decision and who, no feedback without content", denied.Attributes)
	}
	n5 := find(t, spans, "run_1", "n5")
	approved := eventNamed(t, n5, "steward.approval.decided")
	if value(approved.Attributes, "steward.approval.scope") != "run" || value(approved.Attributes, "steward.approval.grant_id") != "grant_1" {
		t.Errorf("approve event = %+v", approved.Attributes)
	}
	if v := value(eventNamed(t, n5, "steward.approval.requested").Attributes, "steward.approval.group_size"); v != "2" {
		t.Errorf("group size %q", v)
	}
	if v := value(eventNamed(t, n5, "steward.file.changed").Attributes, "steward.file.path"); v != "calc_test.out" {
		t.Errorf("file change path %q", v)
	}
	user := eventNamed(t, root, "steward.user.instructions")
	if value(user.Attributes, "steward.node.id") != "n2" || value(user.Attributes, "steward.text") != "" {
		t.Errorf("instructions event = %+v, want the node and no text without content", user.Attributes)
	}

	// Without content, nothing that was said leaves.
	for _, secret := range []string{"Fix the failing", "package calc", "never touch", "go test", "You are careful", "Let me look", "subtracts"} {
		if strings.Contains(string(out), secret) {
			t.Errorf("content %q is in the trace without IncludeContent", secret)
		}
	}
}

func TestTracesContent(t *testing.T) {
	t.Parallel()
	events, _ := scriptedRun()
	out, err := Traces("run_1", events, Options{IncludeContent: true})
	if err != nil {
		t.Fatal(err)
	}
	spans := spansOf(decodeRequest(t, out))
	n3, n7 := find(t, spans, "run_1", "n3"), find(t, spans, "run_1", "n7")

	var in1, in2, out1 []message
	for _, c := range []struct {
		s   span
		key string
		v   *[]message
	}{{n3, "gen_ai.input.messages", &in1}, {n7, "gen_ai.input.messages", &in2}, {n3, "gen_ai.output.messages", &out1}} {
		if err := json.Unmarshal([]byte(value(c.s.Attributes, c.key)), c.v); err != nil {
			t.Fatalf("%s of %s: %v", c.key, c.s.Name, err)
		}
	}
	resp := func(s string) *string { return &s }
	if d := cmp.Diff([]message{{Role: "user", Parts: []part{{Type: "text", Content: "Fix the failing test in ./calc"}}}}, in1); d != "" {
		t.Errorf("first call's input (-want +got):\n%s", d)
	}
	assistant := message{Role: "assistant", FinishReason: "tool_calls", Parts: []part{
		{Type: "text", Content: "Let me look."},
		{Type: "tool_call", ID: "call_a", Name: "read_file", Arguments: json.RawMessage(`{"path":"calc.go"}`)},
		{Type: "tool_call", ID: "call_b", Name: "run_command", Arguments: json.RawMessage(`{"command":"go test ./..."}`)},
		{Type: "tool_call", ID: "call_c", Name: "write_file", Arguments: json.RawMessage(`{"path":"/etc/hosts"}`)},
	}}
	if d := cmp.Diff([]message{assistant}, out1); d != "" {
		t.Errorf("first call's output (-want +got):\n%s", d)
	}
	wantIn2 := append(in1, assistant,
		message{Role: "tool", Parts: []part{{Type: "tool_call_response", ID: "call_a", Response: resp("package calc\n\nfunc Add(a, b int) int { return a - b }")}}},
		message{Role: "tool", Parts: []part{{Type: "tool_call_response", ID: "call_b", Response: resp("exit status 1\n--- FAIL: TestAdd")}}},
		message{Role: "tool", Parts: []part{{Type: "tool_call_response", ID: "call_c", Response: resp("denied by the user: never touch /etc")}}},
	)
	if d := cmp.Diff(wantIn2, in2); d != "" {
		t.Errorf("second call's input (-want +got):\n%s", d)
	}

	n4, n5 := find(t, spans, "run_1", "n4"), find(t, spans, "run_1", "n5")
	if v := value(n4.Attributes, "gen_ai.tool.call.arguments"); v != `{"path":"calc.go"}` {
		t.Errorf("tool arguments %q", v)
	}
	if v := value(n4.Attributes, "gen_ai.tool.call.result"); !strings.HasPrefix(v, "package calc") {
		t.Errorf("tool result %q", v)
	}
	if n5.Status == nil || n5.Status.Message != "exit status 1" {
		t.Errorf("failed tool status %+v, want the output's first line", n5.Status)
	}
	root := find(t, spans, "run_1", "n1")
	if v := value(root.Attributes, "gen_ai.system_instructions"); v != `[{"type":"text","content":"You are careful."}]` {
		t.Errorf("system instructions %q", v)
	}
	if v := value(eventNamed(t, root, "steward.user.instructions").Attributes, "steward.text"); v != "Fix the failing test in ./calc" {
		t.Errorf("instructions text %q", v)
	}
	if v := value(eventNamed(t, find(t, spans, "run_1", "n6"), "steward.approval.decided").Attributes, "steward.approval.feedback"); v != "never touch /etc" {
		t.Errorf("deny feedback %q", v)
	}
}

// forkedRun is a fork that retried an interrupted call and is paused,
// waiting for approval, when the log ends.
func forkedRun() (events []event.Event, llmStart, last int64) {
	s := &script{run: "run_2", ts: t0}
	s.add(0, event.RunCreated, "", event.RunCreatedData{Agent: event.AgentRef{Name: "coder", Provider: "script", Model: "demo-script"},
		ForkedFrom: &event.NodeRef{RunID: "run_1", NodeID: "n3"}})
	s.add(1, event.NodeStarted, "n1", event.NodeStartedData{Kind: event.KindAgent, Label: "coder (fork of run_1 at n3)"})
	llmStart = s.add(1, event.NodeStarted, "n2", event.NodeStartedData{Kind: event.KindLLM, Parent: "n1", Step: 1})
	s.add(10, event.NodeFinished, "n2", event.NodeFinishedData{Status: event.NodeSucceeded, ToolCalls: []event.ToolCall{{ID: "c1", Name: "run_command"}}})
	s.add(1, event.NodeStarted, "n3", event.NodeStartedData{Kind: event.KindTool, Parent: "n2", Tool: "run_command", CallID: "c1"})
	s.add(1, event.ToolExecuting, "n3", event.ToolExecutingData{})
	// A crash, a restart, and the person's retry of the interrupted call.
	s.add(1, event.NodeFinished, "n3", event.NodeFinishedData{Status: event.NodeInterrupted})
	s.add(1, event.NodeStarted, "n4", event.NodeStartedData{Kind: event.KindTool, Parent: "n2", Tool: "run_command", CallID: "c1", RetryOf: "n3"})
	last = s.add(50, event.RunStatus, "", event.RunStatusData{Status: "paused", Reason: "waiting for approval"})
	return s.events, llmStart, last
}

func TestTracesIncompleteForkAndRetry(t *testing.T) {
	t.Parallel()
	events, llmStart, last := forkedRun()
	out, err := Traces("run_2", events, Options{ServiceName: "steward-ci"})
	if err != nil {
		t.Fatal(err)
	}
	req := decodeRequest(t, out)
	if v := value(req.ResourceSpans[0].Resource.Attributes, "service.name"); v != "steward-ci" {
		t.Errorf("service.name %q", v)
	}
	spans := spansOf(req)
	root, llm, retry := find(t, spans, "run_2", "n1"), find(t, spans, "run_2", "n2"), find(t, spans, "run_2", "n4")
	if value(root.Attributes, "steward.incomplete") != "true" || int64(root.EndTimeUnixNano) != last*1e6 {
		t.Errorf("open run: incomplete=%q end %d, want true and %d", value(root.Attributes, "steward.incomplete"), root.EndTimeUnixNano, last*1e6)
	}
	if value(retry.Attributes, "steward.incomplete") != "true" || int64(retry.EndTimeUnixNano) != last*1e6 {
		t.Errorf("open tool call: %+v", retry)
	}
	if value(llm.Attributes, "steward.incomplete") != "" || int64(llm.StartTimeUnixNano) != llmStart*1e6 {
		t.Errorf("finished model call marked incomplete or mistimed: %+v", llm)
	}
	if llm.Name != "chat demo-script" || value(llm.Attributes, "gen_ai.provider.name") != "steward.script" {
		t.Errorf("model call %q provider %q: want the run's model and the script provider", llm.Name, value(llm.Attributes, "gen_ai.provider.name"))
	}
	wantFork := []link{{TraceID: hexSHA("steward-trace:run_1", 16), SpanID: hexSHA("run_1/n3", 8), Attributes: []keyValue{strAttr("steward.link", "forked_from")}}}
	if d := cmp.Diff(wantFork, root.Links); d != "" {
		t.Errorf("fork link (-want +got):\n%s", d)
	}
	if len(retry.Links) != 1 || retry.Links[0].SpanID != hexSHA("run_2/n3", 8) || retry.ParentSpanID != llm.SpanID {
		t.Errorf("retried call: links %+v parent %s", retry.Links, retry.ParentSpanID)
	}
	if v := value(find(t, spans, "run_2", "n3").Attributes, "steward.node.status"); v != "interrupted" {
		t.Errorf("interrupted call status %q", v)
	}
}

func TestTracesFailedRun(t *testing.T) {
	t.Parallel()
	s := &script{run: "run_3", ts: t0}
	s.add(0, event.RunCreated, "", event.RunCreatedData{Agent: event.AgentRef{Name: "coder", Provider: "openai", Model: "gpt-5"}})
	s.add(1, event.NodeStarted, "n1", event.NodeStartedData{Kind: event.KindAgent, Label: "coder"})
	s.add(1, event.NodeStarted, "n2", event.NodeStartedData{Kind: event.KindLLM, Parent: "n1", Model: "gpt-5"})
	s.add(9, event.NodeFinished, "n2", event.NodeFinishedData{Status: event.NodeFailed, Error: "openai: 401 invalid api key"})
	s.add(0, event.NodeFinished, "n1", event.NodeFinishedData{Status: event.NodeFailed, Error: "openai: 401 invalid api key"})
	s.add(0, event.RunStatus, "", event.RunStatusData{Status: "failed", Error: "openai: 401 invalid api key"})
	out, err := Traces("run_3", s.events, Options{})
	if err != nil {
		t.Fatal(err)
	}
	spans := spansOf(decodeRequest(t, out))
	for _, n := range []string{"n1", "n2"} {
		sp := find(t, spans, "run_3", n)
		if sp.Status == nil || sp.Status.Code != statusError || sp.Status.Message != "openai: 401 invalid api key" || value(sp.Attributes, "error.type") != "_OTHER" {
			t.Errorf("%s: status %+v error.type %q", n, sp.Status, value(sp.Attributes, "error.type"))
		}
	}
}

// mcp.server events are span events of the tool call that met the server;
// what the server printed goes only with the content.
func TestTracesMCPServerEvents(t *testing.T) {
	t.Parallel()
	s := &script{run: "run_4", ts: t0}
	s.add(0, event.RunCreated, "", event.RunCreatedData{Agent: event.AgentRef{Name: "coder", Provider: "openai", Model: "gpt-5"}})
	s.add(1, event.NodeStarted, "n1", event.NodeStartedData{Kind: event.KindAgent, Label: "coder"})
	s.add(1, event.NodeStarted, "n2", event.NodeStartedData{Kind: event.KindTool, Parent: "n1", Label: "mcp__fx__echo", Tool: "mcp__fx__echo", Risk: "exec"})
	s.add(1, event.MCPServer, "n2", event.MCPServerData{Server: "fx", State: event.MCPCrashed, Reason: "exit status 1", Stderr: "panic: boom", RetryInMS: 500})
	s.add(500, event.MCPServer, "n2", event.MCPServerData{Server: "fx", State: event.MCPRestarted, Attempt: 2})
	s.add(9, event.NodeFinished, "n2", event.NodeFinishedData{Status: event.NodeSucceeded, Output: "echo"})
	s.add(0, event.NodeFinished, "n1", event.NodeFinishedData{Status: event.NodeSucceeded})
	s.add(0, event.RunStatus, "", event.RunStatusData{Status: "completed"})
	for _, content := range []bool{false, true} {
		out, err := Traces("run_4", s.events, Options{IncludeContent: content})
		if err != nil {
			t.Fatal(err)
		}
		n2 := find(t, spansOf(decodeRequest(t, out)), "run_4", "n2")
		var crashed, restarted *spanEvent
		for i, e := range n2.Events {
			if e.Name != "steward.mcp.server" {
				continue
			}
			switch value(e.Attributes, "steward.mcp.state") {
			case "crashed":
				crashed = &n2.Events[i]
			case "restarted":
				restarted = &n2.Events[i]
			}
		}
		if crashed == nil || restarted == nil {
			t.Fatalf("content %v: events %+v", content, n2.Events)
		}
		if value(crashed.Attributes, "steward.mcp.server") != "fx" || value(crashed.Attributes, "steward.mcp.reason") != "exit status 1" ||
			value(crashed.Attributes, "steward.retry_in_ms") != "500" || value(restarted.Attributes, "steward.attempt") != "2" {
			t.Errorf("content %v: crashed %+v, restarted %+v", content, crashed, restarted)
		}
		if got := value(crashed.Attributes, "steward.mcp.stderr"); (got == "panic: boom") != content {
			t.Errorf("content %v: stderr %q", content, got)
		}
	}
}

// tool.progress events are span events of their call: progress, total and
// how many the throttle skipped; the server's message only with the content.
func TestTracesToolProgress(t *testing.T) {
	t.Parallel()
	s := &script{run: "run_5", ts: t0}
	s.add(0, event.RunCreated, "", event.RunCreatedData{Agent: event.AgentRef{Name: "coder", Provider: "openai", Model: "gpt-5"}})
	s.add(1, event.NodeStarted, "n1", event.NodeStartedData{Kind: event.KindAgent, Label: "coder"})
	s.add(1, event.NodeStarted, "n2", event.NodeStartedData{Kind: event.KindTool, Parent: "n1", Label: "mcp__fx__copy", Tool: "mcp__fx__copy", Risk: "exec"})
	s.add(1, event.ToolExecuting, "n2", event.ToolExecutingData{})
	s.add(250, event.ToolProgress, "n2", event.ToolProgressData{Progress: 2.5, Total: 10, Message: "copying a.txt", Skipped: 3})
	s.add(9, event.NodeFinished, "n2", event.NodeFinishedData{Status: event.NodeSucceeded, Output: "copied"})
	s.add(0, event.NodeFinished, "n1", event.NodeFinishedData{Status: event.NodeSucceeded})
	s.add(0, event.RunStatus, "", event.RunStatusData{Status: "completed"})
	for _, content := range []bool{false, true} {
		out, err := Traces("run_5", s.events, Options{IncludeContent: content})
		if err != nil {
			t.Fatal(err)
		}
		n2 := find(t, spansOf(decodeRequest(t, out)), "run_5", "n2")
		var p *spanEvent
		for i, e := range n2.Events {
			if e.Name == "steward.tool.progress" {
				p = &n2.Events[i]
			}
		}
		if p == nil {
			t.Fatalf("content %v: events %+v", content, n2.Events)
		}
		if value(p.Attributes, "steward.progress") != "2.5" || value(p.Attributes, "steward.progress.total") != "10" ||
			value(p.Attributes, "steward.progress.skipped") != "3" {
			t.Errorf("content %v: %+v", content, p.Attributes)
		}
		if got := value(p.Attributes, "steward.progress.message"); (got == "copying a.txt") != content {
			t.Errorf("content %v: message %q", content, got)
		}
	}
}

// An elicitation is a span event of its call, with its kind and server;
// the person's answer only with the content.
func TestTracesElicitation(t *testing.T) {
	t.Parallel()
	s := &script{run: "run_6", ts: t0}
	s.add(0, event.RunCreated, "", event.RunCreatedData{Agent: event.AgentRef{Name: "coder", Provider: "openai", Model: "gpt-5"}})
	s.add(1, event.NodeStarted, "n1", event.NodeStartedData{Kind: event.KindAgent, Label: "coder"})
	s.add(1, event.NodeStarted, "n2", event.NodeStartedData{Kind: event.KindTool, Parent: "n1", Label: "mcp__crm__add", Tool: "mcp__crm__add", Risk: "exec"})
	s.add(1, event.ToolExecuting, "n2", event.ToolExecutingData{})
	s.add(1, event.ApprovalRequested, "n2", event.ApprovalRequestedData{InteractionID: "ia_e", Kind: event.InteractionElicitation, Tool: "mcp__crm__add",
		Risk: "read", Reason: "the MCP server crm asks", Question: &event.Question{Text: "Name?", Server: "crm", Schema: json.RawMessage(`{"type":"object","properties":{}}`)}})
	s.add(2000, event.ApprovalDecided, "n2", event.ApprovalDecidedData{InteractionID: "ia_e", Kind: event.InteractionElicitation, Decision: event.DecisionAnswer,
		Source: "web", Content: json.RawMessage(`{"name":"Ann"}`)})
	s.add(9, event.NodeFinished, "n2", event.NodeFinishedData{Status: event.NodeSucceeded, Output: "added"})
	s.add(0, event.NodeFinished, "n1", event.NodeFinishedData{Status: event.NodeSucceeded})
	s.add(0, event.RunStatus, "", event.RunStatusData{Status: "completed"})
	for _, content := range []bool{false, true} {
		out, err := Traces("run_6", s.events, Options{IncludeContent: content})
		if err != nil {
			t.Fatal(err)
		}
		n2 := find(t, spansOf(decodeRequest(t, out)), "run_6", "n2")
		var asked, answered *spanEvent
		for i, e := range n2.Events {
			switch e.Name {
			case "steward.approval.requested":
				asked = &n2.Events[i]
			case "steward.approval.decided":
				answered = &n2.Events[i]
			}
		}
		if asked == nil || answered == nil {
			t.Fatalf("content %v: events %+v", content, n2.Events)
		}
		if value(asked.Attributes, "steward.interaction.kind") != "elicitation" || value(asked.Attributes, "steward.elicitation.server") != "crm" ||
			value(asked.Attributes, "steward.elicitation.mode") != "form" || value(answered.Attributes, "steward.interaction.kind") != "elicitation" {
			t.Errorf("content %v: asked %+v, answered %+v", content, asked.Attributes, answered.Attributes)
		}
		if got := value(answered.Attributes, "steward.answer.content"); (got == `{"name":"Ann"}`) != content {
			t.Errorf("content %v: content %q", content, got)
		}
	}
}

// A run that failed and was continued finishes its root node twice: the
// later outcome holds, once.
func TestTracesNodeFinishedTwice(t *testing.T) {
	t.Parallel()
	s := &script{run: "run_4", ts: t0}
	s.add(0, event.RunCreated, "", event.RunCreatedData{Agent: event.AgentRef{Name: "coder", Provider: "openai", Model: "gpt-5"}})
	s.add(1, event.NodeStarted, "n1", event.NodeStartedData{Kind: event.KindAgent, Label: "coder"})
	s.add(1, event.NodeFinished, "n1", event.NodeFinishedData{Status: event.NodeFailed, Error: "provider down"})
	end := s.add(60_000, event.NodeFinished, "n1", event.NodeFinishedData{Status: event.NodeSucceeded})
	out, err := Traces("run_4", s.events, Options{})
	if err != nil {
		t.Fatal(err)
	}
	root := find(t, spansOf(decodeRequest(t, out)), "run_4", "n1")
	keys := map[string]int{}
	for _, kv := range root.Attributes {
		keys[kv.Key]++
	}
	if keys["steward.node.status"] != 1 || value(root.Attributes, "steward.node.status") != "succeeded" || root.Status != nil || keys["error.type"] != 0 ||
		int64(root.EndTimeUnixNano) != end*1e6 {
		t.Errorf("status %+v, attributes %v, end %d", root.Status, keys, root.EndTimeUnixNano)
	}
}

func TestTracesRefusesWhatIsNotOneRunsLog(t *testing.T) {
	t.Parallel()
	good, _ := scriptedRun()
	bad := append([]event.Event(nil), good[:3]...)
	bad[2].Data = json.RawMessage(`{"kind": 7}`)
	for _, c := range []struct {
		name, run string
		events    []event.Event
		want      string
	}{
		{"no events", "run_1", nil, "no events"},
		{"no run id", "", good, "empty run id"},
		{"another run's events", "run_9", good, "belongs to run run_1"},
		{"undecodable payload", "run_1", bad, "event 3 node.started"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Traces(c.run, c.events, Options{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want one saying %q", err, c.want)
			}
		})
	}
}

// hexSHA is the spec of the ids, written out independently of the code.
func hexSHA(s string, n int) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:n])
}
