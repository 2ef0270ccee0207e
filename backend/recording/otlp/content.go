package otlp

import (
	"encoding/json"

	"steward/backend/event"
)

// The conversation as the model saw it, rebuilt from the log for the opt-in
// content attributes. Messages follow the conventions' JSON schemas
// (docs/gen-ai/gen-ai-input-messages.json, gen-ai-output-messages.json):
// {role, parts: [{type: text|tool_call|tool_call_response, ...}]}, plus
// finish_reason on an output message.

type message struct {
	Role         string `json:"role"`
	Parts        []part `json:"parts"`
	FinishReason string `json:"finish_reason,omitempty"`
}

type part struct {
	Type      string          `json:"type"`
	Content   string          `json:"content,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Response  *string         `json:"response,omitempty"` // required on tool_call_response, even when empty
}

// maxInputBytes bounds gen_ai.input.messages on one span. Every model call
// resends the whole history, so a long run's trace would grow with the
// square of its length; past this the oldest messages are left out (the
// conventions let instrumentations truncate) and the span says so.
const maxInputBytes = 256 << 10

type conversation struct {
	msgs [][]byte // each message's JSON, encoded once
}

// push adds a message. It panics only if the message cannot be encoded,
// which cannot happen: it holds strings and raw JSON checked by json.Valid.
func (c *conversation) push(m message) {
	b, err := json.Marshal(m)
	if err != nil {
		panic("otlp: encode message: " + err.Error())
	}
	c.msgs = append(c.msgs, b)
}

// history adds a fork's inherited conversation.
func (c *conversation) history(h []event.Message) {
	for _, m := range h {
		switch {
		case m.ToolCallID != "":
			c.toolResult(m.ToolCallID, m.Text)
		default:
			msg := message{Role: string(m.Role)}
			if m.Text != "" {
				msg.Parts = append(msg.Parts, part{Type: "text", Content: m.Text})
			}
			msg.Parts = append(msg.Parts, toolCallParts(m.ToolCalls)...)
			c.push(msg)
		}
	}
}

func (c *conversation) user(text string) {
	c.push(message{Role: "user", Parts: []part{{Type: "text", Content: text}}})
}

func (c *conversation) toolResult(callID, output string) {
	c.push(message{Role: "tool", Parts: []part{{Type: "tool_call_response", ID: callID, Response: &output}}})
}

// assistant adds a model call's answer to the conversation and returns it as
// the call's gen_ai.output.messages.
func (c *conversation) assistant(d event.NodeFinishedData) (keyValue, error) {
	m := message{Role: "assistant", FinishReason: d.StopReason}
	if m.FinishReason == "" { // required by the schema
		m.FinishReason = "stop"
	}
	if d.Text != "" {
		m.Parts = append(m.Parts, part{Type: "text", Content: d.Text})
	}
	m.Parts = append(m.Parts, toolCallParts(d.ToolCalls)...)
	if m.Parts == nil {
		m.Parts = []part{}
	}
	c.push(m)
	return jsonAttr("gen_ai.output.messages", []message{m})
}

// inputAttrs returns gen_ai.input.messages for a model call starting now:
// the newest messages that fit maxInputBytes, and steward.input.truncated
// when older ones were left out.
func (c *conversation) inputAttrs() []keyValue {
	first, size := len(c.msgs), 2
	for first > 0 && size+len(c.msgs[first-1])+1 <= maxInputBytes {
		first--
		size += len(c.msgs[first]) + 1
	}
	buf := make([]byte, 0, size)
	buf = append(buf, '[')
	for i, m := range c.msgs[first:] {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, m...)
	}
	buf = append(buf, ']')
	kv := []keyValue{strAttr("gen_ai.input.messages", string(buf))}
	if first > 0 {
		kv = append(kv, boolAttr("steward.input.truncated", true), intAttr("steward.input.omitted_messages", int64(first)))
	}
	return kv
}

func toolCallParts(calls []event.ToolCall) []part {
	parts := make([]part, 0, len(calls))
	for _, tc := range calls {
		p := part{Type: "tool_call", ID: tc.ID, Name: tc.Name}
		if json.Valid(tc.Arguments) {
			p.Arguments = tc.Arguments
		} else if len(tc.Arguments) > 0 {
			// Models do send broken JSON; keep it, as a string.
			s, _ := json.Marshal(string(tc.Arguments))
			p.Arguments = s
		}
		parts = append(parts, p)
	}
	return parts
}
