package run_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"steward/backend/agent"
	"steward/backend/event"
	"steward/backend/inbox"
	"steward/backend/run"
	"steward/backend/sandbox"
	"steward/backend/store"
	"steward/backend/tool"
	"steward/backend/tools/mcp"
	"steward/backend/tools/mcp/mcptest"
)

// BenchmarkMCP measures, against the fixture MCP server over stdio (this
// test binary again, written with the same SDK), in milliseconds:
//
//   - connect-ms: Steward's Test of the server (start the process, the
//     handshake, list its tools, stop it), median of 10; sdk-connect-ms
//     beside it: the SDK alone starting and connecting to the same program
//     (start and handshake, no listing), median of 10;
//   - mcp-ms/step: a step of a 200-step run whose every tool call is the
//     server's echo (a trusted, read-only tool: no approval), through the
//     engine: the fake model's turn, the policy, the registry (the
//     server's schema checked), the call on the run's session, every event
//     committed on disk; noop-ms/step: the same run with a built-in tool
//     that does nothing, the engine's own cost of a step;
//   - sdk-ms/call: the control, the SDK alone calling echo on one session
//     with the same server 200 times;
//   - overhead-ms/call: mcp-ms/step less sdk-ms/call, all that Steward adds
//     to the call (the model's turn included: an upper bound);
//   - boxed-first-call-ms: a run's first call of the server when the run's
//     sandbox confines it (bubblewrap started, the server in it, the
//     handshake and the call), median of 10 runs; first-call-ms beside it:
//     the same with the sandbox off. Left out where bubblewrap cannot work.
func BenchmarkMCP(b *testing.B) {
	var connect, sdkConnect, mcpStep, noopStep, sdkCall, boxed, unboxed []float64
	sb := sandbox.New(sandbox.Options{})
	for range b.N {
		connect = append(connect, mcpConnect(b))
		sdkConnect = append(sdkConnect, sdkConnectTime(b))
		if sb.Available() == nil {
			boxed = append(boxed, firstCalls(b, sb, sandbox.ModeAuto))
			unboxed = append(unboxed, firstCalls(b, sb, sandbox.ModeOff))
		}
		m, n := mcpSteps(b, 200)
		mcpStep, noopStep = append(mcpStep, m), append(noopStep, n)
		sdkCall = append(sdkCall, sdkCalls(b, 200))
	}
	b.ReportMetric(median(connect), "connect-ms")
	b.ReportMetric(median(sdkConnect), "sdk-connect-ms")
	b.ReportMetric(median(mcpStep), "mcp-ms/step")
	b.ReportMetric(median(noopStep), "noop-ms/step")
	b.ReportMetric(median(sdkCall), "sdk-ms/call")
	b.ReportMetric(median(mcpStep)-median(sdkCall), "overhead-ms/call")
	if len(boxed) > 0 {
		b.ReportMetric(median(boxed), "boxed-first-call-ms")
		b.ReportMetric(median(unboxed), "first-call-ms")
	}
	b.ReportMetric(0, "ns/op")
}

func trustedFixture() mcp.Server {
	s := mcptest.Stdio(nil)
	s.Trusted = true
	return s
}

// firstCalls is the median time of the first call of the fixture's echo in
// each of 10 runs whose sandbox mode is mode, each run ended untimed.
func firstCalls(b *testing.B, sb *sandbox.Sandbox, mode string) float64 {
	m := mcp.New(mcp.Options{Servers: map[string]mcp.Server{"fx": trustedFixture()}, Sandbox: sb})
	reg := tool.NewRegistry()
	for _, src := range m.Sources() {
		if err := reg.AddSource(src); err != nil {
			b.Fatal(err)
		}
	}
	reg.AddRunEnder(m)
	ws := b.TempDir()
	var ms []float64
	for i := range 10 {
		env := tool.Env{RunID: fmt.Sprint("run_", i), Workspace: ws, Sandbox: sandbox.Settings{Mode: mode}}
		start := time.Now()
		res, err := reg.Call(context.Background(), env, "mcp__fx__echo", json.RawMessage(`{"text":"first"}`))
		if err != nil || res.IsError {
			b.Fatalf("first call (sandbox %s): %v %+v", mode, err, res)
		}
		ms = append(ms, float64(time.Since(start).Microseconds())/1000)
		if _, err := reg.EndRun(context.Background(), env); err != nil {
			b.Fatal(err)
		}
	}
	return median(ms)
}

// mcpConnect is the median time of 10 Tests of the fixture.
func mcpConnect(b *testing.B) float64 {
	m := mcp.New(mcp.Options{Servers: map[string]mcp.Server{"fx": trustedFixture()}})
	var ms []float64
	for range 10 {
		start := time.Now()
		res, err := m.Test(context.Background(), "fx")
		if err != nil || !res.OK {
			b.Fatalf("test the fixture: %v %+v", err, res)
		}
		ms = append(ms, float64(time.Since(start).Microseconds())/1000)
	}
	return median(ms)
}

func fixtureCommand() *exec.Cmd {
	s := trustedFixture()
	cmd := exec.Command(s.Command, s.Args...)
	cmd.Env = []string{}
	for k, v := range s.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	return cmd
}

// sdkConnectTime is the median time of 10 connections of the SDK alone to
// the fixture (each process started, then stopped untimed).
func sdkConnectTime(b *testing.B) float64 {
	c := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil)
	var ms []float64
	for range 10 {
		start := time.Now()
		cs, err := c.Connect(context.Background(), &sdk.CommandTransport{Command: fixtureCommand(), TerminateDuration: time.Second}, nil)
		if err != nil {
			b.Fatal(err)
		}
		ms = append(ms, float64(time.Since(start).Microseconds())/1000)
		_ = cs.Close()
	}
	return median(ms)
}

// sdkCalls is the median time of n calls of echo on one SDK session.
func sdkCalls(b *testing.B, n int) float64 {
	c := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &sdk.CommandTransport{Command: fixtureCommand(), TerminateDuration: time.Second}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	var ms []float64
	for i := range n {
		start := time.Now()
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "echo", Arguments: map[string]string{"text": fmt.Sprint("step ", i)}})
		if err != nil || res.IsError {
			b.Fatalf("echo: %v %+v", err, res)
		}
		ms = append(ms, float64(time.Since(start).Microseconds())/1000)
	}
	return median(ms)
}

// mcpSteps runs steps steps calling the fixture's echo, then as many
// calling noop, in one store on disk after a warm-up of each, and returns
// the median step of each.
func mcpSteps(b *testing.B, steps int) (mcpStep, noopStep float64) {
	st, err := store.Open(filepath.Join(b.TempDir(), "bench.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	reg := tool.NewRegistry()
	if err := reg.Register(tool.Must(tool.New("noop", "does nothing", tool.RiskRead,
		func(context.Context, tool.Env, struct{}) (tool.Result, error) { return tool.Result{Output: "ok"}, nil }))); err != nil {
		b.Fatal(err)
	}
	m := mcp.New(mcp.Options{Servers: map[string]mcp.Server{"fx": trustedFixture()}})
	defer m.Close()
	for _, src := range m.Sources() {
		if err := reg.AddSource(src); err != nil {
			b.Fatal(err)
		}
	}
	reg.AddRunEnder(m)
	var mu sync.Mutex
	n := 0
	id := func(p string) string { mu.Lock(); defer mu.Unlock(); n++; return fmt.Sprint(p, n) }
	ws := b.TempDir()
	one := func(steps int, name string, args json.RawMessage, want string) float64 {
		cp := &stepsModel{steps: steps, tool: name, args: args}
		svc := run.New(run.Config{Store: st, Approver: inbox.New(st, nil, func() string { return id("ia") }),
			Tools: reg, Models: benchModels{cp}, NewID: id})
		defer func() { _ = svc.Shutdown(context.Background()) }()
		a := agent.Default()
		a.Tools, a.MaxSteps = []string{"noop", mcp.Pattern("fx")}, steps+1
		r, err := svc.Start(context.Background(), run.StartParams{Agent: a, Instructions: "benchmark", Workspace: ws})
		if err != nil {
			b.Fatal(err)
		}
		if done := svc.Done(r.ID); done != nil {
			<-done
		}
		final, _ := st.GetRun(context.Background(), r.ID)
		if final.Status != "completed" || len(cp.at) != steps+1 {
			b.Fatalf("run %s after %d calls: %s", final.Status, len(cp.at), final.Error)
		}
		// Every call ran: a tool error would also complete the run.
		evs, err := st.Events(context.Background(), r.ID, 0, 1<<30)
		if err != nil {
			b.Fatal(err)
		}
		ok := 0
		for _, ev := range evs {
			var d event.NodeFinishedData
			if ev.Type == event.NodeFinished && ev.Decode(&d) == nil && d.Output == want {
				ok++
			}
		}
		if ok != steps {
			b.Fatalf("%d of %d calls of %s answered %q", ok, steps, name, want)
		}
		var per []float64
		for i := 1; i < len(cp.at); i++ {
			per = append(per, float64(cp.at[i].Sub(cp.at[i-1]).Microseconds())/1000)
		}
		return median(per)
	}
	echo := json.RawMessage(`{"text": "one more step"}`)
	none := json.RawMessage(`{}`)
	one(20, "mcp__fx__echo", echo, "echo: one more step") // warm-up: the listing, the store's pages
	one(20, "noop", none, "ok")
	return one(steps, "mcp__fx__echo", echo, "echo: one more step"), one(steps, "noop", none, "ok")
}
