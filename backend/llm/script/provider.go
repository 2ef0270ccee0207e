package script

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"steward/backend/llm"
)

// EndedText is the answer to a model call past the script's last turn.
const EndedText = "(the script has ended)"

// maxToolOutput bounds {{last_tool_output}}: enough to show a listing, not
// enough to flood the conversation with a whole file.
const maxToolOutput = 2000

// defaultModel names the model in responses when the script names none.
const defaultModel = "script"

// Options tune a Provider. The zero value streams without pauses.
type Options struct {
	// ChunkDelay is the pause before each streamed delta. The demo uses about
	// 25ms so that a person sees the text arrive; tests use 0. Zero means the
	// script's own chunk_delay_ms.
	ChunkDelay time.Duration
}

// Provider plays a Script. It holds no per-run state and is safe for
// concurrent use.
type Provider struct {
	script *Script
	opts   Options
}

var _ llm.Provider = (*Provider)(nil)

// New returns a Provider playing s, which must come from Parse, Load or Demo
// and must not be changed afterwards.
func New(s *Script, opts Options) *Provider {
	if opts.ChunkDelay == 0 {
		opts.ChunkDelay = time.Duration(s.ChunkDelayMS) * time.Millisecond
	}
	return &Provider{script: s, opts: opts}
}

// Stream plays the turn that answers req (see the package comment) and
// streams it to onDelta. Its only error is the context's, when ctx ends
// before the turn has been streamed.
func (p *Provider) Stream(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (*llm.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("script: %w", err)
	}
	if onDelta == nil {
		onDelta = func(llm.Delta) {}
	}
	resp, err := p.answer(req)
	if err != nil {
		return nil, err
	}

	for _, w := range words(resp.Text) {
		if err := p.pause(ctx); err != nil {
			return nil, err
		}
		onDelta(llm.Delta{Kind: llm.DeltaText, Text: w})
	}
	for i, c := range resp.ToolCalls {
		if err := p.pause(ctx); err != nil {
			return nil, err
		}
		onDelta(llm.Delta{Kind: llm.DeltaToolArgs, Text: string(c.Arguments), ToolIndex: i, ToolName: c.Name})
	}
	return resp, nil
}

// answer builds the response to req without streaming it.
func (p *Provider) answer(req llm.Request) (*llm.Response, error) {
	resp := &llm.Response{Model: p.script.Model, StopReason: llm.StopEnd}
	if resp.Model == "" {
		resp.Model = defaultModel
	}

	n := 0 // model calls already answered in this run
	for _, m := range req.Messages {
		if m.Role == llm.RoleAssistant {
			n++
		}
	}
	if n >= len(p.script.Turns) {
		resp.Text = EndedText
	} else {
		turn := p.script.Turns[n]
		v := varsFrom(req.Messages)
		resp.Text = v.text.Replace(turn.Text)
		for i, c := range turn.ToolCalls {
			args := json.RawMessage(v.json.Replace(string(c.Arguments)))
			if !json.Valid(args) {
				// Parse checked the arguments and substitution escapes what it
				// inserts, so this is a bug, not a script mistake.
				return nil, &llm.Error{Kind: llm.ErrBadResponse, Message: fmt.Sprintf("turn %d: tool_calls[%d]: arguments are not JSON after substitution", n+1, i)}
			}
			resp.ToolCalls = append(resp.ToolCalls, llm.ToolCall{
				ID:        fmt.Sprintf("call_%d_%d", n+1, i),
				Name:      c.Name,
				Arguments: args,
			})
		}
		if len(resp.ToolCalls) > 0 {
			resp.StopReason = llm.StopToolCalls
		}
		if u := turn.Usage; u != nil {
			resp.Usage = llm.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens}
		}
	}

	// No usage: no model counted tokens, and the workbench shows no
	// invented figures.
	return resp, nil
}

// vars substitutes placeholders, in plain text and inside JSON strings. Both
// replacers work in one pass, so a value that itself contains a placeholder
// is not expanded again.
type vars struct {
	text, json *strings.Replacer
}

func varsFrom(msgs []llm.Message) vars {
	var instructions, lastTool string
	foundUser := false
	for _, m := range msgs {
		switch {
		case m.Role == llm.RoleUser && !foundUser:
			instructions, foundUser = m.Text, true
		case m.Role == llm.RoleTool:
			lastTool = m.Text
		}
	}
	// Tool outputs usually end in a newline, which reads badly mid-sentence.
	lastTool = truncate(strings.TrimSpace(lastTool), maxToolOutput)
	return vars{
		text: strings.NewReplacer(
			placeholderInstructions, instructions,
			placeholderLastToolOutput, lastTool,
		),
		json: strings.NewReplacer(
			placeholderInstructions, jsonStringContent(instructions),
			placeholderLastToolOutput, jsonStringContent(lastTool),
		),
	}
}

// jsonStringContent is s escaped for use between the quotes of a JSON string.
func jsonStringContent(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // keep <, > and & readable in files the demo writes
	_ = enc.Encode(s)        // encoding a string cannot fail
	out := bytes.TrimSuffix(b.Bytes(), []byte("\n"))
	return string(out[1 : len(out)-1])
}

// truncate cuts s to at most n bytes without splitting a UTF-8 sequence.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// words splits s into deltas: each is a run of whitespace followed by the
// word after it, so the pieces concatenate back to s exactly.
func words(s string) []string {
	var out []string
	start, inWord := 0, false
	for i, r := range s {
		space := unicode.IsSpace(r)
		if space && inWord {
			out = append(out, s[start:i])
			start = i
		}
		inWord = !space
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// pause waits ChunkDelay, or returns the context's error if it ends first.
func (p *Provider) pause(ctx context.Context) error {
	if p.opts.ChunkDelay <= 0 {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("script: %w", err)
		}
		return nil
	}
	t := time.NewTimer(p.opts.ChunkDelay)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return fmt.Errorf("script: %w", ctx.Err())
	case <-t.C:
		return nil
	}
}
