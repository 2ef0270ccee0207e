package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
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

// The Messages API stream, as the API sends it: every event has an "event:"
// line naming its type and a "data:" line with the same type inside.

func ev(typ, data string) string { return fmt.Sprintf("event: %s\ndata: %s\n\n", typ, data) }

// messageStart opens a message; usage is the JSON usage object.
func messageStart(usage string) string {
	return ev("message_start", `{"type":"message_start","message":{"id":"msg_01","type":"message","role":"assistant","model":"claude-test-20260101","content":[],"stop_reason":null,"stop_sequence":null,"usage":`+usage+`}}`)
}

const startUsage = `{"input_tokens":25,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}`

func ping() string { return ev("ping", `{"type": "ping"}`) }

func textStart(index int) string {
	return ev("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"text","text":""}}`, index))
}

func textDelta(index int, text string) string {
	t, _ := json.Marshal(text)
	return ev("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"text_delta","text":%s}}`, index, t))
}

func toolStart(index int, id, name string) string {
	return ev("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"tool_use","id":%q,"name":%q,"input":{}}}`, index, id, name))
}

func jsonDelta(index int, partial string) string {
	p, _ := json.Marshal(partial)
	return ev("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":%s}}`, index, p))
}

func blockStop(index int) string {
	return ev("content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, index))
}

// messageDelta ends a message with stop reason and usage (a JSON object).
func messageDelta(stop, usage string) string {
	return ev("message_delta", fmt.Sprintf(`{"type":"message_delta","delta":{"stop_reason":%q,"stop_sequence":null},"usage":%s}`, stop, usage))
}

func messageStop() string { return ev("message_stop", `{"type":"message_stop"}`) }

func errorEvent(typ, message string) string {
	return ev("error", fmt.Sprintf(`{"type":"error","error":{"type":%q,"message":%q}}`, typ, message))
}

// sse writes events in the wire format, flushing after each so the client
// sees them arrive apart.
func sse(w http.ResponseWriter, events ...string) {
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f := w.(http.Flusher)
	for _, e := range events {
		io.WriteString(w, e)
		f.Flush()
	}
}

// textAnswer is a whole stream answering text.
func textAnswer(text string) []string {
	return []string{messageStart(startUsage), textStart(0), textDelta(0, text), blockStop(0),
		messageDelta("end_turn", `{"output_tokens":3}`), messageStop()}
}

// captured is what the fake server saw of one request.
type captured struct {
	path   string
	header http.Header
	raw    string
	body   map[string]any
}

// newServer starts a fake Messages API that records each request and then
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
	return New(Config{APIKey: "sk-ant-test", BaseURL: srv.URL, Model: "claude-test", HTTPClient: srv.Client()})
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
			messageStart(startUsage),
			textStart(0),
			ping(),
			textDelta(0, "Hello"),
			textDelta(0, ", wor"),
			ping(),
			textDelta(0, "ld.\n"),
			blockStop(0),
			messageDelta("end_turn", `{"output_tokens":17}`),
			messageStop(),
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
		Usage:      llm.Usage{InputTokens: 25, OutputTokens: 17},
		Model:      "claude-test-20260101",
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

func TestStreamToolUse(t *testing.T) {
	t.Parallel()
	srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		sse(w,
			messageStart(startUsage),
			textStart(0),
			textDelta(0, "Looking."),
			blockStop(0),
			// Input arrives in fragments that split keys, strings and
			// escapes across events.
			toolStart(1, "toolu_a", "read_file"),
			jsonDelta(1, ""),
			jsonDelta(1, `{"path": `),
			ping(),
			jsonDelta(1, `"a \"b`),
			jsonDelta(1, `\".txt", "start_`),
			jsonDelta(1, `line": 3}`),
			blockStop(1),
			toolStart(2, "toolu_b", "list_dir"),
			jsonDelta(2, `{"pa`),
			jsonDelta(2, `th":"sr`),
			jsonDelta(2, `c"}`),
			blockStop(2),
			// A call without input: no deltas at all.
			toolStart(3, "toolu_c", "now"),
			blockStop(3),
			messageDelta("tool_use", `{"output_tokens":60}`),
			messageStop(),
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
			{ID: "toolu_a", Name: "read_file", Arguments: json.RawMessage(`{"path": "a \"b\".txt", "start_line": 3}`)},
			{ID: "toolu_b", Name: "list_dir", Arguments: json.RawMessage(`{"path":"src"}`)},
			{ID: "toolu_c", Name: "now", Arguments: json.RawMessage(`{}`)},
		},
		StopReason: llm.StopToolCalls,
		Usage:      llm.Usage{InputTokens: 25, OutputTokens: 60},
		Model:      "claude-test-20260101",
	}
	if diff := cmp.Diff(want, resp); diff != "" {
		t.Errorf("response (-want +got):\n%s", diff)
	}

	// ToolIndex counts tool_use blocks (the text block is index 0 on the
	// wire), every tool delta names its tool, each call is announced when its
	// block starts, and its deltas add up to its input.
	args := map[int]string{}
	announced := map[int]bool{}
	for _, d := range deltas() {
		if d.Kind != llm.DeltaToolArgs {
			continue
		}
		if d.ToolIndex < 0 || d.ToolIndex >= len(want.ToolCalls) {
			t.Fatalf("delta for call %d, want 0..%d", d.ToolIndex, len(want.ToolCalls)-1)
		}
		if d.ToolName != want.ToolCalls[d.ToolIndex].Name {
			t.Errorf("delta for call %d names %q, want %q", d.ToolIndex, d.ToolName, want.ToolCalls[d.ToolIndex].Name)
		}
		if !announced[d.ToolIndex] && d.Text != "" {
			t.Errorf("first delta of call %d = %q, want an empty announcement", d.ToolIndex, d.Text)
		}
		announced[d.ToolIndex] = true
		args[d.ToolIndex] += d.Text
	}
	wantArgs := map[int]string{
		0: `{"path": "a \"b\".txt", "start_line": 3}`,
		1: `{"path":"src"}`,
		2: ``, // no input on the wire; the Response says {}
	}
	if diff := cmp.Diff(wantArgs, args); diff != "" {
		t.Errorf("argument deltas (-want +got):\n%s", diff)
	}
}

func TestStreamUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		start      string
		deltaUsage string
		want       llm.Usage
	}{
		{
			// InputTokens is the whole prompt: uncached + cache writes + cache reads.
			name:       "cache read and write",
			start:      `{"input_tokens":12,"cache_creation_input_tokens":2000,"cache_read_input_tokens":30000,"output_tokens":1,"service_tier":"standard"}`,
			deltaUsage: `{"output_tokens":345}`,
			want:       llm.Usage{InputTokens: 32012, OutputTokens: 345, CachedTokens: 30000},
		},
		{
			// The API now repeats the cumulative input counts in message_delta.
			name:       "cumulative counts in message_delta",
			start:      `{"input_tokens":12,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}`,
			deltaUsage: `{"input_tokens":12,"cache_creation_input_tokens":0,"cache_read_input_tokens":4096,"output_tokens":99}`,
			want:       llm.Usage{InputTokens: 4108, OutputTokens: 99, CachedTokens: 4096},
		},
		{
			name:       "no cache fields",
			start:      `{"input_tokens":7,"output_tokens":1}`,
			deltaUsage: `{"output_tokens":2}`,
			want:       llm.Usage{InputTokens: 7, OutputTokens: 2},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				sse(w, messageStart(tt.start), textStart(0), textDelta(0, "ok"), blockStop(0),
					messageDelta("end_turn", tt.deltaUsage), messageStop())
			})
			resp, err := newProvider(srv).Stream(context.Background(), simpleRequest(), nil)
			if err != nil {
				t.Fatalf("Stream: %v", err)
			}
			if diff := cmp.Diff(tt.want, resp.Usage); diff != "" {
				t.Errorf("usage (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStreamStopReasons(t *testing.T) {
	t.Parallel()
	tests := []struct {
		stop string
		want string
	}{
		{"end_turn", llm.StopEnd},
		{"stop_sequence", llm.StopEnd},
		{"tool_use", llm.StopToolCalls},
		{"max_tokens", llm.StopMaxTokens},
		{"model_context_window_exceeded", llm.StopMaxTokens},
		{"refusal", llm.StopEnd},
	}
	for _, tt := range tests {
		t.Run(tt.stop, func(t *testing.T) {
			t.Parallel()
			srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				sse(w, messageStart(startUsage), textStart(0), textDelta(0, "abc"), blockStop(0),
					messageDelta(tt.stop, `{"output_tokens":3}`), messageStop())
			})
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

func TestStreamTruncatedToolInputStaysJSON(t *testing.T) {
	t.Parallel()
	srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		sse(w, messageStart(startUsage), toolStart(0, "toolu_x", "write_file"), jsonDelta(0, `{"path":"a`),
			blockStop(0), messageDelta("max_tokens", `{"output_tokens":8192}`), messageStop())
	})
	resp, err := newProvider(srv).Stream(context.Background(), simpleRequest(), nil)
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	if resp.StopReason != llm.StopMaxTokens {
		t.Errorf("StopReason = %q, want %q", resp.StopReason, llm.StopMaxTokens)
	}
	if got, want := string(resp.ToolCalls[0].Arguments), `"{\"path\":\"a"`; got != want {
		t.Errorf("Arguments = %s, want %s", got, want)
	}
	if _, err := json.Marshal(resp); err != nil {
		t.Errorf("response does not marshal: %v", err)
	}
}

func TestStreamErrorEvent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		errType string
		message string
		kind    llm.ErrorKind
	}{
		{"overloaded_error", "Overloaded", llm.ErrServer},
		{"api_error", "Internal server error", llm.ErrServer},
		{"rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit", llm.ErrRateLimited},
	}
	for _, tt := range tests {
		t.Run(tt.errType, func(t *testing.T) {
			t.Parallel()
			srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				sse(w, messageStart(startUsage), textStart(0), textDelta(0, "Hel"), ping(),
					errorEvent(tt.errType, tt.message))
			})
			onDelta, deltas := collect()
			_, err := newProvider(srv).Stream(context.Background(), simpleRequest(), onDelta)
			var le *llm.Error
			if !errors.As(err, &le) {
				t.Fatalf("err = %v (%T), want *llm.Error", err, err)
			}
			if le.Kind != tt.kind || le.Message != tt.message || le.StatusCode != 0 {
				t.Errorf("got kind %q status %d message %q, want %q 0 %q", le.Kind, le.StatusCode, le.Message, tt.kind, tt.message)
			}
			if !llm.Retryable(err) {
				t.Error("Retryable = false, want true")
			}
			if n := len(deltas()); n != 1 {
				t.Errorf("got %d deltas before the error, want 1", n)
			}
		})
	}
}

func TestStreamEndsWithoutStopReason(t *testing.T) {
	t.Parallel()
	srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		sse(w, messageStart(startUsage), textStart(0), textDelta(0, "Hel"))
	})
	_, err := newProvider(srv).Stream(context.Background(), simpleRequest(), nil)
	var le *llm.Error
	if !errors.As(err, &le) || le.Kind != llm.ErrServer {
		t.Errorf("err = %v, want server_error", err)
	}
}

func TestStreamBadEvent(t *testing.T) {
	t.Parallel()
	srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		sse(w, messageStart(startUsage), ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{`))
	})
	_, err := newProvider(srv).Stream(context.Background(), simpleRequest(), nil)
	var le *llm.Error
	if !errors.As(err, &le) || le.Kind != llm.ErrBadResponse {
		t.Errorf("err = %v, want bad_response", err)
	}
}

func TestCancelMidStream(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		sse(w, messageStart(startUsage), textStart(0), textDelta(0, "Hel"))
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
