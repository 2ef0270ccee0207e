// Package otlp turns a run's event log into OpenTelemetry traces in the
// OTLP/JSON encoding, so that a run opens in Jaeger, Langfuse, Phoenix or any
// OTLP tool, and sends them to an OTLP/HTTP collector.
//
// The spans follow the OpenTelemetry GenAI semantic conventions as released
// in semantic-conventions v1.41.0 (docs/gen-ai/gen-ai-spans.md and
// gen-ai-agent-spans.md, status Development): gen_ai.provider.name (which
// replaced gen_ai.system in v1.37), gen_ai.operation.name, gen_ai.request.model,
// gen_ai.usage.input_tokens / output_tokens / cache_read.input_tokens,
// gen_ai.response.finish_reasons, gen_ai.response.model, gen_ai.agent.name / id / description,
// gen_ai.conversation.id, gen_ai.tool.name / type / call.id, and the opt-in
// content attributes gen_ai.input.messages, gen_ai.output.messages,
// gen_ai.system_instructions, gen_ai.tool.call.arguments / result. What the
// conventions have no name for is under steward.*.
//
// The mapping: the run is the root span "invoke_agent <agent>" (INTERNAL);
// each llm node is "chat <model>" (CLIENT) under it; each tool node is
// "execute_tool <tool>" (INTERNAL) under the llm node that asked for it (the
// graph's parent). User messages, retries, policy decisions, approvals, file
// changes and artifacts are span events. Times are the events' timestamps; a
// node the log never finished ends at the last event, marked
// steward.incomplete.
//
// Traces is a pure function of the events: no goroutines, no clock, no random
// ids (trace and span ids are hashes of the run and node ids), so the same log
// always gives the same bytes, and a re-export replaces the earlier trace in
// a backend instead of duplicating it.
package otlp

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"steward/backend/event"
)

// Options shape the traces; the zero value is usable.
type Options struct {
	// ServiceName is the resource's service.name; "steward" when empty.
	ServiceName string
	// StewardVersion is service.version and the scope's version; left out
	// when empty.
	StewardVersion string
	// IncludeContent adds what was said: prompts and model output
	// (gen_ai.input.messages, gen_ai.output.messages), the system prompt,
	// tool arguments and results, user and approval texts. The caller
	// redacts the events first; without it only metadata leaves.
	IncludeContent bool
}

// schemaURL names the semantic-conventions version the attribute names come
// from, so a backend can translate them when the GenAI names move again.
const schemaURL = "https://opentelemetry.io/schemas/1.41.0"

// rootNode is the node id the run span hashes when the log has no agent node
// (a run that died before its first nodes).
const rootNode = "run"

// Traces returns the OTLP/JSON ExportTraceServiceRequest of a run's events
// (resourceSpans → scopeSpans → spans), in the order the nodes started, the
// run first. An error means the events are not one run's log: none at all,
// another run's event among them, or a payload that does not decode.
func Traces(runID string, events []event.Event, o Options) ([]byte, error) {
	if runID == "" {
		return nil, errors.New("trace run: empty run id")
	}
	if len(events) == 0 {
		return nil, fmt.Errorf("trace run %s: no events", runID)
	}
	b := newBuilder(runID, o)
	for _, e := range events {
		if e.RunID != "" && e.RunID != runID {
			return nil, fmt.Errorf("trace run %s: event %d belongs to run %s", runID, e.Seq, e.RunID)
		}
		if err := b.add(e); err != nil {
			return nil, fmt.Errorf("trace run %s: event %d %s: %w", runID, e.Seq, e.Type, err)
		}
	}
	req, err := b.request()
	if err != nil {
		return nil, fmt.Errorf("trace run %s: %w", runID, err)
	}
	return json.Marshal(req)
}

// traceID is the run's trace id: the first 16 bytes of
// sha256("steward-trace:"+runID), in hex.
func traceID(runID string) string {
	sum := sha256.Sum256([]byte("steward-trace:" + runID))
	return hex.EncodeToString(sum[:16])
}

// spanID is a node's span id: the first 8 bytes of sha256(runID+"/"+nodeID),
// in hex. Node ids are unique within a run, so span ids are within a trace.
func spanID(runID, nodeID string) string {
	sum := sha256.Sum256([]byte(runID + "/" + nodeID))
	return hex.EncodeToString(sum[:8])
}

// nanos converts the events' unix milliseconds to OTLP's unix nanoseconds.
func nanos(ms int64) int64String { return int64String(ms * int64(time.Millisecond)) }

// node is one span under construction.
type node struct {
	id       string
	kind     string // event.Kind*
	tool     string // tool nodes: the tool's name
	callID   string // tool nodes: the model's call id
	parent   *node  // nil for the run
	span     span   // name, kind, attributes, events, links; ids and times are set at the end
	start    int64  // unix ms
	end      int64
	finished bool
}

func (n *node) attr(kv ...keyValue) { n.span.Attributes = append(n.span.Attributes, kv...) }

func (n *node) event(ts int64, name string, kv ...keyValue) {
	n.span.Events = append(n.span.Events, spanEvent{TimeUnixNano: nanos(ts), Name: name, Attributes: kv})
}

// fail marks the span as an error with the semconv error.type.
func (n *node) fail(msg, typ string) {
	n.span.Status = &status{Code: statusError, Message: msg}
	if typ == "" {
		typ = "_OTHER" // the conventions' fallback when there is no better class
	}
	n.attr(strAttr("error.type", typ))
}

type builder struct {
	runID   string
	o       Options
	root    *node
	nodes   map[string]*node // span nodes by node id (user nodes are events on the run, not spans)
	order   []*node          // the spans in the order they started, the run first
	last    int64            // the latest event time: where open nodes end
	label   string           // the run's agent node label, for a log without run.created
	created *event.RunCreatedData
	spec    struct {
		Description  string `json:"description"`
		SystemPrompt string `json:"system_prompt"`
	}
	runStatus     event.RunStatusData
	inTok, outTok int64
	cached        int64
	cost          float64
	conv          *conversation // nil unless content is included
}

func newBuilder(runID string, o Options) *builder {
	root := &node{id: rootNode, kind: event.KindAgent, start: -1}
	root.span.Kind = kindInternal
	b := &builder{runID: runID, o: o, root: root, nodes: map[string]*node{}, order: []*node{root}}
	if o.IncludeContent {
		b.conv = &conversation{}
	}
	return b
}

// decode reads an event's payload as T.
func decode[T any](e event.Event) (T, error) {
	var v T
	err := e.Decode(&v)
	return v, err
}

// on returns the span an event about node id belongs on, and the span a
// node with graph parent id hangs under: the node's own span, or the run's
// when id is empty or names a node that is not a span (a user message).
func (b *builder) on(id string) *node {
	if n := b.nodes[id]; n != nil {
		return n
	}
	return b.root
}

func (b *builder) add(e event.Event) error {
	if b.root.start < 0 || e.TS < b.root.start {
		b.root.start = e.TS
	}
	b.last = max(b.last, e.TS)
	switch e.Type {
	case event.RunCreated:
		d, err := decode[event.RunCreatedData](e)
		if err != nil {
			return err
		}
		b.runCreated(d)
	case event.NodeStarted:
		d, err := decode[event.NodeStartedData](e)
		if err != nil {
			return err
		}
		return b.nodeStarted(e, d)
	case event.NodeFinished:
		d, err := decode[event.NodeFinishedData](e)
		if err != nil {
			return err
		}
		return b.nodeFinished(e, d)
	case event.RunStatus:
		d, err := decode[event.RunStatusData](e)
		if err != nil {
			return err
		}
		b.runStatus = d
		kv := []keyValue{strAttr("steward.run.status", d.Status)}
		kv = appendStr(kv, "steward.run.reason", d.Reason)
		kv = appendStr(kv, "steward.run.error", d.Error)
		b.root.event(e.TS, "steward.run.status", kv...)
	default:
		return b.nodeEvent(e)
	}
	return nil
}

func (b *builder) runCreated(d event.RunCreatedData) {
	b.created = &d
	if len(d.Spec) > 0 {
		// The agent snapshot is optional context: one that does not decode
		// costs the description and system prompt, never the trace.
		_ = json.Unmarshal(d.Spec, &b.spec)
	}
	if d.ForkedFrom != nil {
		b.root.span.Links = append(b.root.span.Links, link{
			TraceID: traceID(d.ForkedFrom.RunID), SpanID: spanID(d.ForkedFrom.RunID, d.ForkedFrom.NodeID),
			Attributes: []keyValue{strAttr("steward.link", "forked_from")},
		})
	}
	if b.conv != nil {
		b.conv.history(d.History)
	}
}

func (b *builder) nodeStarted(e event.Event, d event.NodeStartedData) error {
	if b.nodes[e.NodeID] != nil {
		return nil // started twice: one span per node, or span ids would repeat
	}
	switch d.Kind {
	case event.KindUser:
		label := d.Label
		if label == "" {
			label = "message"
		}
		kv := []keyValue{strAttr("steward.node.id", e.NodeID)}
		kv = appendStr(kv, "steward.answer_to", d.AnswerTo)
		if b.o.IncludeContent {
			kv = appendStr(kv, "steward.text", d.Text)
		}
		b.root.event(e.TS, "steward.user."+label, kv...)
		if b.conv != nil && d.AnswerTo == "" { // an answer reaches the model as its ask_user call's result
			b.conv.user(d.Text)
		}
		return nil
	case event.KindAgent:
		if b.root.id == rootNode && d.Parent == "" {
			b.root.id, b.label = e.NodeID, d.Label
			b.nodes[e.NodeID] = b.root
			return nil
		}
	}
	n := &node{id: e.NodeID, kind: string(d.Kind), start: e.TS, parent: b.on(d.Parent)}
	n.attr(strAttr("steward.node.id", e.NodeID))
	switch d.Kind {
	case event.KindLLM:
		model := d.Model
		if model == "" && b.created != nil {
			model = b.created.Agent.Model
		}
		n.span.Name, n.span.Kind = spanName("chat", model), kindClient
		n.attr(strAttr("gen_ai.operation.name", "chat"), strAttr("gen_ai.provider.name", b.provider()))
		n.attr(appendStr(nil, "gen_ai.request.model", model)...)
		n.attr(strAttr("gen_ai.conversation.id", b.runID))
		if d.Step > 0 {
			n.attr(intAttr("steward.step", int64(d.Step)))
		}
		if b.conv != nil {
			n.attr(b.conv.inputAttrs()...)
		}
	case event.KindTool:
		n.tool, n.callID = d.Tool, d.CallID
		if n.tool == "" {
			n.tool = d.Label
		}
		n.span.Name, n.span.Kind = spanName("execute_tool", n.tool), kindInternal
		n.attr(strAttr("gen_ai.operation.name", "execute_tool"), strAttr("gen_ai.tool.name", n.tool),
			strAttr("gen_ai.tool.type", "function"))
		n.attr(appendStr(nil, "gen_ai.tool.call.id", d.CallID)...)
		n.attr(strAttr("gen_ai.conversation.id", b.runID))
		n.attr(appendStr(nil, "steward.tool.risk", d.Risk)...)
		if d.RetryOf != "" {
			// The interrupted call this one replaces: a link, so the two
			// attempts are one click apart.
			n.attr(strAttr("steward.retry_of", d.RetryOf))
			n.span.Links = append(n.span.Links, link{TraceID: traceID(b.runID), SpanID: spanID(b.runID, d.RetryOf),
				Attributes: []keyValue{strAttr("steward.link", "retry_of")}})
		}
		if b.o.IncludeContent && len(d.Arguments) > 0 {
			n.attr(strAttr("gen_ai.tool.call.arguments", string(d.Arguments)))
		}
	case event.KindAgent: // an agent inside the run: a nested invocation
		n.span.Name, n.span.Kind = spanName("invoke_agent", d.Label), kindInternal
		n.attr(strAttr("gen_ai.operation.name", "invoke_agent"), strAttr("gen_ai.provider.name", b.provider()))
		n.attr(appendStr(nil, "gen_ai.agent.name", d.Label)...)
	default: // a kind newer than this exporter: still drawn, by its label
		n.span.Name, n.span.Kind = d.Label, kindInternal
		if n.span.Name == "" {
			n.span.Name = string(d.Kind)
		}
		n.attr(strAttr("steward.node.kind", d.Kind))
	}
	b.nodes[e.NodeID] = n
	b.order = append(b.order, n)
	return nil
}

func (b *builder) nodeFinished(e event.Event, d event.NodeFinishedData) error {
	n := b.nodes[e.NodeID]
	if n == nil {
		return nil // a user node's end, or the end of a node the log never opened: nothing to draw
	}
	if n.finished {
		// Finished again (a run continued after it ended): the later outcome
		// holds. dedupe keeps the later values; what only an outcome of
		// another kind writes goes now.
		n.span.Status = nil
		n.span.Attributes = slices.DeleteFunc(n.span.Attributes, func(kv keyValue) bool {
			return kv.Key == "error.type" || kv.Key == "steward.tool.denied" || kv.Key == "steward.tool.cancelled"
		})
	}
	n.end, n.finished = e.TS, true
	n.attr(strAttr("steward.node.status", d.Status))
	if d.DurationMS > 0 {
		n.attr(intAttr("steward.duration_ms", d.DurationMS))
	}
	switch n.kind {
	case event.KindLLM:
		if u := d.Usage; u != nil {
			// input_tokens includes the cached ones, as the conventions ask
			// and as Steward counts them.
			n.attr(intAttr("gen_ai.usage.input_tokens", u.InputTokens), intAttr("gen_ai.usage.output_tokens", u.OutputTokens))
			if u.CachedTokens > 0 {
				n.attr(intAttr("gen_ai.usage.cache_read.input_tokens", u.CachedTokens))
			}
			b.inTok, b.outTok, b.cached = b.inTok+u.InputTokens, b.outTok+u.OutputTokens, b.cached+u.CachedTokens
		}
		if d.StopReason != "" {
			n.attr(strsAttr("gen_ai.response.finish_reasons", []string{d.StopReason}))
		}
		n.attr(appendStr(nil, "gen_ai.response.model", d.Model)...)
		if d.CostUSD > 0 {
			n.attr(doubleAttr("steward.cost_usd", d.CostUSD))
			b.cost += d.CostUSD
		}
		if len(d.ToolCalls) > 0 {
			n.attr(intAttr("steward.tool_calls", int64(len(d.ToolCalls))))
		}
		if b.conv != nil && d.Status == event.NodeSucceeded {
			kv, err := b.conv.assistant(d)
			if err != nil {
				return err
			}
			n.attr(kv)
		}
	case event.KindTool:
		n.attr(appendStr(nil, "steward.tool.code", d.Code)...)
		switch d.Status {
		case event.NodeDenied:
			n.attr(boolAttr("steward.tool.denied", true))
		case event.NodeCancelled:
			n.attr(boolAttr("steward.tool.cancelled", true))
		}
		if b.o.IncludeContent && d.Status == event.NodeSucceeded && d.Output != "" {
			n.attr(strAttr("gen_ai.tool.call.result", d.Output))
		}
		if b.conv != nil {
			b.conv.toolResult(n.callID, d.Output)
		}
	}
	if d.Status == event.NodeFailed {
		n.fail(b.failure(n, d), d.Code)
	}
	return nil
}

// failure is the status message of a failed node: Steward's own error when
// there is one; else, for a tool's failure, the first line of what the model
// was told when content may leave, or just its code.
func (b *builder) failure(n *node, d event.NodeFinishedData) string {
	switch {
	case d.Error != "":
		return d.Error
	case b.o.IncludeContent && d.Output != "":
		return firstLine(d.Output, 300)
	case d.Code != "":
		return n.tool + " failed: " + d.Code
	}
	return "failed"
}
