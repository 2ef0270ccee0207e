package llm

import (
	"bytes"
	"hash/maphash"
	"sync"
)

// Encodings keeps what a provider encoded for its last request, so that the
// next request, which repeats that conversation and adds a step to it,
// encodes only what is new: a model call then costs the provider in
// proportion to the new messages, not to the whole history (the history is
// still sent whole; copying bytes is what remains of its cost).
//
// Each encoding is made by the provider's own functions, from one message
// alone (a message's encoding must not depend on its neighbours: the
// provider joins the pieces), and from the parts of the request that are not
// messages (the head: model, system prompt, tools, max tokens). An encoding
// is reused only for a message equal in content to the one it was made from,
// at the same position in the request, so what is sent is what encoding the
// request afresh would send, whatever the caller changed: a message replaced
// (a synthetic "interrupted" tool result that a retry answers), bytes
// changed in place, messages dropped or inserted (after which the following
// positions are encoded again, once).
//
// Equal means: the same role, text, tool call id, error flag, tool calls
// (their arguments compared byte for byte) and images (media type, size and
// a 64-bit hash of the data, with a seed drawn per Encodings, so content
// cannot aim for a collision). Strings are compared by value, which is
// instant for the strings of an append-only conversation, since they are
// the very same strings.
//
// Memory: an Encodings holds the encodings of one request, the last (about
// the size of its body), with a copy of its tool calls' arguments; each
// request replaces them. A provider is made for a run, so what it holds goes
// with the run. Concurrent calls are safe; calls for different conversations
// only keep each other from reusing encodings.
type Encodings[H, M any] struct {
	mu     sync.Mutex
	seed   maphash.Seed
	seeded bool
	head   *headEntry[H]
	msgs   []*msgEntry[M]
}

type headEntry[H any] struct {
	model, system string
	maxTokens     int
	tools         []ToolSpec // schemas copied
	enc           H
}

type msgEntry[M any] struct {
	msg snapshot
	enc M
}

// snapshot is what a message's encoding was made from.
type snapshot struct {
	role       Role
	text       string
	toolCallID string
	isError    bool
	calls      []ToolCall // arguments copied
	images     []imageSum
}

type imageSum struct {
	mediaType string
	size      int
	sum       uint64
}

// Encode returns the encodings of req: its head's and each of its messages',
// in order. It calls msg for each message, then head, only for what the last
// request did not have; an error of either is returned as it is, and nothing
// of req is kept.
func (c *Encodings[H, M]) Encode(req Request, head func(Request) (H, error), msg func(int, Message) (M, error)) (H, []M, error) {
	c.mu.Lock()
	if !c.seeded {
		c.seed, c.seeded = maphash.MakeSeed(), true
	}
	seed, lastHead, lastMsgs := c.seed, c.head, c.msgs
	c.mu.Unlock()

	var zero H
	entries := make([]*msgEntry[M], len(req.Messages))
	encs := make([]M, len(req.Messages))
	for i, m := range req.Messages {
		if i < len(lastMsgs) && lastMsgs[i].msg.same(m, seed) {
			entries[i] = lastMsgs[i]
		} else {
			enc, err := msg(i, m)
			if err != nil {
				return zero, nil, err
			}
			entries[i] = &msgEntry[M]{msg: snap(m, seed), enc: enc}
		}
		encs[i] = entries[i].enc
	}
	h := lastHead
	if h == nil || !h.matches(req) {
		enc, err := head(req)
		if err != nil {
			return zero, nil, err
		}
		h = &headEntry[H]{model: req.Model, system: req.System, maxTokens: req.MaxTokens, tools: cloneTools(req.Tools), enc: enc}
	}

	c.mu.Lock()
	c.head, c.msgs = h, entries
	c.mu.Unlock()
	return h.enc, encs, nil
}

func (h *headEntry[H]) matches(req Request) bool {
	if h.model != req.Model || h.system != req.System || h.maxTokens != req.MaxTokens || len(h.tools) != len(req.Tools) {
		return false
	}
	for i, t := range req.Tools {
		o := h.tools[i]
		if o.Name != t.Name || o.Description != t.Description || !bytes.Equal(o.Schema, t.Schema) {
			return false
		}
	}
	return true
}

func cloneTools(tools []ToolSpec) []ToolSpec {
	out := make([]ToolSpec, len(tools))
	for i, t := range tools {
		out[i] = ToolSpec{Name: t.Name, Description: t.Description, Schema: bytes.Clone(t.Schema)}
	}
	return out
}

func snap(m Message, seed maphash.Seed) snapshot {
	s := snapshot{role: m.Role, text: m.Text, toolCallID: m.ToolCallID, isError: m.IsError}
	if len(m.ToolCalls) > 0 {
		s.calls = make([]ToolCall, len(m.ToolCalls))
		for i, c := range m.ToolCalls {
			s.calls[i] = ToolCall{ID: c.ID, Name: c.Name, Arguments: bytes.Clone(c.Arguments)}
		}
	}
	if len(m.Images) > 0 {
		s.images = make([]imageSum, len(m.Images))
		for i, img := range m.Images {
			s.images[i] = imageSum{mediaType: img.MediaType, size: len(img.Data), sum: maphash.Bytes(seed, img.Data)}
		}
	}
	return s
}

func (s *snapshot) same(m Message, seed maphash.Seed) bool {
	if s.role != m.Role || s.text != m.Text || s.toolCallID != m.ToolCallID || s.isError != m.IsError ||
		len(s.calls) != len(m.ToolCalls) || len(s.images) != len(m.Images) {
		return false
	}
	for i, c := range m.ToolCalls {
		o := s.calls[i]
		if o.ID != c.ID || o.Name != c.Name || !bytes.Equal(o.Arguments, c.Arguments) {
			return false
		}
	}
	for i, img := range m.Images {
		o := s.images[i]
		if o.mediaType != img.MediaType || o.size != len(img.Data) || o.sum != maphash.Bytes(seed, img.Data) {
			return false
		}
	}
	return true
}
