package anthropic

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
	pngBlock = `{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0K"}}`
	jpgBlock = `{"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": "/9j/"}}`
)

func TestRequestImages(t *testing.T) {
	t.Parallel()
	srv, seen := newServer(t, func(w http.ResponseWriter, r *http.Request) { sse(w, textAnswer("ok")...) })
	png := llm.Image{MediaType: "image/png", Data: pngData}
	jpg := llm.Image{MediaType: "image/jpeg", Data: jpgData}
	req := llm.Request{Messages: []llm.Message{
		{Role: llm.RoleUser, Text: "What is on this page?", Images: []llm.Image{png}},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{
			{ID: "toolu_1", Name: "browser_screenshot", Arguments: json.RawMessage(`{}`)},
			{ID: "toolu_2", Name: "read_file", Arguments: json.RawMessage(`{}`)},
			{ID: "toolu_3", Name: "browser_screenshot", Arguments: json.RawMessage(`{}`)},
		}},
		{Role: llm.RoleTool, ToolCallID: "toolu_1", Text: "Screenshot 1 (800x600).", Images: []llm.Image{png}},
		{Role: llm.RoleTool, ToolCallID: "toolu_2", Text: "no such file", IsError: true},
		// No text: the API rejects an empty text block, so only the images.
		{Role: llm.RoleTool, ToolCallID: "toolu_3", Images: []llm.Image{jpg, png}},
		// A user message after the results joins them, its images after its
		// text.
		{Role: llm.RoleUser, Text: "Compare them.", Images: []llm.Image{jpg}},
		{Role: llm.RoleAssistant, Text: "Done."},
		{Role: llm.RoleUser, Images: []llm.Image{png}},
	}}
	if _, err := newProvider(srv).Stream(context.Background(), req, nil); err != nil {
		t.Fatalf("Stream: %v", err)
	}
	got := seen()
	if len(got) != 1 {
		t.Fatalf("server saw %d requests, want 1", len(got))
	}
	var want []any
	if err := json.Unmarshal([]byte(`[
		{"role": "user", "content": [{"type": "text", "text": "What is on this page?"}, `+pngBlock+`]},
		{"role": "assistant", "content": [
			{"type": "tool_use", "id": "toolu_1", "name": "browser_screenshot", "input": {}},
			{"type": "tool_use", "id": "toolu_2", "name": "read_file", "input": {}},
			{"type": "tool_use", "id": "toolu_3", "name": "browser_screenshot", "input": {}}
		]},
		{"role": "user", "content": [
			{"type": "tool_result", "tool_use_id": "toolu_1", "is_error": false, "content": [
				{"type": "text", "text": "Screenshot 1 (800x600)."}, `+pngBlock+`
			]},
			{"type": "tool_result", "tool_use_id": "toolu_2", "is_error": true, "content": [{"type": "text", "text": "no such file"}]},
			{"type": "tool_result", "tool_use_id": "toolu_3", "is_error": false, "content": [`+jpgBlock+`, `+pngBlock+`]},
			{"type": "text", "text": "Compare them."}, `+jpgBlock+`
		]},
		{"role": "assistant", "content": [{"type": "text", "text": "Done."}]},
		{"role": "user", "content": [`+pngBlock+`]}
	]`), &want); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got[0].body["messages"]); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
}

func TestRequestInvalidImages(t *testing.T) {
	t.Parallel()
	srv, seen := newServer(t, func(w http.ResponseWriter, r *http.Request) { sse(w, textAnswer("ok")...) })
	// request puts img second on the tool message at index 2.
	request := func(img llm.Image) llm.Request {
		return llm.Request{Messages: []llm.Message{
			{Role: llm.RoleUser, Text: "Look."},
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "toolu_1", Name: "browser_screenshot"}}},
			{Role: llm.RoleTool, ToolCallID: "toolu_1", Text: "Screenshot.", Images: []llm.Image{{MediaType: "image/png", Data: pngData}, img}},
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
		{"no data", request(llm.Image{MediaType: "image/webp"}), "message 2: image 1: no image data"},
		{"on a user message", llm.Request{Messages: []llm.Message{
			{Role: llm.RoleUser, Text: "Look.", Images: []llm.Image{{MediaType: "image/svg+xml", Data: []byte("<svg/>")}}},
		}}, `message 0: image 0: media type "image/svg+xml"`},
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
