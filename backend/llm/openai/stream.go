package openai

import (
	"encoding/json"
	"strings"

	oai "github.com/openai/openai-go/v3"

	"steward/backend/llm"
)

// accumulator builds a Response from stream chunks and forwards deltas.
type accumulator struct {
	onDelta func(llm.Delta)
	model   string

	text   strings.Builder
	calls  []*toolCall
	byWire map[int64]int // wire index → position in calls
	finish string
	usage  llm.Usage
}

type toolCall struct {
	id   string
	name string
	args strings.Builder
}

func (a *accumulator) add(chunk oai.ChatCompletionChunk) {
	if chunk.Model != "" {
		a.model = chunk.Model
	}
	if chunk.JSON.Usage.Valid() {
		u := chunk.Usage
		a.usage = llm.Usage{
			InputTokens:  u.PromptTokens,
			OutputTokens: u.CompletionTokens,
			CachedTokens: u.PromptTokensDetails.CachedTokens,
		}
	}
	for _, ch := range chunk.Choices {
		// n is never set, so only choice 0 exists.
		if ch.Index != 0 {
			continue
		}
		d := ch.Delta
		for _, s := range []string{d.Content, d.Refusal} {
			if s != "" {
				a.text.WriteString(s)
				a.onDelta(llm.Delta{Kind: llm.DeltaText, Text: s})
			}
		}
		for _, tc := range d.ToolCalls {
			a.addToolFragment(tc)
		}
		if ch.FinishReason != "" {
			a.finish = ch.FinishReason
		}
	}
}

// addToolFragment records one fragment of a tool call. The first fragment of
// a call carries its id and name; later ones, matched by index, carry pieces
// of the arguments.
func (a *accumulator) addToolFragment(f oai.ChatCompletionChunkChoiceDeltaToolCall) {
	if a.byWire == nil {
		a.byWire = map[int64]int{}
	}
	pos, ok := a.byWire[f.Index]
	// Some servers number every call 0 and send each one whole: a new id at a
	// known index is a new call.
	if ok && f.ID != "" && a.calls[pos].id != "" && f.ID != a.calls[pos].id {
		ok = false
	}
	first := !ok
	if first {
		pos = len(a.calls)
		a.calls = append(a.calls, &toolCall{})
		a.byWire[f.Index] = pos
	}
	c := a.calls[pos]
	if c.id == "" {
		c.id = f.ID
	}
	if c.name == "" {
		c.name = f.Function.Name
	}
	c.args.WriteString(f.Function.Arguments)
	// The first fragment is announced even without arguments, so a viewer
	// learns early which tool is being called.
	if first || f.Function.Arguments != "" {
		a.onDelta(llm.Delta{Kind: llm.DeltaToolArgs, Text: f.Function.Arguments, ToolIndex: pos, ToolName: c.name})
	}
}

func (a *accumulator) response() (*llm.Response, error) {
	resp := &llm.Response{
		Text:  a.text.String(),
		Usage: a.usage,
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
	case a.finish == "length":
		resp.StopReason = llm.StopMaxTokens
	case a.finish == "tool_calls" || a.finish == "function_call" || len(resp.ToolCalls) > 0:
		// Some servers answer "stop" for a turn that has tool calls; the calls
		// are what the engine must act on.
		resp.StopReason = llm.StopToolCalls
	case a.finish == "":
		// The body ended cleanly but early (a proxy cut it, the server
		// died): worth a retry.
		return nil, &llm.Error{Kind: llm.ErrServer, Message: "the stream ended before the model finished"}
	default: // "stop", "content_filter", or a server's own reason
		resp.StopReason = llm.StopEnd
	}
	return resp, nil
}

// argumentsJSON turns streamed arguments into a JSON value: "{}" when the
// model sent none, the text itself when it is valid JSON, and otherwise (a
// call cut off by max_tokens, a confused model) the text as a JSON string, so
// the Response stays marshalable and the tool reports the bad arguments to
// the model.
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
