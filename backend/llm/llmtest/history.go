// Package llmtest holds what the providers' tests and benchmarks share: a
// realistic conversation of any length, the shape of an agent's run, so that
// the OpenAI and Anthropic providers are measured on the same history.
package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"steward/backend/llm"
)

// System is the system prompt of History's requests: about the size of an
// agent's.
var System = strings.Repeat("You are a careful engineer. Read before you write; say what you changed and why. ", 12)

// Tools are six tools with schemas of the size Steward's own tools have.
func Tools() []llm.ToolSpec {
	path := `{"type":"string","description":"A path relative to the workspace root."}`
	return []llm.ToolSpec{
		{Name: "read_file", Description: "Read a text file of the workspace, or a range of its lines.",
			Schema: json.RawMessage(`{"type":"object","properties":{"path":` + path + `,"offset":{"type":"integer","minimum":1},"limit":{"type":"integer","minimum":1,"maximum":2000}},"required":["path"]}`)},
		{Name: "write_file", Description: "Write a text file of the workspace, creating its folders.",
			Schema: json.RawMessage(`{"type":"object","properties":{"path":` + path + `,"content":{"type":"string"}},"required":["path","content"]}`)},
		{Name: "list_dir", Description: "List a folder of the workspace.",
			Schema: json.RawMessage(`{"type":"object","properties":{"path":` + path + `}}`)},
		{Name: "grep", Description: "Search the workspace's files for a regular expression.",
			Schema: json.RawMessage(`{"type":"object","properties":{"pattern":{"type":"string"},"path":` + path + `,"glob":{"type":"string"}},"required":["pattern"]}`)},
		{Name: "run_command", Description: "Run a shell command in the workspace.",
			Schema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"},"timeout_s":{"type":"integer","minimum":1,"maximum":3600}},"required":["command"]}`)},
		{Name: "apply_patch", Description: "Apply a patch to files of the workspace.",
			Schema: json.RawMessage(`{"type":"object","properties":{"patch":{"type":"string","description":"The patch, in the apply_patch format."}},"required":["patch"]}`)},
	}
}

// Step is turn i of an agent's run: the model's answer, asking for one
// read_file call, and the call's result, a source file of about 1.5 KB.
func Step(i int) []llm.Message {
	id := fmt.Sprintf("call_%d", i)
	var src strings.Builder
	fmt.Fprintf(&src, "package src // file %d\n\nimport \"fmt\"\n\n", i)
	for j := range 24 {
		fmt.Fprintf(&src, "func f%d_%d() { fmt.Println(\"line %d of file %d\") }\n", i, j, j, i)
	}
	return []llm.Message{
		{Role: llm.RoleAssistant, Text: fmt.Sprintf("Step %d: reading the next file to see how the pieces fit together.", i),
			ToolCalls: []llm.ToolCall{{ID: id, Name: "read_file", Arguments: json.RawMessage(fmt.Sprintf(`{"path":"src/file%d.go"}`, i))}}},
		{Role: llm.RoleTool, ToolCallID: id, Text: src.String()},
	}
}

// Instructions is the person's message that starts History.
const Instructions = "Read every file under src/ and tell me how they fit together."

// History is a conversation of 1+2*steps messages: the person's
// instructions, then Step(1) to Step(steps).
func History(steps int) []llm.Message {
	msgs := make([]llm.Message, 0, 1+2*steps+2)
	msgs = append(msgs, llm.Message{Role: llm.RoleUser, Text: Instructions})
	for i := 1; i <= steps; i++ {
		msgs = append(msgs, Step(i)...)
	}
	return msgs
}

// Edit is a change between two requests of a run, for tests of what a
// provider keeps from one request to the next.
type Edit struct {
	Name  string
	Apply func(*llm.Request)
}

// Edits are changes of every kind a conversation can see between two model
// calls, in order, from an empty request: steps added, tool results with
// images, a synthetic "interrupted" result replaced, bytes changed in place
// (arguments, images, a schema), messages dropped, another model, system
// prompt, tools or max_tokens.
func Edits() []Edit {
	img := func(b string) []llm.Image { return []llm.Image{{MediaType: "image/png", Data: []byte("\x89PNG" + b)}} }
	return []Edit{
		{"first call", func(r *llm.Request) {
			r.System, r.Tools, r.MaxTokens, r.Messages = System, Tools(), 1024, History(2)
		}},
		{"a step added", func(r *llm.Request) { r.Messages = append(r.Messages, Step(3)...) }},
		{"tool results with images", func(r *llm.Request) {
			r.Messages = append(r.Messages,
				llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{
					{ID: "shot_1", Name: "browser_screenshot", Arguments: json.RawMessage(`{}`)},
					{ID: "shot_2", Name: "browser_screenshot", Arguments: json.RawMessage(`{"full":true}`)}}},
				llm.Message{Role: llm.RoleTool, ToolCallID: "shot_1", Text: "Screenshot 1.", Images: img("one")},
				llm.Message{Role: llm.RoleTool, ToolCallID: "shot_2", Text: "interrupted", IsError: true})
		}},
		{"the interrupted result replaced", func(r *llm.Request) {
			r.Messages = slices.Clone(r.Messages)
			r.Messages[len(r.Messages)-1] = llm.Message{Role: llm.RoleTool, ToolCallID: "shot_2", Text: "Screenshot 2.", Images: img("two")}
		}},
		{"a person's message with an image", func(r *llm.Request) {
			r.Messages = append(r.Messages, llm.Message{Role: llm.RoleUser, Text: "And this one?", Images: img("three")})
		}},
		{"arguments changed in place", func(r *llm.Request) { r.Messages[1].ToolCalls[0].Arguments[3] = 'P' }},
		{"an image changed in place", func(r *llm.Request) { r.Messages[len(r.Messages)-1].Images[0].Data[4] = 'T' }},
		{"the same request again", func(*llm.Request) {}},
		{"the first messages dropped", func(r *llm.Request) { r.Messages = r.Messages[2:] }},
		{"a schema changed in place", func(r *llm.Request) {
			s := r.Tools[0].Schema
			s[bytes.Index(s, []byte(`"minimum":1`))+len(`"minimum":`)] = '2'
		}},
		{"another system prompt", func(r *llm.Request) { r.System = "Be brief." }},
		{"no system prompt, no tools, no max_tokens", func(r *llm.Request) { r.System, r.Tools, r.MaxTokens = "", nil, 0 }},
		{"another model", func(r *llm.Request) { r.Model = "other-model" }},
		{"a step added after all that", func(r *llm.Request) { r.Messages = append(r.Messages, Step(9)...) }},
	}
}
