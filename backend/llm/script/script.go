// Package script is an llm.Provider that plays a scripted conversation
// instead of calling a model: Steward's built-in demo, which needs no key,
// and the model of engine tests.
//
// # Format
//
// A script is JSON:
//
//	{
//	  "name": "demo",
//	  "model": "demo-script",
//	  "chunk_delay_ms": 25,
//	  "turns": [
//	    {"text": "Let me look around.", "tool_calls": [{"name": "list_dir", "arguments": {"path": "."}}]},
//	    {"text": "Done: {{last_tool_output}}"}
//	  ]
//	}
//
// chunk_delay_ms, optional, paces the stream of this script (see
// Streaming): 0 to 5000 milliseconds before each delta. It applies when the
// Provider's Options.ChunkDelay is zero, so a script file can make its runs
// slow enough to watch, pause or interrupt.
//
// Turn N (counting from 1) answers the Nth model call of a run. The turn to
// play is worked out from the request alone: a request whose messages hold
// k assistant messages gets turn k+1. So one Provider serves many runs at
// once, and a resumed run continues where it stopped. Past the last turn the
// provider answers "(the script has ended)" and ends the turn.
//
// A turn has text, tool calls, or both. A tool call has a name and
// arguments, a JSON object (absent means {}). Its id is "call_<N>_<i>": N the
// turn, i the call's position in the turn from 0. A turn with tool calls
// stops with llm.StopToolCalls, any other with llm.StopEnd.
//
// Text and the string values of arguments may hold placeholders:
//
//   - {{instructions}}: the text of the first user message;
//   - {{last_tool_output}}: the text of the latest tool message, without
//     surrounding whitespace and cut to 2000 bytes.
//
// Substituted into arguments, values are JSON-escaped, so quotes and newlines
// in them are safe. Other {{...}} placeholders are a parse error.
//
// # Streaming
//
// Text streams word by word (each delta is a run of whitespace and the word
// after it, so the deltas add up to the text exactly); each tool call's
// arguments come as one llm.DeltaToolArgs delta. Options.ChunkDelay (or, when
// it is zero, the script's chunk_delay_ms) paces the deltas so a person can
// watch the stream; the wait ends early when the context is cancelled. A
// turn reports no usage unless the script states it: no model counted
// tokens. Stream runs no goroutines.
package script

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
)

// Script is a parsed conversation. Use Parse, Load or Demo to get a valid one.
type Script struct {
	Name  string `json:"name,omitempty"`
	Model string `json:"model,omitempty"`
	// ChunkDelayMS is the pause before each streamed delta, in milliseconds,
	// used when the Provider's Options.ChunkDelay is zero.
	ChunkDelayMS int    `json:"chunk_delay_ms,omitempty"`
	Turns        []Turn `json:"turns"`
}

// MaxChunkDelayMS bounds chunk_delay_ms: a script is slow to watch, not
// stuck.
const MaxChunkDelayMS = 5000

// Turn is the answer to one model call.
type Turn struct {
	Text      string     `json:"text,omitempty"`
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// Usage is what the turn reports it used, when the script says so (a
	// test of budgets); none otherwise: no model counted tokens.
	Usage *Usage `json:"usage,omitempty"`
}

// Usage is a turn's stated token counts.
type Usage struct {
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
}

// ToolCall is a tool call of a turn. Arguments is a JSON object.
type ToolCall struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// Placeholders known in script strings.
const (
	placeholderInstructions   = "{{instructions}}"
	placeholderLastToolOutput = "{{last_tool_output}}"
)

// placeholderRE finds anything spelt like a placeholder, to reject misspelt
// ones at parse time rather than show them to the person. It is strict (no
// spaces, lower case) so that text such as a Go or Helm template "{{ .Name }}"
// stays literal.
var placeholderRE = regexp.MustCompile(`\{\{[a-z_]+\}\}`)

//go:embed demo.json
var demoJSON []byte

// Parse reads a script from JSON and checks it: at least one turn, every turn
// with text or tool calls, every tool call with a name and object arguments,
// no unknown fields or placeholders, chunk_delay_ms within 0 to
// MaxChunkDelayMS. Errors name the turn and field, such as
// "turn 2 (turns[1]): tool_calls[0].arguments: want a JSON object".
func Parse(data []byte) (*Script, error) {
	var s Script
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields() // a misspelt "tool_calls" must not pass silently
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("script: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("script: unexpected data after the JSON object")
	}
	if s.ChunkDelayMS < 0 || s.ChunkDelayMS > MaxChunkDelayMS {
		return nil, fmt.Errorf("script: chunk_delay_ms: %d is out of range 0 to %d", s.ChunkDelayMS, MaxChunkDelayMS)
	}
	if len(s.Turns) == 0 {
		return nil, fmt.Errorf("script: turns: want at least one turn")
	}
	for i := range s.Turns {
		if err := s.Turns[i].check(); err != nil {
			return nil, fmt.Errorf("script: turn %d (turns[%d]): %w", i+1, i, err)
		}
	}
	return &s, nil
}

// check validates t and fills absent arguments with {}.
func (t *Turn) check() error {
	if t.Text == "" && len(t.ToolCalls) == 0 {
		return fmt.Errorf("want text or tool_calls")
	}
	if err := checkPlaceholders(t.Text); err != nil {
		return fmt.Errorf("text: %w", err)
	}
	for j := range t.ToolCalls {
		c := &t.ToolCalls[j]
		if c.Name == "" {
			return fmt.Errorf("tool_calls[%d].name: want a tool name", j)
		}
		args := bytes.TrimSpace(c.Arguments)
		if len(args) == 0 {
			c.Arguments = json.RawMessage("{}")
			continue
		}
		if args[0] != '{' {
			return fmt.Errorf("tool_calls[%d].arguments: want a JSON object, got %s", j, abbreviate(args))
		}
		if err := checkPlaceholders(string(args)); err != nil {
			return fmt.Errorf("tool_calls[%d].arguments: %w", j, err)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, args); err != nil { // cannot fail: the decoder checked it
			return fmt.Errorf("tool_calls[%d].arguments: %w", j, err)
		}
		c.Arguments = compact.Bytes()
	}
	return nil
}

func checkPlaceholders(s string) error {
	for _, p := range placeholderRE.FindAllString(s, -1) {
		if p != placeholderInstructions && p != placeholderLastToolOutput {
			return fmt.Errorf("unknown placeholder %s (known: %s, %s)", p, placeholderInstructions, placeholderLastToolOutput)
		}
	}
	return nil
}

func abbreviate(b []byte) string {
	const n = 40
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}

// Load reads and parses the script file at path.
func Load(path string) (*Script, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load script: %w", err)
	}
	s, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("load script %s: %w", path, err)
	}
	return s, nil
}

// Demo returns the built-in demo script, a fresh copy on every call. It lists
// the workspace, writes steward-demo.md (which needs the person's approval)
// and says what it did.
func Demo() *Script {
	s, err := Parse(demoJSON)
	if err != nil {
		// demo.json is compiled in and parsed by the tests.
		panic(fmt.Sprintf("script: embedded demo.json: %v", err))
	}
	return s
}
