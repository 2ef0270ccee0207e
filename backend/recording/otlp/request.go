package otlp

import (
	"strings"
	"unicode/utf8"

	"steward/backend/event"
)

// request closes the spans and assembles the export request: one resource
// (the run), one scope (Steward), every span.
func (b *builder) request() (*exportRequest, error) {
	r := b.root
	name := b.label
	if b.created != nil && b.created.Agent.Name != "" {
		name = b.created.Agent.Name
	}
	r.span.Name = spanName("invoke_agent", name)
	attrs, err := b.runAttrs(name)
	if err != nil {
		return nil, err
	}
	r.span.Attributes = append(attrs, r.span.Attributes...)
	if !r.finished && b.runStatus.Status == "failed" {
		r.fail(b.runStatus.Error, "")
	}

	for _, n := range b.order {
		if !n.finished {
			// Still running when the log ends (a paused run, a crash, an
			// export taken live): it ends where the log does, and says so.
			n.end = b.last
			n.attr(boolAttr("steward.incomplete", true))
		}
		n.end = max(n.end, n.start) // a clock step back must not give a negative duration
	}
	// The run covers its whole log, including what comes after its node
	// ends (the final status, the browser video).
	r.end = max(r.end, b.last)

	trace := traceID(b.runID)
	spans := make([]span, 0, len(b.order))
	for _, n := range b.order {
		s := n.span
		s.Attributes = dedupe(s.Attributes)
		s.TraceID, s.SpanID = trace, spanID(b.runID, n.id)
		if n.parent != nil {
			s.ParentSpanID = spanID(b.runID, n.parent.id)
		}
		s.StartTimeUnixNano, s.EndTimeUnixNano = nanos(n.start), nanos(n.end)
		spans = append(spans, s)
	}

	service := b.o.ServiceName
	if service == "" {
		service = "steward"
	}
	res := []keyValue{strAttr("service.name", service)}
	res = appendStr(res, "service.version", b.o.StewardVersion)
	res = append(res, strAttr("steward.run.id", b.runID))
	return &exportRequest{ResourceSpans: []resourceSpans{{
		Resource: resource{Attributes: res},
		ScopeSpans: []scopeSpans{{
			Scope:     scope{Name: "steward", Version: b.o.StewardVersion},
			Spans:     spans,
			SchemaURL: schemaURL,
		}},
		SchemaURL: schemaURL,
	}}}, nil
}

// runAttrs are the run span's attributes: the agent, the totals of its model
// calls, and its outcome.
func (b *builder) runAttrs(name string) ([]keyValue, error) {
	kv := []keyValue{strAttr("gen_ai.operation.name", "invoke_agent"), strAttr("gen_ai.provider.name", b.provider())}
	kv = appendStr(kv, "gen_ai.agent.name", name)
	if c := b.created; c != nil {
		kv = appendStr(kv, "gen_ai.agent.id", c.Agent.ID)
		kv = appendStr(kv, "gen_ai.agent.description", b.spec.Description)
		kv = appendStr(kv, "gen_ai.request.model", c.Agent.Model)
	}
	kv = append(kv, strAttr("gen_ai.conversation.id", b.runID), strAttr("steward.run.id", b.runID))
	if b.root.id != rootNode {
		kv = append(kv, strAttr("steward.node.id", b.root.id))
	}
	if c := b.created; c != nil {
		kv = appendStr(kv, "steward.run.mode", c.Mode)
		if c.Agent.Demo {
			kv = append(kv, boolAttr("steward.demo", true))
		}
		if f := c.ForkedFrom; f != nil {
			kv = append(kv, strAttr("steward.forked_from.run_id", f.RunID), strAttr("steward.forked_from.node_id", f.NodeID))
		}
	}
	kv = appendStr(kv, "steward.run.status", b.runStatus.Status)
	if b.inTok > 0 || b.outTok > 0 {
		kv = append(kv, intAttr("gen_ai.usage.input_tokens", b.inTok), intAttr("gen_ai.usage.output_tokens", b.outTok))
		if b.cached > 0 {
			kv = append(kv, intAttr("gen_ai.usage.cache_read.input_tokens", b.cached))
		}
	}
	if b.cost > 0 {
		kv = append(kv, doubleAttr("steward.cost_usd", b.cost))
	}
	if b.o.IncludeContent && b.spec.SystemPrompt != "" {
		si, err := jsonAttr("gen_ai.system_instructions", []part{{Type: "text", Content: b.spec.SystemPrompt}})
		if err != nil {
			return nil, err
		}
		kv = append(kv, si)
	}
	return kv, nil
}

// provider is gen_ai.provider.name for the run's model. Steward's names for
// OpenAI and Anthropic are the conventions' well-known values already.
func (b *builder) provider() string {
	p := ""
	if b.created != nil {
		p = b.created.Agent.Provider
	}
	switch p {
	case "":
		return "_OTHER" // the conventions' value when the provider is not known
	case "script":
		return "steward.script" // Steward's scripted model: no provider was called
	}
	return p
}

func limitAttrs(l event.Limits) []keyValue {
	var kv []keyValue
	if l.MaxSteps > 0 {
		kv = append(kv, intAttr("steward.limits.max_steps", int64(l.MaxSteps)))
	}
	if l.MaxTokens > 0 {
		kv = append(kv, intAttr("steward.limits.max_tokens", l.MaxTokens))
	}
	if l.MaxCostUSD > 0 {
		kv = append(kv, doubleAttr("steward.limits.max_cost_usd", l.MaxCostUSD))
	}
	if l.MaxWallTimeMS > 0 {
		kv = append(kv, intAttr("steward.limits.max_wall_time_ms", l.MaxWallTimeMS))
	}
	return kv
}

// dedupe keeps one attribute per key, with the last value written, where
// the key first appeared: OTLP wants keys unique, and a node finished twice
// writes its outcome twice.
func dedupe(kvs []keyValue) []keyValue {
	at := make(map[string]int, len(kvs))
	out := kvs[:0]
	for _, kv := range kvs {
		if i, ok := at[kv.Key]; ok {
			out[i] = kv
			continue
		}
		at[kv.Key] = len(out)
		out = append(out, kv)
	}
	return out
}

// spanName is "<operation> <subject>", or the operation alone when the
// subject is unknown, as the conventions name GenAI spans.
func spanName(op, subject string) string {
	if subject == "" {
		return op
	}
	return op + " " + subject
}

// appendStr adds a string attribute only when it has a value: an empty
// attribute says nothing and costs bytes on every span.
func appendStr[S ~string](kv []keyValue, k string, v S) []keyValue {
	if v == "" {
		return kv
	}
	return append(kv, strAttr(k, v))
}

func orOther(s string) string {
	if s == "" {
		return "_OTHER"
	}
	return s
}

// firstLine returns s up to its first line break, at most limit bytes (cut
// on a rune boundary).
func firstLine(s string, limit int) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
