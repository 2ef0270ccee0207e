package openai

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"steward/backend/llm"
)

// The first bytes of a PNG and of a JPEG file, and their base64.
var (
	pngData = []byte("\x89PNG\r\n")
	jpgData = []byte("\xff\xd8\xff")
)

const (
	pngBase64 = "iVBORw0K"
	jpgBase64 = "/9j/"
)

func TestRequestImages(t *testing.T) {
	t.Parallel()
	srv, seen := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		sse(w, chunk(`{"content":"ok"}`, "stop"))
	})
	png := llm.Image{MediaType: "image/png", Data: pngData}
	jpg := llm.Image{MediaType: "image/jpeg", Data: jpgData}
	req := llm.Request{Messages: []llm.Message{
		{Role: llm.RoleUser, Text: "What is on this page?", Images: []llm.Image{png}},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{
			{ID: "call_1", Name: "browser_screenshot", Arguments: json.RawMessage(`{}`)},
			{ID: "call_2", Name: "read_file", Arguments: json.RawMessage(`{}`)},
			{ID: "call_3", Name: "browser_screenshot", Arguments: json.RawMessage(`{}`)},
		}},
		// Tool messages stay text; the images of the run follow it in one
		// user message, each call's images after a text part naming it.
		{Role: llm.RoleTool, ToolCallID: "call_1", Text: "Screenshot 1 (800x600).", Images: []llm.Image{png}},
		{Role: llm.RoleTool, ToolCallID: "call_2", Text: "no such file", IsError: true},
		{Role: llm.RoleTool, ToolCallID: "call_3", Text: "Screenshot 2.", Images: []llm.Image{jpg, png}},
		{Role: llm.RoleUser, Text: "Go on."},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{
			{ID: "call_4", Name: "browser_screenshot", Arguments: json.RawMessage(`{}`)},
		}},
		// At the end of the conversation too.
		{Role: llm.RoleTool, ToolCallID: "call_4", Text: "Screenshot 3.", Images: []llm.Image{png}},
		// A user message with images and no text has no text part.
		{Role: llm.RoleUser, Images: []llm.Image{jpg}},
	}}
	if _, err := newProvider(srv).Stream(context.Background(), req, nil); err != nil {
		t.Fatalf("Stream: %v", err)
	}
	got := seen()
	if len(got) != 1 {
		t.Fatalf("server saw %d requests, want 1", len(got))
	}
	pngPart := `{"type": "image_url", "image_url": {"url": "data:image/png;base64,` + pngBase64 + `"}}`
	jpgPart := `{"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,` + jpgBase64 + `"}}`
	var want []any
	if err := json.Unmarshal([]byte(`[
		{"role": "user", "content": [{"type": "text", "text": "What is on this page?"}, `+pngPart+`]},
		{"role": "assistant", "tool_calls": [
			{"id": "call_1", "type": "function", "function": {"name": "browser_screenshot", "arguments": "{}"}},
			{"id": "call_2", "type": "function", "function": {"name": "read_file", "arguments": "{}"}},
			{"id": "call_3", "type": "function", "function": {"name": "browser_screenshot", "arguments": "{}"}}
		]},
		{"role": "tool", "tool_call_id": "call_1", "content": "Screenshot 1 (800x600)."},
		{"role": "tool", "tool_call_id": "call_2", "content": "Error: no such file"},
		{"role": "tool", "tool_call_id": "call_3", "content": "Screenshot 2."},
		{"role": "user", "content": [
			{"type": "text", "text": "Images from the result of tool call call_1:"}, `+pngPart+`,
			{"type": "text", "text": "Images from the result of tool call call_3:"}, `+jpgPart+`, `+pngPart+`
		]},
		{"role": "user", "content": "Go on."},
		{"role": "assistant", "tool_calls": [
			{"id": "call_4", "type": "function", "function": {"name": "browser_screenshot", "arguments": "{}"}}
		]},
		{"role": "tool", "tool_call_id": "call_4", "content": "Screenshot 3."},
		{"role": "user", "content": [{"type": "text", "text": "Images from the result of tool call call_4:"}, `+pngPart+`]},
		{"role": "user", "content": [`+jpgPart+`]}
	]`), &want); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got[0].body["messages"]); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
}

func TestRequestInvalidImages(t *testing.T) {
	t.Parallel()
	srv, seen := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		sse(w, chunk(`{"content":"ok"}`, "stop"))
	})
	// request puts img second on the tool message at index 2.
	request := func(img llm.Image) llm.Request {
		return llm.Request{Messages: []llm.Message{
			{Role: llm.RoleUser, Text: "Look."},
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "browser_screenshot"}}},
			{Role: llm.RoleTool, ToolCallID: "call_1", Text: "Screenshot.", Images: []llm.Image{{MediaType: "image/png", Data: pngData}, img}},
		}}
	}
	tests := []struct {
		name string
		req  llm.Request
		want string
	}{
		{"bmp", request(llm.Image{MediaType: "image/bmp", Data: pngData}),
			`message 2: image 1: media type "image/bmp" is not one of image/png, image/jpeg, image/gif, image/webp`},
		{"no media type", request(llm.Image{Data: pngData}), `message 2: image 1: media type ""`},
		{"no data", request(llm.Image{MediaType: "image/png"}), "message 2: image 1: no image data"},
		{"on a user message", llm.Request{Messages: []llm.Message{
			{Role: llm.RoleUser, Text: "Look.", Images: []llm.Image{{MediaType: "text/html", Data: []byte("<p>")}}},
		}}, `message 0: image 0: media type "text/html"`},
		{"on an assistant message", llm.Request{Messages: []llm.Message{
			{Role: llm.RoleUser, Text: "Look."},
			{Role: llm.RoleAssistant, Text: "Here.", Images: []llm.Image{{MediaType: "image/png", Data: pngData}}},
		}}, "message 1: an assistant message cannot carry images"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := newProvider(srv).Stream(context.Background(), tt.req, nil)
			var le *llm.Error
			if !errors.As(err, &le) || le.Kind != llm.ErrInvalid || !strings.Contains(le.Message, tt.want) {
				t.Errorf("err = %v, want an invalid error containing %q", err, tt.want)
			}
		})
	}
	if n := len(seen()); n != 0 {
		t.Errorf("server saw %d requests, want none", n)
	}
}
