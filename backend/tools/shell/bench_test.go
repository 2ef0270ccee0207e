//go:build linux

package shell_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"steward/backend/sandbox"
	"steward/backend/sandbox/sandboxtest"
	"steward/backend/tool"
	"steward/backend/tools/shell"
)

// sandboxRuns is how many commands each side of BenchmarkSandboxCost runs
// per iteration; the figures are their medians.
const sandboxRuns = 20

// BenchmarkSandboxCost measures what the sandbox costs a command: run_command
// with the command true, outside the sandbox (ms/outside) and inside it
// (ms/inside), each the median of 20 runs taken in turns, and the difference
// of the medians (ms/cost).
func BenchmarkSandboxCost(b *testing.B) {
	sb := sandbox.New(sandbox.Options{})
	sandboxtest.Require(b, sb)
	ws := b.TempDir()
	args, err := json.Marshal(map[string]any{"command": "true"})
	if err != nil {
		b.Fatal(err)
	}
	tl := shell.Tools(&shell.Options{Sandbox: sb})[0]
	run := func(mode string) time.Duration {
		env := tool.Env{RunID: "bench", Workspace: ws, Sandbox: sandbox.Settings{Mode: mode}}
		start := time.Now()
		res, err := tl.Run(context.Background(), env, args)
		d := time.Since(start)
		if err != nil || res.IsError {
			b.Fatalf("%v %+v", err, res)
		}
		return d
	}
	median := func(ds []time.Duration) float64 {
		slices.Sort(ds)
		return float64((ds[len(ds)/2-1]+ds[len(ds)/2])/2) / float64(time.Millisecond)
	}
	var outside, inside, cost float64
	n := 0
	for b.Loop() {
		var out, in []time.Duration
		for range sandboxRuns {
			out = append(out, run(sandbox.ModeOff))
			in = append(in, run(sandbox.ModeOn))
		}
		o, i := median(out), median(in)
		outside, inside, cost = outside+o, inside+i, cost+i-o
		n++
	}
	b.ReportMetric(outside/float64(n), "ms/outside")
	b.ReportMetric(inside/float64(n), "ms/inside")
	b.ReportMetric(cost/float64(n), "ms/cost")
}
