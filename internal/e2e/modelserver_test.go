package e2e

// A fake OpenAI-compatible model server for the end-to-end tests: it speaks
// the chat completions streaming wire format and keeps every request it
// receives, so a test can check what the model was told.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sync"
	"testing"
)

// modelServer is a fake model: each request's answer is decided by its
// turn function from the conversation so far.
type modelServer struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []chatRequest
}

type chatRequest struct {
	Model    string          `json:"model"`
	Messages []chatMessage   `json:"messages"`
	Tools    json.RawMessage `json:"tools"` // the tools the model was offered
}

type chatMessage struct {
	Role       string `json:"role"`
	Content    any    `json:"content"`
	ToolCallID string `json:"tool_call_id"`
}

// text is the message's content as a string (what tool results hold).
func (m chatMessage) text() string { s, _ := m.Content.(string); return s }

// fakeCall is one tool call a fake model makes.
type fakeCall struct {
	Name string
	Args any
}

// modelTurn decides the answer to request n (from 1): text, and the tool
// calls to make in one turn (none ends the run).
type modelTurn func(req chatRequest, n int) (text string, calls []fakeCall)

var txtRE = regexp.MustCompile(`[\w-]+\.txt`)

// newModelServer answers a conversation whose last message is the user's
// with one write_file call per file name (*.txt) in the user's text, all in
// one turn; and a conversation that ends with tool results with "Done.".
func newModelServer(t *testing.T) *modelServer {
	return newModelServerFunc(t, func(req chatRequest, _ int) (string, []fakeCall) {
		last := req.Messages[len(req.Messages)-1]
		if last.Role == "tool" {
			return "Done.", nil
		}
		var calls []fakeCall
		for _, name := range txtRE.FindAllString(last.text(), -1) {
			calls = append(calls, fakeCall{"write_file", map[string]string{"path": name, "content": "written by the model"}})
		}
		return "Writing the files.", calls
	})
}

// newModelServerFunc serves chat completions, streamed in the OpenAI wire
// format, whose answers turn decides.
func newModelServerFunc(t *testing.T, turn modelTurn) *modelServer {
	t.Helper()
	m := &modelServer{}
	m.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
			return
		}
		var req chatRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		m.mu.Lock()
		m.reqs = append(m.reqs, req)
		n := len(m.reqs)
		m.mu.Unlock()
		text, calls := turn(req, n)
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := func(delta, finish string) {
			fr := "null"
			if finish != "" {
				fr = `"` + finish + `"`
			}
			fmt.Fprintf(w, "data: {\"id\":\"chatcmpl-%d\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,\"model\":\"fake\",\"choices\":[{\"index\":0,\"delta\":%s,\"finish_reason\":%s}]}\n\n", n, delta, fr)
		}
		content, _ := json.Marshal(map[string]string{"role": "assistant", "content": text})
		chunk(string(content), "")
		for i, c := range calls {
			args, _ := json.Marshal(c.Args)
			call, _ := json.Marshal(map[string]any{"index": i, "id": fmt.Sprintf("call_%d_%d", n, i), "type": "function",
				"function": map[string]string{"name": c.Name, "arguments": string(args)}})
			chunk(`{"tool_calls":[`+string(call)+`]}`, "")
		}
		if len(calls) > 0 {
			chunk(`{}`, "tool_calls")
		} else {
			chunk(`{}`, "stop")
		}
		fmt.Fprintf(w, "data: {\"id\":\"chatcmpl-%d\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,\"model\":\"fake\",\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":5,\"total_tokens\":15}}\n\n", n)
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(m.Close)
	return m
}

// toolResults returns the text of every tool message the server received,
// by tool call id, from the latest request that holds it.
func (m *modelServer) toolResults() map[string]string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]string{}
	for _, r := range m.reqs {
		for _, msg := range r.Messages {
			if msg.Role == "tool" {
				out[msg.ToolCallID] = msg.text()
			}
		}
	}
	return out
}
