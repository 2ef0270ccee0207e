package script

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"steward/backend/llm"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func mustParse(t *testing.T, src string) *Script {
	t.Helper()
	s, err := Parse([]byte(src))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return s
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		src  string
		want string
	}{
		{"not JSON", `{"turns": [`, "script: "},
		{"no turns", `{"name": "x", "turns": []}`, "turns: want at least one turn"},
		{"turns missing", `{"name": "x"}`, "turns: want at least one turn"},
		{"empty turn", `{"turns": [{"text": "a"}, {}]}`, "turn 2 (turns[1]): want text or tool_calls"},
		{"empty name", `{"turns": [{"text": "a"}, {"text": "b"}, {"tool_calls": [{"name": "x"}, {"name": "", "arguments": {}}]}]}`,
			"turn 3 (turns[2]): tool_calls[1].name: want a tool name"},
		{"array arguments", `{"turns": [{"tool_calls": [{"name": "x", "arguments": [1, 2]}]}]}`,
			"turn 1 (turns[0]): tool_calls[0].arguments: want a JSON object, got [1, 2]"},
		{"string arguments", `{"turns": [{"text": "a"}, {"tool_calls": [{"name": "x", "arguments": "{\"path\": \".\"}"}]}]}`,
			"turn 2 (turns[1]): tool_calls[0].arguments: want a JSON object"},
		{"null arguments", `{"turns": [{"tool_calls": [{"name": "x", "arguments": null}]}]}`,
			"turn 1 (turns[0]): tool_calls[0].arguments: want a JSON object, got null"},
		{"unknown field", `{"turns": [{"text": "a", "toolcalls": []}]}`, `unknown field "toolcalls"`},
		{"unknown placeholder in text", `{"turns": [{"text": "Do {{instruction}}"}]}`,
			"turn 1 (turns[0]): text: unknown placeholder {{instruction}}"},
		{"unknown placeholder in arguments", `{"turns": [{"text": "a"}, {"tool_calls": [{"name": "x", "arguments": {"p": "{{output}}"}}]}]}`,
			"turn 2 (turns[1]): tool_calls[0].arguments: unknown placeholder {{output}}"},
		{"trailing data", `{"turns": [{"text": "a"}]} {}`, "unexpected data after the JSON object"},
		{"negative chunk delay", `{"chunk_delay_ms": -1, "turns": [{"text": "a"}]}`, "chunk_delay_ms: -1 is out of range 0 to 5000"},
		{"chunk delay too long", `{"chunk_delay_ms": 5001, "turns": [{"text": "a"}]}`, "chunk_delay_ms: 5001 is out of range 0 to 5000"},
		{"fractional chunk delay", `{"chunk_delay_ms": 2.5, "turns": [{"text": "a"}]}`, "chunk_delay_ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse([]byte(tt.src))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestParseDefaults(t *testing.T) {
	t.Parallel()
	s := mustParse(t, `{"turns": [{"tool_calls": [{"name": "list_dir"}, {"name": "read_file", "arguments": { "path" : "a",
		"start_line": 2 }}]}], "name": "n"}`)
	want := &Script{Name: "n", Turns: []Turn{{ToolCalls: []ToolCall{
		{Name: "list_dir", Arguments: json.RawMessage(`{}`)},
		{Name: "read_file", Arguments: json.RawMessage(`{"path":"a","start_line":2}`)},
	}}}}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Errorf("script (-want +got):\n%s", diff)
	}
	// Template text that only looks like a placeholder stays literal.
	mustParse(t, `{"turns": [{"text": "Helm says {{ .Values.name }} and {{Name}}"}]}`)
}

func TestLoad(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(good, []byte(`{"turns": [{"text": "hi"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte(`{"turns": [{}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if s, err := Load(good); err != nil || s.Turns[0].Text != "hi" {
		t.Errorf("Load(good) = %v, %v", s, err)
	}
	if _, err := Load(bad); err == nil || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), "turn 1") {
		t.Errorf("Load(bad) error = %v, want the path and the turn", err)
	}
	if _, err := Load(filepath.Join(dir, "missing.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load(missing) error = %v, want ErrNotExist", err)
	}
}

// history builds the messages of a run after k answered model calls.
func history(instructions string, k int, toolOutputs ...string) []llm.Message {
	msgs := []llm.Message{{Role: llm.RoleUser, Text: instructions}}
	for i := 0; i < k; i++ {
		msgs = append(msgs, llm.Message{Role: llm.RoleAssistant, Text: "ok", ToolCalls: []llm.ToolCall{{ID: "c", Name: "t", Arguments: json.RawMessage(`{}`)}}})
		out := "out"
		if i < len(toolOutputs) {
			out = toolOutputs[i]
		}
		msgs = append(msgs, llm.Message{Role: llm.RoleTool, ToolCallID: "c", Text: out})
	}
	return msgs
}

const threeTurns = `{"name": "t", "model": "test-script", "turns": [
	{"text": "one", "tool_calls": [{"name": "a", "arguments": {"n": 1}}, {"name": "b"}]},
	{"text": "two"},
	{"tool_calls": [{"name": "c", "arguments": {"x": [true]}}]}
]}`

func TestTurnSelection(t *testing.T) {
	t.Parallel()
	p := New(mustParse(t, threeTurns), Options{})
	tests := []struct {
		name string
		msgs []llm.Message
		want *llm.Response
	}{
		{"first call", history("go", 0), &llm.Response{
			Text: "one",
			ToolCalls: []llm.ToolCall{
				{ID: "call_1_0", Name: "a", Arguments: json.RawMessage(`{"n":1}`)},
				{ID: "call_1_1", Name: "b", Arguments: json.RawMessage(`{}`)},
			},
			StopReason: llm.StopToolCalls,
		}},
		{"second call", history("go", 1), &llm.Response{Text: "two", StopReason: llm.StopEnd}},
		{"third call", history("go", 2), &llm.Response{
			ToolCalls:  []llm.ToolCall{{ID: "call_3_0", Name: "c", Arguments: json.RawMessage(`{"x":[true]}`)}},
			StopReason: llm.StopToolCalls,
		}},
		{"past the end", history("go", 3), &llm.Response{Text: EndedText, StopReason: llm.StopEnd}},
		{"far past the end", history("go", 7), &llm.Response{Text: EndedText, StopReason: llm.StopEnd}},
		// A follow-up user message after a finished turn continues the count.
		{"after a follow-up user message", append(history("go", 1),
			llm.Message{Role: llm.RoleAssistant, Text: "two"},
			llm.Message{Role: llm.RoleUser, Text: "more"}), &llm.Response{
			ToolCalls:  []llm.ToolCall{{ID: "call_3_0", Name: "c", Arguments: json.RawMessage(`{"x":[true]}`)}},
			StopReason: llm.StopToolCalls,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := p.Stream(context.Background(), llm.Request{Messages: tt.msgs}, nil)
			if err != nil {
				t.Fatalf("Stream: %v", err)
			}
			if got.Model != "test-script" {
				t.Errorf("Model = %q, want test-script", got.Model)
			}
			if got.Usage != (llm.Usage{}) {
				t.Errorf("Usage = %+v, want none: no model counted tokens", got.Usage)
			}
			got.Model = ""
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("response (-want +got):\n%s", diff)
			}
		})
	}
}

// TestConcurrentRuns plays one Provider for several runs at once: the turn
// comes from each request, never from shared state.
func TestConcurrentRuns(t *testing.T) {
	t.Parallel()
	p := New(mustParse(t, threeTurns), Options{})
	var wg sync.WaitGroup
	errs := make(chan error, 30)
	for i := 0; i < 30; i++ {
		wg.Go(func() {
			k := i % 3
			resp, err := p.Stream(context.Background(), llm.Request{Messages: history("go", k)}, nil)
			if err != nil {
				errs <- err
				return
			}
			want := []string{"one", "two", ""}[k]
			if resp.Text != want {
				errs <- fmt.Errorf("run after %d answers got %q, want %q", k, resp.Text, want)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestTemplateSubstitution(t *testing.T) {
	t.Parallel()
	s := mustParse(t, `{"turns": [
		{"text": "You asked: {{instructions}}", "tool_calls": [{"name": "write_file", "arguments": {"path": "x.md", "content": "I: {{instructions}}\nO: {{last_tool_output}}", "{{instructions}}": 1}}]},
		{"text": "Tool said: {{last_tool_output}}|"}
	]}`)
	p := New(s, Options{})
	instructions := "Write \"hello\"\nthen a backslash \\ and a tab\t and <b>&</b> and a literal {{last_tool_output}}"

	// First call: no tool output yet.
	resp, err := p.Stream(context.Background(), llm.Request{Messages: history(instructions, 0)}, nil)
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	if want := "You asked: " + instructions; resp.Text != want {
		t.Errorf("Text = %q, want %q", resp.Text, want)
	}
	var args map[string]any
	if err := json.Unmarshal(resp.ToolCalls[0].Arguments, &args); err != nil {
		t.Fatalf("arguments are not JSON: %v: %s", err, resp.ToolCalls[0].Arguments)
	}
	wantArgs := map[string]any{
		"path":       "x.md",
		"content":    "I: " + instructions + "\nO: ",
		instructions: float64(1),
	}
	if diff := cmp.Diff(wantArgs, args); diff != "" {
		t.Errorf("arguments (-want +got):\n%s", diff)
	}

	// Second call: the latest tool message, cut to 2000 bytes on a rune
	// boundary. "é" is two bytes, so 2000 bytes hold 1000 of them.
	long := strings.Repeat("é", 1500)
	msgs := history(instructions, 1, "first output")
	msgs = append(msgs, llm.Message{Role: llm.RoleTool, ToolCallID: "d", Text: "x" + long})
	resp, err = p.Stream(context.Background(), llm.Request{Messages: msgs}, nil)
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	if want := "Tool said: x" + strings.Repeat("é", 999) + "|"; resp.Text != want {
		t.Errorf("Text has %d bytes, want %d", len(resp.Text), len(want))
	}
}

func TestStreamDeltas(t *testing.T) {
	t.Parallel()
	text := "  Hello,  world.\n\nThis\tis\u00a0a   test of  spacing \n"
	src, err := json.Marshal(map[string]any{"turns": []any{map[string]any{
		"text":       text,
		"tool_calls": []any{map[string]any{"name": "a", "arguments": map[string]any{"p": 1}}, map[string]any{"name": "b"}},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	p := New(mustParse(t, string(src)), Options{})
	var deltas []llm.Delta
	resp, err := p.Stream(context.Background(), llm.Request{Messages: history("go", 0)}, func(d llm.Delta) { deltas = append(deltas, d) })
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	var joined strings.Builder
	var textDeltas int
	var toolDeltas []llm.Delta
	for _, d := range deltas {
		switch d.Kind {
		case llm.DeltaText:
			joined.WriteString(d.Text)
			textDeltas++
		case llm.DeltaToolArgs:
			toolDeltas = append(toolDeltas, d)
		}
	}
	if joined.String() != text || resp.Text != text {
		t.Errorf("joined deltas = %q, response %q, want %q", joined.String(), resp.Text, text)
	}
	if textDeltas != 9 { // one per word, the trailing whitespace its own delta
		t.Errorf("got %d text deltas, want 9", textDeltas)
	}
	wantTool := []llm.Delta{
		{Kind: llm.DeltaToolArgs, Text: `{"p":1}`, ToolIndex: 0, ToolName: "a"},
		{Kind: llm.DeltaToolArgs, Text: `{}`, ToolIndex: 1, ToolName: "b"},
	}
	if diff := cmp.Diff(wantTool, toolDeltas); diff != "" {
		t.Errorf("tool deltas (-want +got):\n%s", diff)
	}
}

func TestWords(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"one", []string{"one"}},
		{"a b", []string{"a", " b"}},
		{" a\n\nb ", []string{" a", "\n\nb", " "}},
		{"   ", []string{"   "}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, words(tt.in)); diff != "" {
			t.Errorf("words(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestChunkDelay(t *testing.T) {
	t.Parallel()
	s := mustParse(t, `{"turns": [{"text": "one two three four", "tool_calls": [{"name": "a"}]}]}`)

	t.Run("paces the stream", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			p := New(s, Options{ChunkDelay: 25 * time.Millisecond})
			start := time.Now()
			var at []time.Duration
			_, err := p.Stream(context.Background(), llm.Request{Messages: history("go", 0)}, func(llm.Delta) {
				at = append(at, time.Since(start))
			})
			if err != nil {
				t.Fatalf("Stream: %v", err)
			}
			want := []time.Duration{25 * time.Millisecond, 50 * time.Millisecond, 75 * time.Millisecond, 100 * time.Millisecond, 125 * time.Millisecond}
			if diff := cmp.Diff(want, at); diff != "" {
				t.Errorf("delta times (-want +got):\n%s", diff)
			}
		})
	})

	t.Run("the script's own delay", func(t *testing.T) {
		paced := mustParse(t, `{"chunk_delay_ms": 40, "turns": [{"text": "one two", "tool_calls": [{"name": "a"}]}]}`)
		if paced.ChunkDelayMS != 40 {
			t.Fatalf("ChunkDelayMS = %d, want 40", paced.ChunkDelayMS)
		}
		for _, tt := range []struct {
			name string
			opts Options
			step time.Duration
		}{
			{"used when Options leave it zero", Options{}, 40 * time.Millisecond},
			{"overridden by Options", Options{ChunkDelay: 5 * time.Millisecond}, 5 * time.Millisecond},
		} {
			t.Run(tt.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					p := New(paced, tt.opts)
					start := time.Now()
					var at []time.Duration
					if _, err := p.Stream(context.Background(), llm.Request{Messages: history("go", 0)}, func(llm.Delta) {
						at = append(at, time.Since(start))
					}); err != nil {
						t.Fatalf("Stream: %v", err)
					}
					want := []time.Duration{tt.step, 2 * tt.step, 3 * tt.step}
					if diff := cmp.Diff(want, at); diff != "" {
						t.Errorf("delta times (-want +got):\n%s", diff)
					}
				})
			})
		}
	})

	t.Run("cancel ends the wait", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			p := New(s, Options{ChunkDelay: time.Hour})
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(time.Minute, cancel)
			start := time.Now()
			var got int
			_, err := p.Stream(ctx, llm.Request{Messages: history("go", 0)}, func(llm.Delta) { got++ })
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
			if d := time.Since(start); d != time.Minute {
				t.Errorf("Stream returned after %v, want 1m", d)
			}
			if got != 0 {
				t.Errorf("got %d deltas, want 0", got)
			}
		})
	})

	t.Run("cancel mid-stream", func(t *testing.T) {
		t.Parallel()
		p := New(s, Options{})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var got int
		_, err := p.Stream(ctx, llm.Request{Messages: history("go", 0)}, func(llm.Delta) {
			got++
			if got == 2 {
				cancel()
			}
		})
		if !errors.Is(err, context.Canceled) || got != 2 {
			t.Errorf("err = %v after %d deltas, want context.Canceled after 2", err, got)
		}
	})
}

func TestDemo(t *testing.T) {
	t.Parallel()
	d := Demo()
	if len(d.Turns) != 3 {
		t.Fatalf("demo has %d turns, want 3", len(d.Turns))
	}
	if d.Model != "demo-script" {
		t.Errorf("demo model = %q", d.Model)
	}
	// Each call returns its own copy.
	d.Turns[0].Text = "changed"
	if Demo().Turns[0].Text == "changed" {
		t.Error("Demo shares state between calls")
	}

	p := New(Demo(), Options{})
	ctx := context.Background()
	instructions := "Say \"hi\"\nand stop."

	r1, err := p.Stream(ctx, llm.Request{Messages: history(instructions, 0)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r1.Text, "demo script") || !strings.Contains(r1.Text, "no model") {
		t.Errorf("turn 1 text does not say it is the demo script: %q", r1.Text)
	}
	wantCalls := []llm.ToolCall{{ID: "call_1_0", Name: "list_dir", Arguments: json.RawMessage(`{"path":"."}`)}}
	if diff := cmp.Diff(wantCalls, r1.ToolCalls); diff != "" {
		t.Errorf("turn 1 calls (-want +got):\n%s", diff)
	}

	r2, err := p.Stream(ctx, llm.Request{Messages: history(instructions, 1, "go.mod\nmain.go\n")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(r2.ToolCalls) != 1 || r2.ToolCalls[0].Name != "write_file" || r2.StopReason != llm.StopToolCalls {
		t.Fatalf("turn 2 = %+v, want one write_file call", r2)
	}
	var args struct{ Path, Content string }
	if err := json.Unmarshal(r2.ToolCalls[0].Arguments, &args); err != nil {
		t.Fatalf("write_file arguments: %v", err)
	}
	if args.Path != "steward-demo.md" || !strings.HasPrefix(args.Content, "# Steward demo\n\nInstructions: "+instructions+"\n") ||
		!strings.Contains(args.Content, "go.mod\nmain.go\n") {
		t.Errorf("write_file arguments = %+v", args)
	}

	r3, err := p.Stream(ctx, llm.Request{Messages: history(instructions, 2, "listing", "wrote 120 bytes to steward-demo.md")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(r3.ToolCalls) != 0 || r3.StopReason != llm.StopEnd ||
		!strings.Contains(r3.Text, "wrote steward-demo.md") || !strings.Contains(r3.Text, "wrote 120 bytes") {
		t.Errorf("turn 3 = %+v", r3)
	}
}
