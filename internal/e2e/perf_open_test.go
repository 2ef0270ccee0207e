package e2e

// What a person waits for when they open a long run: from selecting it to
// its last transcript row and its last graph node drawn, for runs of 10,000
// and 100,000 events; the long tasks on the way (the main thread must not
// block for more than 50 ms at a time), and the JS heap once it is open and
// after a forced collection. TestE2EPerfLongRun's condition (firstShown:
// the first page) is timed on the way, as the figure of the first paint.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/profiler"
	"github.com/chromedp/chromedp"
)

// openFigures is what one opening of a run measured, in the page.
type openFigures struct {
	MS        float64 `json:"ms"`        // selection to the whole run in, last row and last node drawn
	EndMS     float64 `json:"endMs"`     // selection to last row and last node drawn (the run's end, shown first)
	FirstMS   float64 `json:"firstMs"`   // selection to firstShown (the first page)
	Long      int     `json:"long"`      // long tasks (over 50 ms) meanwhile
	LongMS    float64 `json:"longMs"`    // their total
	WorstTask float64 `json:"worstTask"` // the longest
	// Each long task's start (ms after the selection) and length: where a
	// CPU profile's samples of a long task are.
	Tasks [][2]float64 `json:"tasks"`
}

// openRun selects run id as a person would (the hash changes) and waits in
// the page until the row of lastTool and the graph node of lastModel (its
// turn folded into it) are drawn, the transcript's foot too (the end), and
// the transcript holds the whole run, not only its end.
func openRun(t *testing.T, ctx context.Context, id, lastModel, lastTool string) openFigures {
	t.Helper()
	js := fmt.Sprintf(`new Promise(resolve => {
		const long = [];
		const po = new PerformanceObserver(list => list.getEntries().forEach(e => long.push([e.startTime - t0, e.duration])));
		try { po.observe({type: "longtask", buffered: false}); } catch (e) {}
		const end = () =>
			document.querySelector('.vlist-row[data-key="foot"]') &&
			document.querySelector('.vlist-row[data-key="%[2]s"] article[data-testid="tool-card"]') &&
			document.querySelector('.react-flow__node[data-id="%[3]s"]') &&
			document.querySelector('[data-testid="run-status"]')?.textContent === "completed";
		const done = () => end() && document.querySelector('section[aria-label="Transcript"]')?.dataset.history === "whole";
		const t0 = performance.now();
		let first = 0, ended = 0;
		location.hash = "run=%[1]s";
		const check = () => {
			if (!first && (%[4]s)) first = performance.now() - t0;
			if (!ended && end()) ended = performance.now() - t0;
			if (!done()) return requestAnimationFrame(check);
			const ms = performance.now() - t0;
			// Long tasks are reported after they end: one more frame.
			requestAnimationFrame(() => setTimeout(() => {
				po.disconnect();
				resolve({ms, endMs: ended || ms, firstMs: first || ms, long: long.length, longMs: long.reduce((a, b) => a + b[1], 0), worstTask: Math.max(0, ...long.map((l) => l[1])), tasks: long});
			}, 0));
		};
		check();
	})`, id, lastTool, lastModel, firstShown)
	stop := cpuProfile(t, ctx, strings.ReplaceAll(t.Name(), "/", "-"))
	f, err := chromedp.Run(ctx, chromedp.Evaluate[openFigures](js, chromedp.EvalAwaitPromise))
	stop()
	if err == nil && len(f.Tasks) > 0 {
		t.Logf("long tasks [start ms after the selection, length ms]: %v", f.Tasks)
	}
	if err != nil {
		screenshot(t, ctx, "e2e-perf-open-failed")
		t.Fatalf("run %s did not open: %v", id, err)
	}
	return f
}

// cpuProfile records the page's V8 CPU profile from now until the returned
// function is called, into $STEWARD_CPUPROFILE/name.cpuprofile (it opens in
// Chromium's DevTools), when that folder is set: how a figure is explained.
func cpuProfile(t *testing.T, ctx context.Context, name string) func() {
	t.Helper()
	dir := os.Getenv("STEWARD_CPUPROFILE")
	if dir == "" {
		return func() {}
	}
	_, err := chromedp.Call(ctx, profiler.Enable, cdp.Empty{})
	if err == nil {
		_, err = chromedp.Call(ctx, profiler.SetSamplingInterval, profiler.SetSamplingIntervalParams{Interval: 200})
	}
	if err == nil {
		_, err = chromedp.Call(ctx, profiler.Start, cdp.Empty{})
	}
	if err != nil {
		t.Fatalf("start the CPU profile: %v", err)
	}
	return func() {
		p, err := chromedp.Call(ctx, profiler.Stop, cdp.Empty{})
		if err != nil {
			t.Fatalf("stop the CPU profile: %v", err)
		}
		b, err := json.Marshal(p.Profile)
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(dir, name+".cpuprofile")
		if err := os.WriteFile(file, b, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("CPU profile: %s", file)
	}
}

// taskTarget is the longest the main thread may block, in ms.
const taskTarget = 50.0

func TestE2EPerfOpen(t *testing.T) {
	for _, c := range []struct {
		name   string
		turns  int
		target float64 // the issue's, in ms
		bound  float64 // what fails here, with room for a loaded CI machine
	}{
		// The control: a run of a hundred events opens with the same first
		// mount and first render, whose code runs for the first time.
		{"100", 10, 500, 1500},
		{"10k", 1000, 500, 1500},
		{"100k", 10000, 1500, 3000},
	} {
		t.Run(c.name, func(t *testing.T) {
			home, ws := t.TempDir(), t.TempDir()
			id := bigRun(t, home, ws, c.turns)
			s := startServeAt(t, t.TempDir(), home)
			ctx := browser(t)
			if err := chromedp.Do(ctx, chromedp.Navigate(s.url), chromedp.WaitVisible(chromedp.CSS(`textarea[aria-label="Instructions"]`))); err != nil {
				t.Fatal(err)
			}
			// bigRun's last turn: model call n(2·turns+1), its call n(2·turns+2).
			f := openRun(t, ctx, id, fmt.Sprintf("n%d", 2*c.turns+1), fmt.Sprintf("n%d", 2*c.turns+2))
			screenshot(t, ctx, "e2e-perf-open-"+c.name)
			if os.Getenv("STEWARD_DOMCOUNT") != "" {
				v, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => { const out = {}; for (const el of document.querySelectorAll('section[aria-label], [data-testid], .react-flow, .graph-overview')) { const k = (el.getAttribute('aria-label') || el.dataset.testid || el.className).slice(0,40); out[k] = (out[k]||0) + el.querySelectorAll('*').length; } out.all = document.querySelectorAll('*').length; return JSON.stringify(Object.entries(out).sort((a,b)=>b[1]-a[1]).slice(0,15)); })()`))
				t.Logf("DOM: %s", v)
			}
			uiBench(t, "UIOpen"+c.name+"Events", f.MS, "ms")
			uiBench(t, "UIOpen"+c.name+"FirstShown", f.FirstMS, "ms")
			uiBench(t, "UIOpen"+c.name+"EndShown", f.EndMS, "ms")
			uiBench(t, "UIOpen"+c.name+"LongTasks", float64(f.Long), "tasks")
			uiBench(t, "UIOpen"+c.name+"WorstTask", f.WorstTask, "ms")
			t.Logf("%s: open %.0f ms (its end shown at %.0f ms), %d long tasks (%.0f ms in all, worst %.0f ms)", c.name, f.MS, f.EndMS, f.Long, f.LongMS, f.WorstTask)
			loaded, collected := jsHeap(t, ctx)
			uiBench(t, "UIOpen"+c.name+"Heap", loaded, "MiB")
			uiBench(t, "UIOpen"+c.name+"HeapAfterGC", collected, "MiB")
			t.Logf("%s: JS heap %.0f MiB open, %.0f MiB after a collection", c.name, loaded, collected)
			if f.MS > c.bound {
				t.Errorf("opening the %s-event run took %.0f ms; the target is under %.0f", c.name, f.MS, c.target)
			}
			// The main thread must not block for more than 50 ms (issue 18);
			// here each opening's longest task was 0-66 ms on a quiet machine,
			// 130-525 ms before the history was taken in as a stream. Four
			// times the target leaves room for a loaded CI machine.
			if f.WorstTask > 4*taskTarget {
				t.Errorf("opening the %s-event run blocked the page for %.0f ms at once (tasks %v); the target is %.0f at most", c.name, f.WorstTask, f.Tasks, taskTarget)
			}
		})
	}
}
