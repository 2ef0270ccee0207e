package run_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"steward/backend/agent"
	"steward/backend/event"
	"steward/backend/inbox"
	"steward/backend/llm"
	"steward/backend/llm/script"
	"steward/backend/run"
	"steward/backend/store"
	"steward/backend/tool"
)

// benchModels resolves every agent to one provider.
type benchModels struct{ p llm.Provider }

func (m benchModels) Resolve(context.Context, agent.Agent) (run.Model, error) {
	return run.Model{Provider: m.p, Name: "script", Model: "bench"}, nil
}

// clockedProvider records when each model call starts.
type clockedProvider struct {
	inner llm.Provider
	mu    sync.Mutex
	at    []time.Time
}

func (c *clockedProvider) Stream(ctx context.Context, req llm.Request, on func(llm.Delta)) (*llm.Response, error) {
	c.mu.Lock()
	c.at = append(c.at, time.Now())
	c.mu.Unlock()
	return c.inner.Stream(ctx, req, on)
}

// BenchmarkEngineStep measures the engine's overhead per step (one model
// call with streamed text and one tool call, every event persisted) with the
// script provider and a tool that does nothing, over a 200-step run. It
// reports the median step time of the first and the last 20 steps, to show
// whether a step gets slower as the run grows.
func BenchmarkEngineStep(b *testing.B) {
	const steps = 200
	var turns []string
	for i := range steps {
		turns = append(turns, fmt.Sprintf(`{"text": "Step %d: checking one more thing before I go on.", "tool_calls": [{"name": "noop", "arguments": {}}]}`, i+1))
	}
	turns = append(turns, `{"text": "Done."}`)
	sc, err := script.Parse([]byte(`{"name": "bench", "turns": [` + strings.Join(turns, ",") + `]}`))
	if err != nil {
		b.Fatal(err)
	}
	var startMS, endMS []float64
	for range b.N {
		st, err := store.Open(filepath.Join(b.TempDir(), "bench.db"), &store.Options{Publisher: event.NewBus()})
		if err != nil {
			b.Fatal(err)
		}
		reg := tool.NewRegistry()
		if err := reg.Register(tool.Must(tool.New("noop", "does nothing", tool.RiskRead,
			func(context.Context, tool.Env, struct{}) (tool.Result, error) { return tool.Result{Output: "ok"}, nil }))); err != nil {
			b.Fatal(err)
		}
		cp := &clockedProvider{inner: script.New(sc, script.Options{})}
		var n int
		svc := run.New(run.Config{Store: st, Approver: inbox.New(st, func() string { n++; return fmt.Sprint("ia", n) }),
			Tools: reg, Models: benchModels{cp}, NewID: func(p string) string { n++; return fmt.Sprint(p, n) }})
		a := agent.Default()
		a.Tools, a.MaxSteps = []string{"noop"}, steps+1
		r, err := svc.Start(context.Background(), run.StartParams{Agent: a, Instructions: "benchmark", Workspace: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		<-svc.Done(r.ID)
		final, _ := st.GetRun(context.Background(), r.ID)
		if final.Status != "completed" || len(cp.at) != steps+1 {
			b.Fatalf("run %s after %d calls: %s", final.Status, len(cp.at), final.Error)
		}
		var per []float64
		for i := 1; i < len(cp.at); i++ {
			per = append(per, float64(cp.at[i].Sub(cp.at[i-1]).Microseconds())/1000)
		}
		startMS = append(startMS, median(per[:20]))
		endMS = append(endMS, median(per[len(per)-20:]))
		_ = svc.Shutdown(context.Background())
		st.Close()
	}
	b.ReportMetric(median(startMS), "ms/step-start")
	b.ReportMetric(median(endMS), "ms/step-end")
	b.ReportMetric(0, "ns/op") // the whole-run time is not the figure
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

var _ = json.Valid
