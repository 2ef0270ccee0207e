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
	"steward/backend/redact"
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
		// The redactor as main.go builds it: two keys and the token in force.
		secrets := redact.NewLive(func() []string {
			return append([]string{"sk-proj-benchmarkKey0123456789abcdefABCDEF", "sk-ant-api03-benchmarkKey0123456789abcdef"}, "0123456789abcdef0123456789abcdef")
		})
		svc := run.New(run.Config{Store: st, Approver: inbox.New(st, nil, func() string { n++; return fmt.Sprint("ia", n) }),
			Tools: reg, Models: benchModels{cp}, NewID: func(p string) string { n++; return fmt.Sprint(p, n) }, Redact: secrets.String})
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

// streamer streams text until released (or its context ends) and records
// when it returned.
type streamer struct {
	release  chan struct{}
	returned chan time.Time
}

func (p *streamer) Stream(ctx context.Context, req llm.Request, on func(llm.Delta)) (*llm.Response, error) {
	defer func() { p.returned <- time.Now() }()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-p.release:
			return &llm.Response{Text: "done", StopReason: llm.StopToolCalls,
				ToolCalls: []llm.ToolCall{{ID: "c1", Name: "noop", Arguments: json.RawMessage(`{}`)}}}, nil
		case <-tick.C:
			on(llm.Delta{Kind: llm.DeltaText, Text: "token "})
		}
	}
}

// controlBench starts a run whose model call streams until released, and
// returns the service, the store's bus feed of the run and the provider.
func controlBench(b *testing.B) (*run.Service, *store.Store, *event.Bus, *streamer, string) {
	bus := event.NewBus()
	st, err := store.Open(filepath.Join(b.TempDir(), "bench.db"), &store.Options{Publisher: bus})
	if err != nil {
		b.Fatal(err)
	}
	reg := tool.NewRegistry()
	if err := reg.Register(tool.Must(tool.New("noop", "does nothing", tool.RiskRead,
		func(context.Context, tool.Env, struct{}) (tool.Result, error) { return tool.Result{Output: "ok"}, nil }))); err != nil {
		b.Fatal(err)
	}
	p := &streamer{release: make(chan struct{}), returned: make(chan time.Time, 4)}
	var n int64
	var mu sync.Mutex
	id := func(prefix string) string { mu.Lock(); defer mu.Unlock(); n++; return fmt.Sprint(prefix, n) }
	svc := run.New(run.Config{Store: st, Approver: inbox.New(st, nil, func() string { return id("ia") }), Tools: reg, Models: benchModels{p}, NewID: id})
	a := agent.Default()
	a.Tools = []string{"noop"}
	r, err := svc.Start(context.Background(), run.StartParams{Agent: a, Instructions: "benchmark", Workspace: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	return svc, st, bus, p, r.ID
}

// waitStatusEvent returns when the run's feed shows status, and when it did.
func waitStatusEvent(b *testing.B, sub *event.Subscription, status string) time.Time {
	timeout := time.After(10 * time.Second)
	for {
		select {
		case ev := <-sub.C():
			if ev.Type == event.RunStatus {
				var d event.RunStatusData
				_ = ev.Decode(&d)
				if d.Status == status {
					return time.Now()
				}
			}
		case <-timeout:
			b.Fatalf("no %s within 10 s", status)
		}
	}
}

// BenchmarkPauseToPaused measures the time from the end of the in-flight
// model call to the paused status reaching a subscriber, when a pause was
// asked during the stream (target: under 50 ms after the call's own end).
func BenchmarkPauseToPaused(b *testing.B) {
	var lat []float64
	for i := range b.N {
		svc, st, bus, p, id := controlBench(b)
		sub := bus.Subscribe(id, 4096)
		time.Sleep(20 * time.Millisecond) // the stream is running
		if res, err := svc.Command(context.Background(), id, run.Command{CommandID: fmt.Sprint("p", i), Type: "pause"}); err != nil || res.Status != "accepted" {
			b.Fatalf("pause: %+v %v", res, err)
		}
		close(p.release)
		ended := <-p.returned
		paused := waitStatusEvent(b, sub, "paused")
		lat = append(lat, float64(paused.Sub(ended).Microseconds())/1000)
		bus.Unsubscribe(sub)
		_ = svc.Shutdown(context.Background())
		st.Close()
	}
	b.ReportMetric(median(lat), "ms/pause-after-call")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkCancelToCancelled measures the time from a cancel command during a
// model stream to the cancelled status reaching a subscriber (target: under
// 100 ms).
func BenchmarkCancelToCancelled(b *testing.B) {
	var lat []float64
	for i := range b.N {
		svc, st, bus, _, id := controlBench(b)
		sub := bus.Subscribe(id, 4096)
		time.Sleep(20 * time.Millisecond)
		start := time.Now()
		if res, err := svc.Command(context.Background(), id, run.Command{CommandID: fmt.Sprint("c", i), Type: "cancel"}); err != nil || res.Status != "accepted" {
			b.Fatalf("cancel: %+v %v", res, err)
		}
		done := waitStatusEvent(b, sub, "cancelled")
		lat = append(lat, float64(done.Sub(start).Microseconds())/1000)
		bus.Unsubscribe(sub)
		_ = svc.Shutdown(context.Background())
		st.Close()
	}
	b.ReportMetric(median(lat), "ms/cancel")
	b.ReportMetric(0, "ns/op")
}
