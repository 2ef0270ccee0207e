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

// decode decodes a JSON text the way the captured body was decoded, so that
// numbers are float64 on both sides.
func decode(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestRequestMapping(t *testing.T) {
	t.Parallel()
	srv, seen := newServer(t, func(w http.ResponseWriter, r *http.Request) { sse(w, textAnswer("ok")...) })
	req := llm.Request{
		Model:     "claude-other",
		System:    "You are careful.",
		MaxTokens: 512,
		Messages: []llm.Message{
			{Role: llm.RoleUser, Text: "List and read."},
			{Role: llm.RoleAssistant, Text: "Sure.", ToolCalls: []llm.ToolCall{
				{ID: "toolu_1", Name: "list_dir", Arguments: json.RawMessage(`{"path":"."}`)},
				{ID: "toolu_2", Name: "read_file", Arguments: nil},
				// What the stream reports for input cut off by max_tokens: not
				// an object, so it is sent as {}.
				{ID: "toolu_3", Name: "write_file", Arguments: json.RawMessage(`"{\"path\":\"a"`)},
			}},
			// All results of the turn, and the text after them, go in one
			// user message.
			{Role: llm.RoleTool, ToolCallID: "toolu_1", Text: "a.txt\nb.txt"},
			{Role: llm.RoleTool, ToolCallID: "toolu_2", Text: "missing path", IsError: true},
			{Role: llm.RoleTool, ToolCallID: "toolu_3", Text: ""},
			{Role: llm.RoleUser, Text: "Now summarise."},
			{Role: llm.RoleAssistant, Text: "Done."},
			{Role: llm.RoleUser, Text: "Thanks."},
		},
		Tools: []llm.ToolSpec{
			{Name: "list_dir", Description: "List a directory.", Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
			{Name: "now", Description: "The time.", Schema: nil},
			{Name: "count", Schema: json.RawMessage(`{"properties":{"n":{"type":"integer","maximum":10000000000000001}},"additionalProperties":false}`)},
		},
	}
	if _, err := newProvider(srv).Stream(context.Background(), req, nil); err != nil {
		t.Fatalf("Stream: %v", err)
	}
	got := seen()
	if len(got) != 1 {
		t.Fatalf("server saw %d requests, want 1", len(got))
	}
	c := got[0]
	if c.path != "/v1/messages" {
		t.Errorf("path = %q, want /v1/messages", c.path)
	}
	wantHeaders := map[string]string{
		"X-Api-Key":               "sk-ant-test",
		"Authorization":           "", // the key goes in x-api-key only
		"Content-Type":            "application/json",
		"X-Stainless-Retry-Count": "0",
	}
	for k, want := range wantHeaders {
		if got := c.header.Get(k); got != want {
			t.Errorf("header %s = %q, want %q", k, got, want)
		}
	}
	if v := c.header.Get("Anthropic-Version"); v == "" {
		t.Error("no anthropic-version header")
	}
	if tp := c.header.Get("Traceparent"); tp != "" {
		t.Errorf("traceparent = %q, want none", tp)
	}

	want := decode(t, `{
		"model": "claude-other",
		"max_tokens": 512,
		"stream": true,
		"system": [{"type": "text", "text": "You are careful."}],
		"messages": [
			{"role": "user", "content": [{"type": "text", "text": "List and read."}]},
			{"role": "assistant", "content": [
				{"type": "text", "text": "Sure."},
				{"type": "tool_use", "id": "toolu_1", "name": "list_dir", "input": {"path": "."}},
				{"type": "tool_use", "id": "toolu_2", "name": "read_file", "input": {}},
				{"type": "tool_use", "id": "toolu_3", "name": "write_file", "input": {}}
			]},
			{"role": "user", "content": [
				{"type": "tool_result", "tool_use_id": "toolu_1", "is_error": false, "content": [{"type": "text", "text": "a.txt\nb.txt"}]},
				{"type": "tool_result", "tool_use_id": "toolu_2", "is_error": true, "content": [{"type": "text", "text": "missing path"}]},
				{"type": "tool_result", "tool_use_id": "toolu_3", "is_error": false},
				{"type": "text", "text": "Now summarise."}
			]},
			{"role": "assistant", "content": [{"type": "text", "text": "Done."}]},
			{"role": "user", "content": [{"type": "text", "text": "Thanks."}]}
		],
		"tools": [
			{"name": "list_dir", "description": "List a directory.",
				"input_schema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}},
			{"name": "now", "description": "The time.", "input_schema": {"type": "object", "properties": {}}},
			{"name": "count", "input_schema": {"type": "object", "properties": {"n": {"type": "integer", "maximum": 10000000000000001}}, "additionalProperties": false}}
		]
	}`)
	if diff := cmp.Diff(want, c.body); diff != "" {
		t.Errorf("request body (-want +got):\n%s", diff)
	}
	// Decoded as float64 the big maximum would compare equal even if rounded.
	if !strings.Contains(c.raw, `"maximum":10000000000000001`) {
		t.Errorf("schema number not sent as written: %s", c.raw)
	}
}

func TestRequestToolResultsComeFirst(t *testing.T) {
	t.Parallel()
	srv, seen := newServer(t, func(w http.ResponseWriter, r *http.Request) { sse(w, textAnswer("ok")...) })
	req := llm.Request{Messages: []llm.Message{
		{Role: llm.RoleUser, Text: "Go."},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{
			{ID: "toolu_1", Name: "a", Arguments: json.RawMessage(`{}`)},
			{ID: "toolu_2", Name: "b", Arguments: json.RawMessage(`{}`)},
		}},
		// A person typed while the tools ran: the API wants the results
		// before any text of the message.
		{Role: llm.RoleTool, ToolCallID: "toolu_1", Text: "one"},
		{Role: llm.RoleUser, Text: "Hurry."},
		{Role: llm.RoleTool, ToolCallID: "toolu_2", Text: "two"},
		// Empty messages are dropped; the API rejects empty text.
		{Role: llm.RoleUser, Text: ""},
		{Role: llm.RoleAssistant},
	}}
	if _, err := newProvider(srv).Stream(context.Background(), req, nil); err != nil {
		t.Fatalf("Stream: %v", err)
	}
	want := decode(t, `{"messages": [
		{"role": "user", "content": [{"type": "text", "text": "Go."}]},
		{"role": "assistant", "content": [
			{"type": "tool_use", "id": "toolu_1", "name": "a", "input": {}},
			{"type": "tool_use", "id": "toolu_2", "name": "b", "input": {}}
		]},
		{"role": "user", "content": [
			{"type": "tool_result", "tool_use_id": "toolu_1", "is_error": false, "content": [{"type": "text", "text": "one"}]},
			{"type": "tool_result", "tool_use_id": "toolu_2", "is_error": false, "content": [{"type": "text", "text": "two"}]},
			{"type": "text", "text": "Hurry."}
		]}
	]}`)
	if diff := cmp.Diff(want["messages"], seen()[0].body["messages"]); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
}

func TestRequestDefaults(t *testing.T) {
	t.Parallel()
	srv, seen := newServer(t, func(w http.ResponseWriter, r *http.Request) { sse(w, textAnswer("ok")...) })
	tests := []struct {
		name      string
		cfg       Config
		req       llm.Request
		model     string
		maxTokens float64
	}{
		{"config model, default max_tokens", Config{Model: "claude-a"}, simpleRequest(), "claude-a", DefaultMaxTokens},
		{"config max_tokens", Config{Model: "claude-a", MaxTokens: 1000}, simpleRequest(), "claude-a", 1000},
		{"request wins", Config{Model: "claude-a", MaxTokens: 1000},
			llm.Request{Model: "claude-b", MaxTokens: 64, Messages: simpleRequest().Messages}, "claude-b", 64},
	}
	for i, tt := range tests {
		tt.cfg.BaseURL, tt.cfg.HTTPClient = srv.URL, srv.Client()
		if _, err := New(tt.cfg).Stream(context.Background(), tt.req, nil); err != nil {
			t.Fatalf("%s: Stream: %v", tt.name, err)
		}
		body := seen()[i].body
		if body["model"] != tt.model || body["max_tokens"] != tt.maxTokens {
			t.Errorf("%s: model %v max_tokens %v, want %v %v", tt.name, body["model"], body["max_tokens"], tt.model, tt.maxTokens)
		}
		for _, k := range []string{"system", "tools", "tool_choice", "temperature", "thinking"} {
			if v, ok := body[k]; ok {
				t.Errorf("%s: %s = %v, want it absent", tt.name, k, v)
			}
		}
		// No key configured, no key sent.
		for _, k := range []string{"X-Api-Key", "Authorization"} {
			if v := seen()[i].header.Get(k); v != "" {
				t.Errorf("%s: header %s = %q, want none", tt.name, k, v)
			}
		}
	}
}

func TestRequestInvalid(t *testing.T) {
	t.Parallel()
	srv, seen := newServer(t, func(w http.ResponseWriter, r *http.Request) { sse(w, textAnswer("ok")...) })
	tests := []struct {
		name string
		p    *Provider
		req  llm.Request
		want string
	}{
		{"no model", New(Config{BaseURL: srv.URL, HTTPClient: srv.Client()}), simpleRequest(), "no model"},
		{"schema not an object", newProvider(srv), llm.Request{
			Messages: simpleRequest().Messages,
			Tools:    []llm.ToolSpec{{Name: "x", Schema: json.RawMessage(`[1]`)}},
		}, "tool x: schema is not a JSON object"},
		{"schema of a string", newProvider(srv), llm.Request{
			Messages: simpleRequest().Messages,
			Tools:    []llm.ToolSpec{{Name: "x", Schema: json.RawMessage(`{"type":"string"}`)}},
		}, `tool x: schema type is "string", want "object"`},
		{"tool result without id", newProvider(srv), llm.Request{Messages: []llm.Message{{Role: llm.RoleTool, Text: "x"}}},
			"message 0: tool message without tool_call_id"},
		{"bad role", newProvider(srv), llm.Request{Messages: []llm.Message{{Role: "robot", Text: "x"}}}, `message 0: unknown role "robot"`},
		{"bad base URL", New(Config{BaseURL: "api.anthropic.com", Model: "m"}), simpleRequest(), "invalid base URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.p.Stream(context.Background(), tt.req, nil)
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

func TestBaseURLForms(t *testing.T) {
	t.Parallel()
	srv, seen := newServer(t, func(w http.ResponseWriter, r *http.Request) { sse(w, textAnswer("ok")...) })
	forms := []string{srv.URL, srv.URL + "/", srv.URL + "/v1", srv.URL + "/v1/", " " + srv.URL + "/v1/ "}
	for _, base := range forms {
		p := New(Config{BaseURL: base, Model: "m", HTTPClient: srv.Client()})
		if _, err := p.Stream(context.Background(), simpleRequest(), nil); err != nil {
			t.Errorf("base %q: %v", base, err)
		}
	}
	got := seen()
	if len(got) != len(forms) {
		t.Fatalf("server saw %d requests, want %d", len(got), len(forms))
	}
	for i, c := range got {
		if c.path != "/v1/messages" {
			t.Errorf("base %q: path = %q, want /v1/messages", forms[i], c.path)
		}
	}
}

func TestNormalizeBaseURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
		wantErr  bool
	}{
		{"", "https://api.anthropic.com/", false},
		{"https://api.anthropic.com", "https://api.anthropic.com/", false},
		{"https://api.anthropic.com/v1", "https://api.anthropic.com/", false},
		{"https://api.anthropic.com/v1/", "https://api.anthropic.com/", false},
		{"http://localhost:4000/anthropic", "http://localhost:4000/anthropic/", false},
		{"http://localhost:4000/anthropic/v1//", "http://localhost:4000/anthropic/", false},
		{"http://localhost:4000/v10", "http://localhost:4000/v10/", false},
		{"api.anthropic.com", "", true},
		{"ftp://host/v1", "", true},
		{"http://", "", true},
	}
	for _, tt := range tests {
		got, err := normalizeBaseURL(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("normalizeBaseURL(%q) = %q, %v; want %q, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

// TestEnvironmentIgnored checks that a developer's ANTHROPIC_* variables do
// not reach the wire. Not parallel: it sets environment variables.
func TestEnvironmentIgnored(t *testing.T) {
	t.Setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:1/bogus")
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-from-env")
	t.Setenv("ANTHROPIC_AUTH_TOKEN", "token-from-env")
	t.Setenv("ANTHROPIC_CUSTOM_HEADERS", "X-From-Env: yes")
	t.Setenv("ANTHROPIC_PROFILE", "no-such-profile")
	t.Setenv("ANTHROPIC_CONFIG_DIR", t.TempDir())
	t.Setenv("ANTHROPIC_OPEN_TELEMETRY", "true")

	srv, seen := newServer(t, func(w http.ResponseWriter, r *http.Request) { sse(w, textAnswer("ok")...) })
	for _, p := range []*Provider{
		newProvider(srv),
		New(Config{BaseURL: srv.URL, Model: "m", HTTPClient: srv.Client()}), // no key: none from the environment either
	} {
		resp, err := p.Stream(context.Background(), simpleRequest(), nil)
		if err != nil {
			t.Fatalf("Stream: %v (the environment's base URL or profile leaked in?)", err)
		}
		if resp.Text != "ok" {
			t.Errorf("Text = %q, want ok", resp.Text)
		}
	}
	got := seen()
	if len(got) != 2 {
		t.Fatalf("server saw %d requests, want 2", len(got))
	}
	for i, wantKey := range []string{"sk-ant-test", ""} {
		h := got[i].header
		if k := h.Get("X-Api-Key"); k != wantKey {
			t.Errorf("request %d: X-Api-Key = %q, want %q", i, k, wantKey)
		}
		for _, k := range []string{"Authorization", "X-From-Env"} {
			if v := h.Get(k); v != "" {
				t.Errorf("request %d: header %s = %q, want none", i, k, v)
			}
		}
	}

	// Without an explicit base URL the default wins, not the environment's.
	p := New(Config{Model: "m"})
	if p.baseURLForMessages != DefaultBaseURL {
		t.Errorf("default base URL = %q, want %q", p.baseURLForMessages, DefaultBaseURL)
	}
}
