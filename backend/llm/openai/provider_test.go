package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"steward/backend/llm"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// chunk is one Chat Completions stream chunk as the API sends it, with the
// given choice delta (or no choice at all when delta is empty).
func chunk(delta, finish string) string {
	fr := "null"
	if finish != "" {
		fr = fmt.Sprintf("%q", finish)
	}
	if delta == "" && finish == "" {
		return `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"gpt-test-0613","choices":[]}`
	}
	if delta == "" {
		delta = "{}"
	}
	return fmt.Sprintf(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"gpt-test-0613","system_fingerprint":"fp_1","choices":[{"index":0,"delta":%s,"logprobs":null,"finish_reason":%s}],"usage":null}`, delta, fr)
}

const usageChunk = `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"gpt-test-0613","choices":[],"usage":{"prompt_tokens":120,"completion_tokens":17,"total_tokens":137,"prompt_tokens_details":{"cached_tokens":64,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0}}}`

// sse writes chunks in the wire format: one "data:" event per chunk, a
// flush after each so the client sees them arrive apart, then [DONE].
func sse(w http.ResponseWriter, chunks ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	f := w.(http.Flusher)
	for _, c := range chunks {
		fmt.Fprintf(w, "data: %s\n\n", c)
		f.Flush()
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
	f.Flush()
}

// captured is what the fake server saw of one request.
type captured struct {
	path   string
	header http.Header
	raw    string
	body   map[string]any
}

// newServer starts a fake model server that records each request and then
// answers it with handle.
func newServer(t *testing.T, handle http.HandlerFunc) (*httptest.Server, func() []captured) {
	t.Helper()
	var mu sync.Mutex
	var seen []captured
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, err := io.ReadAll(r.Body)
		if err != nil {
			t.Errorf("read request body: %v", err)
		}
		var body map[string]any
		if err := json.Unmarshal(raw, &body); err != nil {
			t.Errorf("request body is not JSON: %v: %s", err, raw)
		}
		mu.Lock()
		seen = append(seen, captured{path: r.URL.Path, header: r.Header.Clone(), raw: string(raw), body: body})
		mu.Unlock()
		handle(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, func() []captured {
		mu.Lock()
		defer mu.Unlock()
		return append([]captured(nil), seen...)
	}
}

func newProvider(srv *httptest.Server) *Provider {
	return New(Config{APIKey: "sk-test", BaseURL: srv.URL + "/v1", Model: "gpt-test", HTTPClient: srv.Client()})
}

func simpleRequest() llm.Request {
	return llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Text: "hi"}}}
}

// collect returns an onDelta that records deltas.
func collect() (func(llm.Delta), func() []llm.Delta) {
	var ds []llm.Delta
	return func(d llm.Delta) { ds = append(ds, d) }, func() []llm.Delta { return ds }
}

func TestStreamText(t *testing.T) {
	t.Parallel()
	srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		sse(w,
			chunk(`{"role":"assistant","content":""}`, ""),
			chunk(`{"content":"Hello"}`, ""),
			chunk(`{"content":", wor"}`, ""),
			chunk(`{"content":"ld.\n"}`, ""),
			chunk(`{}`, "stop"),
			usageChunk,
		)
	})
	onDelta, deltas := collect()
	resp, err := newProvider(srv).Stream(context.Background(), simpleRequest(), onDelta)
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	want := &llm.Response{
		Text:       "Hello, world.\n",
		StopReason: llm.StopEnd,
		Usage:      llm.Usage{InputTokens: 120, OutputTokens: 17, CachedTokens: 64},
		Model:      "gpt-test-0613",
	}
	if diff := cmp.Diff(want, resp); diff != "" {
		t.Errorf("response (-want +got):\n%s", diff)
	}
	wantDeltas := []llm.Delta{
		{Kind: llm.DeltaText, Text: "Hello"},
		{Kind: llm.DeltaText, Text: ", wor"},
		{Kind: llm.DeltaText, Text: "ld.\n"},
	}
	if diff := cmp.Diff(wantDeltas, deltas()); diff != "" {
		t.Errorf("deltas (-want +got):\n%s", diff)
	}
}

func TestStreamParallelToolCalls(t *testing.T) {
	t.Parallel()
	srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		sse(w,
			chunk(`{"role":"assistant","content":null}`, ""),
			chunk(`{"content":"Looking."}`, ""),
			// First fragments carry id and name; arguments then arrive in
			// pieces, the two calls interleaved, sometimes in one chunk.
			chunk(`{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"read_file","arguments":""}}]}`, ""),
			chunk(`{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"list_dir","arguments":"{\"pa"}}]}`, ""),
			chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"path\": "}}]}`, ""),
			chunk(`{"tool_calls":[{"index":1,"function":{"arguments":"th\":\"sr"}},{"index":0,"function":{"arguments":"\"a \\\"b\\\".txt\""}}]}`, ""),
			chunk(`{"tool_calls":[{"index":1,"function":{"arguments":"c\"}"}}]}`, ""),
			chunk(`{"tool_calls":[{"index":0,"function":{"arguments":", \"start_line\": 3}"}}]}`, ""),
			// A call without arguments.
			chunk(`{"tool_calls":[{"index":2,"id":"call_c","type":"function","function":{"name":"list_dir"}}]}`, ""),
			chunk(`{}`, "tool_calls"),
			usageChunk,
		)
	})
	onDelta, deltas := collect()
	resp, err := newProvider(srv).Stream(context.Background(), simpleRequest(), onDelta)
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	want := &llm.Response{
		Text: "Looking.",
		ToolCalls: []llm.ToolCall{
			{ID: "call_a", Name: "read_file", Arguments: json.RawMessage(`{"path": "a \"b\".txt", "start_line": 3}`)},
			{ID: "call_b", Name: "list_dir", Arguments: json.RawMessage(`{"path":"src"}`)},
			{ID: "call_c", Name: "list_dir", Arguments: json.RawMessage(`{}`)},
		},
		StopReason: llm.StopToolCalls,
		Usage:      llm.Usage{InputTokens: 120, OutputTokens: 17, CachedTokens: 64},
		Model:      "gpt-test-0613",
	}
	if diff := cmp.Diff(want, resp); diff != "" {
		t.Errorf("response (-want +got):\n%s", diff)
	}

	// The argument deltas of each call add up to its arguments, and every
	// delta names its tool.
	args := map[int]string{}
	for _, d := range deltas() {
		if d.Kind != llm.DeltaToolArgs {
			continue
		}
		if d.ToolName != want.ToolCalls[d.ToolIndex].Name {
			t.Errorf("delta for call %d names %q, want %q", d.ToolIndex, d.ToolName, want.ToolCalls[d.ToolIndex].Name)
		}
		args[d.ToolIndex] += d.Text
	}
	wantArgs := map[int]string{
		0: `{"path": "a \"b\".txt", "start_line": 3}`,
		1: `{"path":"src"}`,
		2: ``, // the model sent none; the Response says {}
	}
	if diff := cmp.Diff(wantArgs, args); diff != "" {
		t.Errorf("argument deltas (-want +got):\n%s", diff)
	}
}

func TestStreamFinishReasons(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		chunks []string
		want   string
	}{
		{"length", []string{chunk(`{"content":"abc"}`, ""), chunk(`{}`, "length")}, llm.StopMaxTokens},
		{"content filter", []string{chunk(`{"content":"abc"}`, "content_filter")}, llm.StopEnd},
		// Some compatible servers end a tool-call turn with "stop".
		{"stop with tool calls", []string{
			chunk(`{"tool_calls":[{"index":0,"id":"x","type":"function","function":{"name":"list_dir","arguments":"{}"}}]}`, "stop"),
		}, llm.StopToolCalls},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) { sse(w, tt.chunks...) })
			resp, err := newProvider(srv).Stream(context.Background(), simpleRequest(), nil)
			if err != nil {
				t.Fatalf("Stream: %v", err)
			}
			if resp.StopReason != tt.want {
				t.Errorf("StopReason = %q, want %q", resp.StopReason, tt.want)
			}
		})
	}
}

func TestStreamTruncatedArgumentsStayJSON(t *testing.T) {
	t.Parallel()
	srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		sse(w,
			chunk(`{"tool_calls":[{"index":0,"id":"x","type":"function","function":{"name":"write_file","arguments":"{\"path\":\"a"}}]}`, ""),
			chunk(`{}`, "length"),
		)
	})
	resp, err := newProvider(srv).Stream(context.Background(), simpleRequest(), nil)
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	if got, want := string(resp.ToolCalls[0].Arguments), `"{\"path\":\"a"`; got != want {
		t.Errorf("Arguments = %s, want %s", got, want)
	}
	if _, err := json.Marshal(resp); err != nil {
		t.Errorf("response does not marshal: %v", err)
	}
}

func TestRequestMapping(t *testing.T) {
	t.Parallel()
	srv, seen := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		sse(w, chunk(`{"content":"ok"}`, "stop"))
	})
	req := llm.Request{
		Model:     "gpt-other",
		System:    "You are careful.",
		MaxTokens: 512,
		Messages: []llm.Message{
			{Role: llm.RoleUser, Text: "List and read."},
			{Role: llm.RoleAssistant, Text: "Sure.", ToolCalls: []llm.ToolCall{
				{ID: "call_1", Name: "list_dir", Arguments: json.RawMessage(`{"path":"."}`)},
				{ID: "call_2", Name: "read_file", Arguments: nil},
			}},
			{Role: llm.RoleTool, ToolCallID: "call_1", Text: "a.txt\nb.txt"},
			{Role: llm.RoleTool, ToolCallID: "call_2", Text: "missing path", IsError: true},
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{
				{ID: "call_3", Name: "list_dir", Arguments: json.RawMessage(`{"path":"src"}`)},
			}},
			{Role: llm.RoleTool, ToolCallID: "call_3", Text: ""},
			{Role: llm.RoleAssistant, Text: ""},
			{Role: llm.RoleUser, Text: "Thanks."},
		},
		Tools: []llm.ToolSpec{
			{Name: "list_dir", Description: "List a directory.", Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
			{Name: "now", Description: "The time.", Schema: nil},
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
	if c.path != "/v1/chat/completions" {
		t.Errorf("path = %q, want /v1/chat/completions", c.path)
	}
	if a := c.header.Get("Authorization"); a != "Bearer sk-test" {
		t.Errorf("Authorization = %q, want Bearer sk-test", a)
	}
	if r := c.header.Get("X-Stainless-Retry-Count"); r != "" && r != "0" {
		t.Errorf("X-Stainless-Retry-Count = %q, want 0", r)
	}

	// Decoded through JSON so numbers are float64, as in the captured body.
	var want map[string]any
	if err := json.Unmarshal([]byte(`{
		"model": "gpt-other",
		"stream": true,
		"stream_options": {"include_usage": true},
		"max_tokens": 512,
		"messages": [
			{"role": "system", "content": "You are careful."},
			{"role": "user", "content": "List and read."},
			{"role": "assistant", "content": "Sure.", "tool_calls": [
				{"id": "call_1", "type": "function", "function": {"name": "list_dir", "arguments": "{\"path\":\".\"}"}},
				{"id": "call_2", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}
			]},
			{"role": "tool", "tool_call_id": "call_1", "content": "a.txt\nb.txt"},
			{"role": "tool", "tool_call_id": "call_2", "content": "Error: missing path"},
			{"role": "assistant", "tool_calls": [
				{"id": "call_3", "type": "function", "function": {"name": "list_dir", "arguments": "{\"path\":\"src\"}"}}
			]},
			{"role": "tool", "tool_call_id": "call_3", "content": ""},
			{"role": "assistant", "content": ""},
			{"role": "user", "content": "Thanks."}
		],
		"tools": [
			{"type": "function", "function": {"name": "list_dir", "description": "List a directory.",
				"parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}},
			{"type": "function", "function": {"name": "now", "description": "The time.",
				"parameters": {"type": "object", "properties": {}}}}
		]
	}`), &want); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, c.body); diff != "" {
		t.Errorf("request body (-want +got):\n%s", diff)
	}
}

func TestRequestUsesConfigModelAndOmitsMaxTokens(t *testing.T) {
	t.Parallel()
	srv, seen := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		sse(w, chunk(`{"content":"ok"}`, "stop"))
	})
	if _, err := newProvider(srv).Stream(context.Background(), simpleRequest(), nil); err != nil {
		t.Fatalf("Stream: %v", err)
	}
	body := seen()[0].body
	if body["model"] != "gpt-test" {
		t.Errorf("model = %v, want gpt-test", body["model"])
	}
	for _, k := range []string{"max_tokens", "max_completion_tokens", "tools"} {
		if v, ok := body[k]; ok {
			t.Errorf("%s = %v, want it absent", k, v)
		}
	}
}

func TestRequestInvalid(t *testing.T) {
	t.Parallel()
	srv, seen := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		sse(w, chunk(`{"content":"ok"}`, "stop"))
	})
	tests := []struct {
		name string
		p    *Provider
		req  llm.Request
		want string
	}{
		{"no model", New(Config{BaseURL: srv.URL + "/v1", HTTPClient: srv.Client()}), simpleRequest(), "no model"},
		{"bad schema", newProvider(srv), llm.Request{
			Messages: simpleRequest().Messages,
			Tools:    []llm.ToolSpec{{Name: "x", Schema: json.RawMessage(`[1]`)}},
		}, "tool x: schema is not a JSON object"},
		{"bad role", newProvider(srv), llm.Request{Messages: []llm.Message{{Role: "robot", Text: "x"}}}, `message 0: unknown role "robot"`},
		{"bad base URL", New(Config{BaseURL: "localhost:11434/v1", Model: "m"}), simpleRequest(), "invalid base URL"},
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

func TestHTTPErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		status    int
		body      string
		kind      llm.ErrorKind
		message   string
		retryable bool
	}{
		{"400 openai body", 400, `{"error":{"message":"Invalid value for 'model': 'nope'.","type":"invalid_request_error","param":"model","code":null}}`,
			llm.ErrInvalid, "Invalid value for 'model': 'nope'.", false},
		{"429", 429, `{"error":{"message":"Rate limit reached for requests","type":"requests","code":"rate_limit_exceeded"}}`,
			llm.ErrRateLimited, "Rate limit reached for requests", true},
		{"500", 500, `{"error":{"message":"The server had an error while processing your request.","type":"server_error"}}`,
			llm.ErrServer, "The server had an error while processing your request.", true},
		{"503 plain text", 503, "upstream connect error\n", llm.ErrServer, "upstream connect error", true},
		{"502 empty body", 502, "", llm.ErrServer, "Bad Gateway", true},
		{"408", 408, `{"error":{"message":"timeout"}}`, llm.ErrServer, "timeout", true},
		{"401", 401, `{"error":{"message":"Incorrect API key provided.","type":"invalid_request_error","code":"invalid_api_key"}}`,
			llm.ErrAuth, "Incorrect API key provided.", false},
		{"403", 403, `{"error":{"message":"forbidden"}}`, llm.ErrAuth, "forbidden", false},
		// Shapes of servers that copy the API.
		{"404 error string", 404, `{"error":"model \"llama9\" not found, try pulling it first"}`,
			llm.ErrInvalid, `model "llama9" not found, try pulling it first`, false},
		{"422 detail", 422, `{"detail":"field required"}`, llm.ErrInvalid, "field required", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, seen := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.body)
			})
			_, err := newProvider(srv).Stream(context.Background(), simpleRequest(), nil)
			var le *llm.Error
			if !errors.As(err, &le) {
				t.Fatalf("err = %v (%T), want *llm.Error", err, err)
			}
			if le.Kind != tt.kind || le.StatusCode != tt.status || le.Message != tt.message {
				t.Errorf("got kind %q status %d message %q, want %q %d %q", le.Kind, le.StatusCode, le.Message, tt.kind, tt.status, tt.message)
			}
			if !strings.Contains(err.Error(), fmt.Sprint(tt.status)) {
				t.Errorf("Error() = %q does not name the status", err.Error())
			}
			if got := llm.Retryable(err); got != tt.retryable {
				t.Errorf("Retryable = %v, want %v", got, tt.retryable)
			}
			// The SDK must not retry: the engine does.
			if n := len(seen()); n != 1 {
				t.Errorf("server saw %d requests, want 1", n)
			}
		})
	}
}

func TestStreamErrorEvent(t *testing.T) {
	t.Parallel()
	srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		sse(w,
			chunk(`{"content":"Hel"}`, ""),
			`{"error":{"message":"The model is overloaded.","type":"server_error"}}`,
		)
	})
	onDelta, deltas := collect()
	_, err := newProvider(srv).Stream(context.Background(), simpleRequest(), onDelta)
	var le *llm.Error
	if !errors.As(err, &le) || le.Kind != llm.ErrServer || le.Message != "The model is overloaded." {
		t.Errorf("err = %v, want server_error with the event's message", err)
	}
	if n := len(deltas()); n != 1 {
		t.Errorf("got %d deltas before the error, want 1", n)
	}
}

func TestStreamEndsWithoutFinish(t *testing.T) {
	t.Parallel()
	srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: %s\n\n", chunk(`{"content":"Hel"}`, ""))
	})
	_, err := newProvider(srv).Stream(context.Background(), simpleRequest(), nil)
	var le *llm.Error
	if !errors.As(err, &le) || le.Kind != llm.ErrServer {
		t.Errorf("err = %v, want server_error", err)
	}
}

func TestStreamBadChunk(t *testing.T) {
	t.Parallel()
	srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		sse(w, `{"id":"x","choices":[`)
	})
	_, err := newProvider(srv).Stream(context.Background(), simpleRequest(), nil)
	var le *llm.Error
	if !errors.As(err, &le) || le.Kind != llm.ErrBadResponse {
		t.Errorf("err = %v, want bad_response", err)
	}
}

func TestUnreachable(t *testing.T) {
	t.Parallel()
	// A port that was just free and is closed now.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()

	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	p := New(Config{BaseURL: "http://" + addr + "/v1", Model: "m", HTTPClient: &http.Client{Transport: tr}})
	_, err = p.Stream(context.Background(), simpleRequest(), nil)
	var le *llm.Error
	if !errors.As(err, &le) || le.Kind != llm.ErrUnavailable {
		t.Fatalf("err = %v, want unavailable", err)
	}
	want := fmt.Sprintf("cannot reach model server at http://%s/v1/: connection refused", addr)
	if le.Message != want {
		t.Errorf("message = %q, want %q", le.Message, want)
	}
	if !llm.Retryable(err) {
		t.Error("Retryable = false, want true")
	}
}

func TestCancelMidStream(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: %s\n\n", chunk(`{"content":"Hel"}`, ""))
		w.(http.Flusher).Flush()
		// Hold the stream open until the client goes away.
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	defer close(release)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	start := time.Now()
	_, err := newProvider(srv).Stream(ctx, simpleRequest(), func(d llm.Delta) {
		if d.Text == "Hel" {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Stream took %v to return after cancel", d)
	}
}

func TestCancelBeforeResponse(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	defer close(release)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := newProvider(srv).Stream(ctx, simpleRequest(), nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want context.DeadlineExceeded", err)
	}
}
