package main

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

// modelServer answers a conversation whose last message is the user's with
// one write_file call per file name (*.txt) in the user's text, all in one
// turn; and a conversation that ends with tool results with "Done.".
type modelServer struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []chatRequest
}

type chatRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role       string `json:"role"`
		Content    any    `json:"content"`
		ToolCallID string `json:"tool_call_id"`
	} `json:"messages"`
}

var txtRE = regexp.MustCompile(`[\w-]+\.txt`)

func newModelServer(t *testing.T) *modelServer {
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
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := func(delta, finish string) {
			fr := "null"
			if finish != "" {
				fr = `"` + finish + `"`
			}
			fmt.Fprintf(w, "data: {\"id\":\"chatcmpl-%d\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,\"model\":\"fake\",\"choices\":[{\"index\":0,\"delta\":%s,\"finish_reason\":%s}]}\n\n", n, delta, fr)
		}
		last := req.Messages[len(req.Messages)-1]
		if last.Role == "tool" {
			chunk(`{"role":"assistant","content":"Done."}`, "")
			chunk(`{}`, "stop")
		} else {
			text, _ := last.Content.(string)
			chunk(`{"role":"assistant","content":"Writing the files."}`, "")
			for i, name := range txtRE.FindAllString(text, -1) {
				args, _ := json.Marshal(map[string]string{"path": name, "content": "written by the model"})
				call, _ := json.Marshal(map[string]any{"index": i, "id": fmt.Sprintf("call_%d_%d", n, i), "type": "function",
					"function": map[string]string{"name": "write_file", "arguments": string(args)}})
				chunk(`{"tool_calls":[`+string(call)+`]}`, "")
			}
			chunk(`{}`, "tool_calls")
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
				s, _ := msg.Content.(string)
				out[msg.ToolCallID] = s
			}
		}
	}
	return out
}
