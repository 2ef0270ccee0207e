package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"steward/backend/llm"
)

// ErrEnded is wrapped by the error of a model call past the recording's
// last one, when no live provider takes over.
var ErrEnded = errors.New("the recording has no more model responses")

// Divergence is the first difference between what the replay sent the
// model and what the recorded run sent at the same step.
type Divergence struct {
	Step  int    // the model call, from 1
	Field string // what differs: "messages[4].content (tool result of call_2)"
	// Recorded and Got are the field's values in the recording and in the
	// replay; "(none)" when one of them has no such field.
	Recorded, Got string
}

func (d Divergence) String() string {
	return fmt.Sprintf("model call %d: %s: recorded %s, got %s", d.Step, d.Field, quote(d.Recorded), quote(d.Got))
}

// Options tune a Provider; the zero value replays every step.
type Options struct {
	// LiveFrom, when positive, is the first model call (from 1) that goes
	// to Live instead of the recording.
	LiveFrom int
	// Live answers the model calls from LiveFrom on.
	Live llm.Provider
	// OnDivergence is called once, with the first divergence, when it is
	// found (from the engine's goroutine: it must not block).
	OnDivergence func(Divergence)
}

// Provider plays the model side of a recording (see the package comment).
// It is meant for one run; it is safe for concurrent use.
type Provider struct {
	rec  *Recorded
	opts Options

	mu     sync.Mutex
	div    *Divergence
	served map[string]bool // tool call ids given out from the recording
	// live is whether the latest model call went to the live model. The
	// engine makes a turn's tool calls after its model call and before the
	// next one, so it says whose calls are being made.
	live bool
}

var _ llm.Provider = (*Provider)(nil)

// NewProvider returns a Provider playing rec.
func NewProvider(rec *Recorded, opts Options) *Provider {
	return &Provider{rec: rec, opts: opts, served: map[string]bool{}}
}

// Divergence returns the first divergence found so far, if any.
func (p *Provider) Divergence() (Divergence, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.div == nil {
		return Divergence{}, false
	}
	return *p.div, true
}

// Served reports whether the tool call id came from a recorded response
// of this replay (not from a live model that happens to use the same id).
func (p *Provider) Served(callID string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.served[callID]
}

// AnsweredLive reports whether the latest model call went to the live
// model (after LiveFrom): the tool calls the engine makes now are that
// model's, not the recording's.
func (p *Provider) AnsweredLive() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.live
}

// Stream answers the model call req. Which step it is comes from req: the
// number of assistant messages it holds, as the script provider does, so
// that an engine retry of a live call is not taken for the next step.
func (p *Provider) Stream(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (*llm.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	n := 1 // Load refuses forks: no assistant message comes before the first call
	for _, m := range req.Messages {
		if m.Role == llm.RoleAssistant {
			n++
		}
	}
	live := p.opts.LiveFrom > 0 && n >= p.opts.LiveFrom
	p.mu.Lock()
	p.live = live
	p.mu.Unlock()
	// The request of a live step is compared up to the first one only:
	// after it the conversation is the live model's, not the recording's.
	if n <= len(p.rec.steps) && (!live || n == p.opts.LiveFrom) {
		if d, ok := compare(n, p.rec.steps[n-1].request, req); ok {
			p.diverged(d)
		}
	}
	if live {
		if p.opts.Live == nil {
			return nil, &llm.Error{Kind: llm.ErrInvalid, Message: fmt.Sprintf("model call %d should go to a live model, and none is configured", n)}
		}
		// The live provider asks for its own model (the agent's, as this
		// machine defines it), not the one the recording names.
		req.Model = ""
		return p.opts.Live.Stream(ctx, req, onDelta)
	}
	if n > len(p.rec.steps) {
		return nil, &llm.Error{Kind: llm.ErrScriptEnded, Err: ErrEnded, Message: fmt.Sprintf(
			"the recording has %d model calls and the replay asks for call %d; use --live-from %d to go on with a live model",
			len(p.rec.steps), n, n)}
	}
	s := p.rec.steps[n-1]
	resp := s.response
	resp.ToolCalls = slices.Clone(resp.ToolCalls)
	p.mu.Lock()
	for _, c := range resp.ToolCalls {
		p.served[c.ID] = true
	}
	p.mu.Unlock()
	if onDelta != nil {
		pieces := s.deltas
		if len(pieces) == 0 && resp.Text != "" {
			pieces = []string{resp.Text}
		}
		for _, t := range pieces {
			onDelta(llm.Delta{Kind: llm.DeltaText, Text: t})
		}
		for i, c := range resp.ToolCalls {
			onDelta(llm.Delta{Kind: llm.DeltaToolArgs, Text: string(c.Arguments), ToolIndex: i, ToolName: c.Name})
		}
	}
	return &resp, nil
}

func (p *Provider) diverged(d Divergence) {
	p.mu.Lock()
	first := p.div == nil
	if first {
		p.div = &d
	}
	p.mu.Unlock()
	if first && p.opts.OnDivergence != nil {
		p.opts.OnDivergence(d)
	}
}

const none = "(none)"

// compare returns the first difference between the recorded request and
// got: the system prompt, then each message's role, text, tool calls and
// tool result, then the number of messages. The tools offered are not
// compared: they come from this Steward's registry, not from the run.
func compare(stepN int, rec, got llm.Request) (Divergence, bool) {
	d := func(field, r, g string) (Divergence, bool) {
		return Divergence{Step: stepN, Field: field, Recorded: r, Got: g}, true
	}
	if rec.System != got.System {
		return d("system", rec.System, got.System)
	}
	for i := range min(len(rec.Messages), len(got.Messages)) {
		r, g := rec.Messages[i], got.Messages[i]
		at := "messages[" + strconv.Itoa(i) + "]"
		if r.Role != g.Role {
			return d(at+".role", string(r.Role), string(g.Role))
		}
		what := ""
		if r.Role == llm.RoleTool {
			what = " (tool result of " + r.ToolCallID + ")"
			if r.ToolCallID != g.ToolCallID {
				return d(at+".tool_call_id", r.ToolCallID, g.ToolCallID)
			}
		}
		if r.Text != g.Text {
			return d(at+".content"+what, r.Text, g.Text)
		}
		if r.IsError != g.IsError {
			return d(at+".is_error"+what, strconv.FormatBool(r.IsError), strconv.FormatBool(g.IsError))
		}
		for j := range max(len(r.ToolCalls), len(g.ToolCalls)) {
			cf := at + ".tool_calls[" + strconv.Itoa(j) + "]"
			if j >= len(r.ToolCalls) || j >= len(g.ToolCalls) {
				return d(cf, callText(r.ToolCalls, j), callText(g.ToolCalls, j))
			}
			rc, gc := r.ToolCalls[j], g.ToolCalls[j]
			switch {
			case rc.ID != gc.ID:
				return d(cf+".id", rc.ID, gc.ID)
			case rc.Name != gc.Name:
				return d(cf+".name", rc.Name, gc.Name)
			case !sameJSON(rc.Arguments, gc.Arguments):
				return d(cf+".arguments", string(rc.Arguments), string(gc.Arguments))
			}
		}
	}
	if len(rec.Messages) != len(got.Messages) {
		i := min(len(rec.Messages), len(got.Messages))
		return d("messages["+strconv.Itoa(i)+"]", messageText(rec.Messages, i), messageText(got.Messages, i))
	}
	return Divergence{}, false
}

func callText(cs []llm.ToolCall, j int) string {
	if j >= len(cs) {
		return none
	}
	return cs[j].Name + " " + string(cs[j].Arguments) + " (" + cs[j].ID + ")"
}

func messageText(ms []llm.Message, i int) string {
	if i >= len(ms) {
		return none
	}
	return string(ms[i].Role) + ": " + ms[i].Text
}

// sameJSON compares arguments as JSON values: the log keeps them compacted
// or as the model wrote them, and neither spacing nor key order is a change.
func sameJSON(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xb, _ := json.Marshal(x) // maps marshal with sorted keys
	yb, _ := json.Marshal(y)
	return bytes.Equal(xb, yb)
}

// quote shows a value in a message, cut to a readable length.
func quote(s string) string {
	if s == none {
		return s
	}
	const maxShown = 200
	if r := []rune(s); len(r) > maxShown {
		s = string(r[:maxShown]) + "…"
	}
	return strconv.Quote(s)
}
