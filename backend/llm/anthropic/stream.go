package anthropic

import (
	"encoding/json"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"steward/backend/llm"
)

// accumulator builds a Response from stream events and forwards deltas.
//
// A stream is message_start, then for each content block a
// content_block_start, its content_block_delta events and a
// content_block_stop, then message_delta (stop reason, usage) and
// message_stop. The SDK drops ping events before they get here.
type accumulator struct {
	onDelta func(llm.Delta)
	model   string

	text   strings.Builder
	calls  []*toolCall
	byWire map[int64]int // content block index → position in calls
	stop   string
	usage  usage
}

type toolCall struct {
	id   string
	name string
	args strings.Builder
}

// usage holds the token counts as the API reports them.
type usage struct {
	input, cacheCreation, cacheRead, output int64
}

func (a *accumulator) add(ev sdk.MessageStreamEventUnion) {
	switch ev.Type {
	case "message_start":
		if ev.Message.Model != "" {
			a.model = ev.Message.Model
		}
		u := ev.Message.Usage
		a.usage.merge(usage{u.InputTokens, u.CacheCreationInputTokens, u.CacheReadInputTokens, u.OutputTokens})
	case "content_block_start":
		a.startBlock(ev.Index, ev.ContentBlock)
	case "content_block_delta":
		a.addDelta(ev.Index, ev.Delta)
	case "message_delta":
		if ev.Delta.StopReason != "" {
			a.stop = string(ev.Delta.StopReason)
		}
		// message_delta's counts are cumulative; older servers send only
		// output_tokens, the API now sends the input counts again too.
		u := ev.Usage
		a.usage.merge(usage{u.InputTokens, u.CacheCreationInputTokens, u.CacheReadInputTokens, u.OutputTokens})
	}
	// content_block_stop and message_stop carry nothing more; thinking and
	// server tool blocks are not requested and are ignored.
}

// merge keeps the larger of each count: the counts only grow during a
// stream, and a field an event leaves out reads as 0.
func (u *usage) merge(o usage) {
	u.input = max(u.input, o.input)
	u.cacheCreation = max(u.cacheCreation, o.cacheCreation)
	u.cacheRead = max(u.cacheRead, o.cacheRead)
	u.output = max(u.output, o.output)
}

func (a *accumulator) startBlock(index int64, b sdk.ContentBlockStartEventContentBlockUnion) {
	switch b.Type {
	case "text":
		a.addText(b.Text)
	case "tool_use":
		if a.byWire == nil {
			a.byWire = map[int64]int{}
		}
		pos := len(a.calls)
		c := &toolCall{id: b.ID, name: b.Name}
		a.calls = append(a.calls, c)
		a.byWire[index] = pos
		// The input arrives in input_json_delta events and the start block
		// says {}; a server that sends the whole input here is taken at its
		// word.
		if raw := strings.TrimSpace(b.JSON.Input.Raw()); raw != "" && raw != "{}" && raw != "null" {
			c.args.WriteString(raw)
		}
		// Announced even without input, so a viewer learns early which tool
		// is being called.
		a.onDelta(llm.Delta{Kind: llm.DeltaToolArgs, Text: c.args.String(), ToolIndex: pos, ToolName: c.name})
	}
}

func (a *accumulator) addDelta(index int64, d sdk.MessageStreamEventUnionDelta) {
	switch d.Type {
	case "text_delta":
		a.addText(d.Text)
	case "input_json_delta":
		pos, ok := a.byWire[index]
		if !ok || d.PartialJSON == "" {
			return
		}
		c := a.calls[pos]
		c.args.WriteString(d.PartialJSON)
		a.onDelta(llm.Delta{Kind: llm.DeltaToolArgs, Text: d.PartialJSON, ToolIndex: pos, ToolName: c.name})
	}
}

func (a *accumulator) addText(s string) {
	if s == "" {
		return
	}
	a.text.WriteString(s)
	a.onDelta(llm.Delta{Kind: llm.DeltaText, Text: s})
}

// response is the Response once the stream has ended.
//
// Usage.InputTokens is the whole prompt: the uncached input_tokens plus
// cache_creation_input_tokens plus cache_read_input_tokens, as the API counts
// them apart. Usage.CachedTokens is cache_read_input_tokens, the part served
// from the cache. This matches the OpenAI provider, whose prompt_tokens
// include cached_tokens.
func (a *accumulator) response() (*llm.Response, error) {
	resp := &llm.Response{
		Text: a.text.String(),
		Usage: llm.Usage{
			InputTokens:  a.usage.input + a.usage.cacheCreation + a.usage.cacheRead,
			OutputTokens: a.usage.output,
			CachedTokens: a.usage.cacheRead,
		},
		Model: a.model,
	}
	for _, c := range a.calls {
		resp.ToolCalls = append(resp.ToolCalls, llm.ToolCall{
			ID:        c.id,
			Name:      c.name,
			Arguments: argumentsJSON(c.args.String()),
		})
	}
	switch {
	case a.stop == string(sdk.StopReasonMaxTokens) || a.stop == string(sdk.StopReasonModelContextWindowExceeded):
		resp.StopReason = llm.StopMaxTokens
	case a.stop == string(sdk.StopReasonToolUse) || (a.stop != "" && len(resp.ToolCalls) > 0):
		resp.StopReason = llm.StopToolCalls
	case a.stop == "":
		// The body ended cleanly but early (a proxy cut it, the server
		// died): worth a retry.
		return nil, &llm.Error{Kind: llm.ErrServer, Message: "the stream ended before the model finished"}
	default: // end_turn, stop_sequence, refusal, pause_turn, a server's own reason
		resp.StopReason = llm.StopEnd
	}
	return resp, nil
}

// argumentsJSON turns streamed input into a JSON value: "{}" when the model
// sent none, the text itself when it is valid JSON, and otherwise (a call cut
// off by max_tokens) the text as a JSON string, so the Response stays
// marshalable and the tool reports the bad arguments to the model.
func argumentsJSON(s string) json.RawMessage {
	if strings.TrimSpace(s) == "" {
		return json.RawMessage("{}")
	}
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	quoted, _ := json.Marshal(s) // marshaling a string cannot fail
	return quoted
}
