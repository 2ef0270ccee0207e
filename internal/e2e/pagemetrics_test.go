package e2e

// What the page's main thread does over a stretch of time, measured in the
// page and through the debugger: the frames drawn and the longest gap
// between two, the long tasks (over 50 ms), and the time the main thread
// worked (the debugger's TaskDuration) and ran JavaScript (ScriptDuration),
// which the frame rate hides once it reaches the display's 60. The
// performance tests measure with these.

import (
	"context"
	"fmt"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/heapprofiler"
	"github.com/chromedp/cdproto/performance"
	"github.com/chromedp/chromedp"
)

// frameFigures is what one measurement of the page found.
type frameFigures struct {
	FPS       float64 `json:"fps"`       // frames drawn per second
	Frames    int     `json:"frames"`    // frames drawn
	Frame     float64 `json:"frame"`     // the longest gap between two frames, ms
	Long      int     `json:"long"`      // long tasks (over 50 ms)
	WorstTask float64 `json:"worstTask"` // the longest of them, ms
	Busy      float64 `json:"-"`         // the main thread's work, ms per second
	Script    float64 `json:"-"`         // of which JavaScript, ms per second
}

// measureFrames counts, in the page of ctx, the frames and long tasks over
// ms milliseconds, and reads the main thread's busy time around it. step,
// when not empty, is JavaScript run at every frame with f, the fraction of
// the time gone (0 to 1), in scope: what the page is made to do meanwhile,
// a scroll for instance.
func measureFrames(t *testing.T, ctx context.Context, ms int, step string) frameFigures {
	t.Helper()
	js := fmt.Sprintf(`new Promise(resolve => {
		const long = [];
		const po = new PerformanceObserver(list => list.getEntries().forEach(e => long.push(e.duration)));
		try { po.observe({type: "longtask", buffered: false}); } catch (e) {}
		const step = f => { %s };
		step(0);
		requestAnimationFrame(() => {
			let frames = 0, gap = 0; const t0 = performance.now(); let last = t0;
			const tick = now => {
				frames++; gap = Math.max(gap, now - last); last = now;
				const f = Math.min(1, (performance.now() - t0) / %d);
				step(f);
				if (f < 1) return requestAnimationFrame(tick);
				const fps = frames * 1000 / (performance.now() - t0);
				// Long tasks are reported after they end: one more turn.
				setTimeout(() => { po.disconnect(); resolve({fps, frames, frame: gap, long: long.length, worstTask: Math.max(0, ...long)}); }, 0);
			};
			requestAnimationFrame(tick);
		});
	})`, step, ms)
	task0, script0 := mainThread(t, ctx)
	f, err := chromedp.Run(ctx, chromedp.Evaluate[frameFigures](js, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("measure frames: %v", err)
	}
	task1, script1 := mainThread(t, ctx)
	sec := float64(ms) / 1000
	f.Busy, f.Script = (task1-task0)/sec, (script1-script0)/sec
	return f
}

// mainThread is how long the main thread of the page of ctx has worked so
// far, and run JavaScript, in ms.
func mainThread(t *testing.T, ctx context.Context) (task, script float64) {
	t.Helper()
	// Enabling again is harmless; the counter runs from the page's start.
	if _, err := chromedp.Call(ctx, performance.Enable, performance.EnableParams{}); err != nil {
		t.Fatalf("performance metrics: %v", err)
	}
	m, err := chromedp.Call(ctx, performance.GetMetrics, cdp.Empty{})
	if err != nil {
		t.Fatalf("performance metrics: %v", err)
	}
	found := 0
	for _, x := range m.Metrics {
		switch x.Name {
		case "TaskDuration":
			task, found = x.Value*1000, found+1
		case "ScriptDuration":
			script, found = x.Value*1000, found+1
		}
	}
	if found != 2 {
		t.Fatal("no TaskDuration or ScriptDuration in the page's metrics")
	}
	return task, script
}

// throttleCPU makes the page's CPU rate times slower (1 undoes it), as the
// debugger does: a machine shared with other work, where 60 fps is not a
// given and work per frame shows.
func throttleCPU(t *testing.T, ctx context.Context, rate float64) {
	t.Helper()
	if _, err := chromedp.Call(ctx, emulation.SetCPUThrottlingRate, emulation.SetCPUThrottlingRateParams{Rate: rate}); err != nil {
		t.Fatalf("CPU throttling: %v", err)
	}
}

// jsHeap is the page's JavaScript heap in MiB as it is, and after a
// collection forced through the debugger (what the page holds on to).
func jsHeap(t *testing.T, ctx context.Context) (now, collected float64) {
	t.Helper()
	read := func() float64 {
		v, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`performance.memory ? performance.memory.usedJSHeapSize / 1048576 : -1`))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	now = read()
	if _, err := chromedp.Call(ctx, heapprofiler.CollectGarbage, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	return now, read()
}
