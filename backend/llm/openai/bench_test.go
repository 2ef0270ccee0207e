package openai

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"

	"steward/backend/llm"
	"steward/backend/llm/llmtest"
)

// BenchmarkOpenAIStream measures one model call of an agent's run with a
// history of 21, 201 and 1,001 messages, through the real client against a
// server on loopback that answers at once (it reads the request, then streams
// a short answer with one tool call). Each call's last two messages are new,
// as a step's are: the model's answer and the tool's result. The figure is
// what a step costs the provider, and how that grows with the history; it is
// also reported as us/call and allocs/call, which make bench summarises.
func BenchmarkOpenAIStream(b *testing.B) {
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
	answer := []byte("data: " + chunk(`{"role":"assistant","content":"Reading."}`, "") + "\n\n" +
		"data: " + chunk(`{"tool_calls":[{"index":0,"id":"call_x","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"a.go\"}"}}]}`, "") + "\n\n" +
		"data: " + chunk(`{}`, "tool_calls") + "\n\n" +
		"data: " + usageChunk + "\n\n" +
		"data: [DONE]\n\n")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		if n == 0 {
			http.Error(w, "no body", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(answer)
	}))
	tb.Cleanup(srv.Close)
	return srv
}
