package e2e

// Steward's own share of a step through the real binary with the OpenAI
// provider: a run of N steps against a fake model on loopback that answers
// at once (each answer streams one read_file call, then the next model call
// follows), timed by the fake itself. A step's share is the time from the end
// of one answer to the arrival of the next request: reading the stream, the
// engine, the tool, the store, and building and sending the next request,
// whose history grows by two messages a step. Beside it, in the same run, a
// control: the same requests, with the same growing history, made directly
// with the openai-go SDK against the same fake, so a reader sees what the SDK
// alone costs a step. With STEWARD_UI_BENCH set to a file, the figures are
// appended to it in `go test -bench` form (make bench), and the 1,000-step
// run is made too.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/shared"
)

// timedModel is a fake OpenAI server that records, for each request, when it
// arrived (the handler was called) and when the answer was written and
// flushed. Request k+1 of a run gets a read_file call of src/file<k>.go while
// k < toolCalls, and "Done." after.
type timedModel struct {
	*httptest.Server
	mu                sync.Mutex
	toolCalls         int
	arrived, answered []time.Time
	last              []byte // the body of the last request
}

func newTimedModel(t *testing.T) *timedModel {
	m := &timedModel{}
	m.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived := time.Now()
		body, err := io.ReadAll(r.Body)
		if err != nil || r.URL.Path != "/v1/chat/completions" {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		m.mu.Lock()
		k := len(m.arrived)
		m.arrived = append(m.arrived, arrived)
		m.last = body
		calls := k < m.toolCalls
		m.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := func(delta, finish string) {
			fr := "null"
			if finish != "" {
				fr = `"` + finish + `"`
			}
			fmt.Fprintf(w, "data: {\"id\":\"c%d\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,\"model\":\"fake\",\"choices\":[{\"index\":0,\"delta\":%s,\"finish_reason\":%s}]}\n\n", k, delta, fr)
		}
		if calls {
			chunk(fmt.Sprintf(`{"role":"assistant","content":"Step %d: reading the next file to see how the pieces fit together."}`, k+1), "")
			chunk(fmt.Sprintf(`{"tool_calls":[{"index":0,"id":"call_%d","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"src/file%d.go\"}"}}]}`, k+1, k%1000), "")
			chunk(`{}`, "tool_calls")
		} else {
			chunk(`{"role":"assistant","content":"Done."}`, "")
			chunk(`{}`, "stop")
		}
		fmt.Fprint(w, "data: {\"id\":\"u\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,\"model\":\"fake\",\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":5,\"total_tokens\":15}}\n\n")
		fmt.Fprint(w, "data: [DONE]\n\n")
		w.(http.Flusher).Flush()
		answered := time.Now()
		m.mu.Lock()
		// By request: the next request may have arrived already.
		for len(m.answered) <= k {
			m.answered = append(m.answered, time.Time{})
		}
		m.answered[k] = answered
		m.mu.Unlock()
	}))
	t.Cleanup(m.Close)
	return m
}

// reset forgets the requests seen, and answers the next toolCalls requests
// with a tool call.
func (m *timedModel) reset(toolCalls int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.toolCalls, m.arrived, m.answered, m.last = toolCalls, nil, nil, nil
}

// times returns when each request arrived and was answered, once n
// requests have been answered: the client can read an answer to its end, and
// the run can end, before the handler has noted the time.
func (m *timedModel) times(t *testing.T, n int) (arrived, answered []time.Time, last []byte) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		m.mu.Lock()
		arrived, answered, last = slices.Clone(m.arrived), slices.Clone(m.answered), m.last
		m.mu.Unlock()
		done := len(answered) == n && !slices.ContainsFunc(answered, time.Time.IsZero)
		if done || len(arrived) > n || time.Now().After(deadline) {
			break
		}
	}
	if len(arrived) != n || len(answered) != n || slices.ContainsFunc(answered, time.Time.IsZero) {
		t.Fatalf("the fake model saw %d requests (%d answered), want %d", len(arrived), len(answered), n)
	}
	return arrived, answered, last
}

// stepStats summarises shares of steps, in milliseconds.
type stepStats struct{ perStep, p50, first20, last20 float64 }

func statsOf(shares []time.Duration) stepStats {
	ms := make([]float64, len(shares))
	var sum float64
	for i, d := range shares {
		ms[i] = float64(d.Microseconds()) / 1000
		sum += ms[i]
	}
	med := func(xs []float64) float64 {
		s := slices.Clone(xs)
		slices.Sort(s)
		return s[len(s)/2]
	}
	return stepStats{perStep: sum / float64(len(ms)), p50: med(ms), first20: med(ms[:20]), last20: med(ms[len(ms)-20:])}
}

func (s stepStats) String() string {
	return fmt.Sprintf("total/N %.3f ms, p50 %.3f ms, first-20 %.3f ms, last-20 %.3f ms (last/first %.2f)", s.perStep, s.p50, s.first20, s.last20, s.last20/s.first20)
}

// report logs s and appends it to $STEWARD_UI_BENCH in `go test -bench` form.
func (s stepStats) report(t *testing.T, name string) {
	t.Logf("%s: %s", name, s)
	benchLine(t, name, fmt.Sprintf("%.6g ms/step %.6g ms-p50 %.6g ms-first20 %.6g ms-last20 %.4g last/first",
		s.perStep, s.p50, s.first20, s.last20, s.last20/s.first20))
}

// The performance tests are not parallel: Go runs them before the parallel
// tests start, so they measure on a machine not also running other tests.
func TestE2EProviderPerf(t *testing.T) {
	model := newTimedModel(t)
	ws := t.TempDir()
	// Files of about 1.5 KB, as a source file is; each step reads another.
	for i := range 1000 {
		var src strings.Builder
		fmt.Fprintf(&src, "package src // file %d\n\nimport \"fmt\"\n\n", i)
		for j := range 24 {
			fmt.Fprintf(&src, "func f%d_%d() { fmt.Println(\"line %d of file %d\") }\n", i, j, j, i)
		}
		if err := os.MkdirAll(filepath.Join(ws, "src"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, "src", fmt.Sprintf("file%d.go", i)), []byte(src.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const instructions = "Read every file under src/ and tell me how they fit together."
	s := startServe(t, t.TempDir(), "OPENAI_BASE_URL="+model.URL+"/v1", "OPENAI_API_KEY=sk-test")
	for _, n := range []int{200, 1000} {
		t.Run(fmt.Sprintf("N=%d", n), func(t *testing.T) {
			if n > 200 && os.Getenv("STEWARD_UI_BENCH") == "" {
				t.Skip("the 1,000-step run is made by make bench (STEWARD_UI_BENCH set)")
			}
			name := fmt.Sprintf("reader%d", n)
			s.call(t, "POST", "/api/v1/agents", map[string]any{"name": name, "provider": "openai", "model": "fake",
				"tools": []string{"read_file"}, "mode": "auto", "max_steps": n + 1}, http.StatusCreated, nil)
			model.reset(n)
			var r struct{ ID string }
			s.call(t, "POST", "/api/v1/runs", map[string]any{"agent": name, "instructions": instructions, "workspace": ws}, http.StatusCreated, &r)
			waitRunStatusWithin(t, s, r.ID, "completed", 10*time.Minute)
			arrived, answered, last := model.times(t, n+1)
			hist := wireHistory(t, last)
			// The instructions (after a system prompt, when the agent has
			// one), then an assistant message and a tool result per step.
			if base := len(hist.Messages) - 2*n; base != 1 && base != 2 || hist.Messages[base-1].Content != instructions {
				t.Fatalf("the last request held %d messages, want the instructions then %d", len(hist.Messages), 2*n)
			}
			var shares []time.Duration
			for k := range n {
				shares = append(shares, arrived[k+1].Sub(answered[k]))
			}
			steward := statsOf(shares)
			steward.report(t, fmt.Sprintf("E2EProviderShare/N=%d", n))

			control := sdkControl(t, model, hist, n)
			control.report(t, fmt.Sprintf("E2EProviderSDKControl/N=%d", n))
			// The target is a share flat in N. The bound leaves room for a
			// loaded machine and still fails a provider that encodes the
			// whole history on every call (its last 20 steps cost 2.3 to 5
			// times its first 20 at N=200); TestStreamCostFollowsWhatIsNew
			// in the providers' packages pins the same property exactly, by
			// allocations.
			if n == 200 && steward.last20 > 1.5*steward.first20+1.5 {
				t.Errorf("Steward's share of the last 20 steps is %.2f ms against %.2f ms for the first 20: a step's cost grows with the history", steward.last20, steward.first20)
			}
		})
	}
}

// waitRunStatusWithin polls the run until it has status want.
func waitRunStatusWithin(t *testing.T, s *served, id, want string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		var r struct{ Status, Error string }
		s.get(t, "/api/v1/runs/"+id, &r)
		if r.Status == want {
			return
		}
		if time.Now().After(deadline) || r.Status == "failed" || r.Status == "cancelled" {
			t.Fatalf("run %s is %s (%s), want %s", id, r.Status, r.Error, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// wireRequest is what the control needs of a Chat Completions request.
type wireRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role       string `json:"role"`
		Content    string `json:"content"`
		ToolCallID string `json:"tool_call_id"`
		ToolCalls  []struct {
			ID       string `json:"id"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name        string         `json:"name"`
			Description string         `json:"description"`
			Parameters  map[string]any `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
}

func wireHistory(t *testing.T, body []byte) wireRequest {
	t.Helper()
	var r wireRequest
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatalf("the last request is not a chat completion request: %v", err)
	}
	return r
}

// sdkControl makes the run's n+1 requests again, directly with the openai-go
// SDK: request k holds what the run's request k held (the system prompt, the
// instructions and k-1 steps of its history), with its tools. A request's share is the time the
// SDK spent before the request arrived plus the time after its answer was
// written until the stream was read to its end.
func sdkControl(t *testing.T, model *timedModel, hist wireRequest, n int) stepStats {
	t.Helper()
	var msgs []oai.ChatCompletionMessageParamUnion
	for _, m := range hist.Messages {
		switch m.Role {
		case "system":
			msgs = append(msgs, oai.SystemMessage(m.Content))
		case "user":
			msgs = append(msgs, oai.UserMessage(m.Content))
		case "tool":
			msgs = append(msgs, oai.ToolMessage(m.Content, m.ToolCallID))
		case "assistant":
			var a oai.ChatCompletionAssistantMessageParam
			a.Content.OfString = param.NewOpt(m.Content)
			for _, c := range m.ToolCalls {
				a.ToolCalls = append(a.ToolCalls, oai.ChatCompletionMessageToolCallUnionParam{OfFunction: &oai.ChatCompletionMessageFunctionToolCallParam{
					ID: c.ID, Function: oai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: c.Function.Name, Arguments: c.Function.Arguments}}})
			}
			msgs = append(msgs, oai.ChatCompletionMessageParamUnion{OfAssistant: &a})
		default:
			t.Fatalf("unexpected role %q in the run's request", m.Role)
		}
	}
	var tools []oai.ChatCompletionToolUnionParam
	for _, tl := range hist.Tools {
		fn := shared.FunctionDefinitionParam{Name: tl.Function.Name, Parameters: tl.Function.Parameters}
		if tl.Function.Description != "" {
			fn.Description = param.NewOpt(tl.Function.Description)
		}
		tools = append(tools, oai.ChatCompletionFunctionTool(fn))
	}
	chat := oai.NewChatService(option.WithBaseURL(model.URL+"/v1/"), option.WithAPIKey("sk-test"), option.WithMaxRetries(0),
		option.WithHTTPClient(&http.Client{Transport: http.DefaultTransport}))
	base := len(msgs) - 2*n // the system prompt and the instructions
	model.reset(n)
	started := make([]time.Time, n+1)
	ended := make([]time.Time, n+1)
	for k := range n + 1 {
		params := oai.ChatCompletionNewParams{
			Model:         shared.ChatModel(hist.Model),
			Messages:      msgs[:base+2*k],
			Tools:         tools,
			StreamOptions: oai.ChatCompletionStreamOptionsParam{IncludeUsage: param.NewOpt(true)},
		}
		started[k] = time.Now()
		stream := chat.Completions.NewStreaming(context.Background(), params)
		var acc oai.ChatCompletionAccumulator
		for stream.Next() {
			acc.AddChunk(stream.Current())
		}
		err := stream.Err()
		_ = stream.Close()
		ended[k] = time.Now()
		if err != nil {
			t.Fatalf("control request %d: %v", k+1, err)
		}
	}
	arrived, answered, _ := model.times(t, n+1)
	// The share of step k, as for the run: the end of answer k to the
	// arrival of request k+1, less the time the test itself spent between.
	var shares []time.Duration
	for k := range n {
		shares = append(shares, ended[k].Sub(answered[k])+arrived[k+1].Sub(started[k+1]))
	}
	return statsOf(shares)
}
