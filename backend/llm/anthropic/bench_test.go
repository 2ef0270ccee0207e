package anthropic

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"steward/backend/llm"
	"steward/backend/llm/llmtest"
)

// BenchmarkAnthropicStream measures one model call of an agent's run with a
// history of 21, 201 and 1,001 messages, through the real client against a
// server on loopback that answers at once (it reads the request, then streams
// a short answer with one tool call). Each call's last two messages are new,
// as a step's are: the model's answer and the tool's result. The figure is
// what a step costs the provider, and how that grows with the history; it is
// also reported as us/call and allocs/call, which make bench summarises.
func BenchmarkAnthropicStream(b *testing.B) {
	srv := benchServer(b)
	for _, steps := range []int{10, 100, 500} {
		b.Run(fmt.Sprintf("msgs=%d", 1+2*steps), func(b *testing.B) {
			p := newProvider(srv)
			prefix := llmtest.History(steps - 1)
			tools := llmtest.Tools()
			request := func(step int) llm.Request {
				msgs := append(prefix[:len(prefix):len(prefix)], llmtest.Step(step)...)
				return llm.Request{System: llmtest.System, Messages: msgs, Tools: tools, MaxTokens: 4096}
			}
			call := func(req llm.Request) {
				resp, err := p.Stream(context.Background(), req, nil)
				if err != nil || len(resp.ToolCalls) != 1 {
					b.Fatalf("Stream: %+v %v", resp, err)
				}
			}
			// The run so far: a provider that has sent the history before.
			call(request(steps))
			reqs := make([]llm.Request, b.N)
			for i := range reqs {
				reqs[i] = request(steps + 1 + i)
			}
			b.ReportAllocs()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			b.ResetTimer()
			for _, req := range reqs {
				call(req)
			}
			b.StopTimer()
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "us/call")
			b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(b.N), "allocs/call")
		})
	}
}

// benchServer is a model server on loopback that answers at once: it reads
// the request, then streams a short answer with one tool call.
func benchServer(tb testing.TB) *httptest.Server {
	answer := []byte(strings.Join([]string{messageStart(startUsage), textStart(0), textDelta(0, "Reading."), blockStop(0),
		toolStart(1, "toolu_x", "read_file"), jsonDelta(1, `{"path":"a.go"}`), blockStop(1),
		messageDelta("tool_use", `{"output_tokens":12}`), messageStop()}, ""))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		if n == 0 {
			http.Error(w, "no body", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
		_, _ = w.Write(answer)
	}))
	tb.Cleanup(srv.Close)
	return srv
}
