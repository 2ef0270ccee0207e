package e2e

// Performance of the UI in headless Chromium against the real binary:
// the time to first render of a run with 10,000 events and 2,000 nodes,
// and the frame rate (and long tasks) while a model streams 200 words a
// second into the transcript. With STEWARD_UI_BENCH set to a file, the
// figures are appended to it in `go test -bench` form, so that `make bench`
// reports their medians with the others.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"steward/backend/store"
	"steward/internal/bigrun"
)

// bigRun writes bigrun's run (10 events and 2 nodes a turn, every turn
// reading its own file) into the database of home and returns its id.
func bigRun(t *testing.T, home, ws string, turns int) string {
	t.Helper()
	st, err := store.Open(filepath.Join(home, "steward.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	id, _, err := bigrun.Write(st, bigrun.Params{Turns: turns, Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// uiBench appends one figure to $STEWARD_UI_BENCH in `go test -bench` form.
func uiBench(t *testing.T, name string, value float64, unit string) {
	t.Logf("%s: %.4g %s", name, value, unit)
	benchLine(t, name, fmt.Sprintf("%.6g %s", value, unit))
}

// benchLine appends a benchmark line of name with metrics ("value unit"
// pairs) to $STEWARD_UI_BENCH, when set, for .ci/benchreport.awk.
func benchLine(t *testing.T, name, metrics string) {
	path := os.Getenv("STEWARD_UI_BENCH")
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Errorf("bench report: %v", err)
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "Benchmark%s 1 0 ns/op %s\n", name, metrics)
}

// readyAt resolves, in the page, with performance.now() when cond first
// holds, checked at every frame.
func readyAt(cond string) string {
	return fmt.Sprintf(`new Promise(resolve => { const check = () => (%s) ? resolve(performance.now()) : requestAnimationFrame(check); check(); })`, cond)
}

// firstShown holds once a completed run's status, a tool card and a graph
// node are on screen: its first page, what TestE2EPerfLongRun times.
const firstShown = `document.querySelector('[data-testid="run-status"]')?.textContent === "completed" &&
	document.querySelectorAll('article[data-testid="tool-card"]').length > 0 &&
	document.querySelectorAll('.react-flow__node').length > 0`

// The performance tests are not parallel: Go runs them before the parallel
// tests start, so they measure the UI on a machine not also running a
// dozen other browsers.
func TestE2EPerfLongRun(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	id := bigRun(t, home, ws, 1000)
	s := startServeAt(t, t.TempDir(), home)
	ctx := browser(t)

	if err := chromedp.Do(ctx, chromedp.Navigate(s.url)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`textarea[aria-label="Instructions"]`))); err != nil {
		t.Fatal(err)
	}
	// Select the run as a person would, and time it in the page.
	start, err := chromedp.Run(ctx, chromedp.Evaluate[float64](fmt.Sprintf(`(() => { const t = performance.now(); location.hash = "run=%s"; return t })()`, id)))
	if err != nil {
		t.Fatal(err)
	}
	ready, err := chromedp.Run(ctx, chromedp.Evaluate[float64](readyAt(firstShown), chromedp.EvalAwaitPromise))
	if err != nil {
		screenshot(t, ctx, "e2e-perf-failed")
		t.Fatalf("the run did not render: %v", err)
	}
	screenshot(t, ctx, "e2e-perf-long-run")
	renderMS := ready - start
	uiBench(t, "UIFirstRender10kEvents", renderMS, "ms")
	cards, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('article[data-testid="tool-card"]').length`))
	t.Logf("tool cards in the DOM for 1,000 tool calls: %d", cards)
	// The target is 1 s; the bound here leaves room for a loaded
	// CI machine and still fails a UI that renders all 10,000 events.
	if renderMS > 4000 {
		t.Errorf("first render of a 10,000-event run took %.0f ms; the target is under 1,000", renderMS)
	}
	heap, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`performance.memory ? performance.memory.usedJSHeapSize / 1048576 : -1`))
	if err == nil && heap > 0 {
		uiBench(t, "UIHeapLongRun", heap, "MiB")
	}
}

func TestE2EPerfStreaming(t *testing.T) {
	script := filepath.Join(t.TempDir(), "talker.json")
	// 2,700 words at 200 a second: about 13 s of streaming, for two
	// measurements of 3 s.
	words := strings.TrimSpace(strings.Repeat("streaming words into the transcript at a steady pace, ", 300))
	b, _ := json.Marshal(map[string]any{"chunk_delay_ms": 5, "turns": []map[string]string{{"text": words}}})
	if err := os.WriteFile(script, b, 0o600); err != nil {
		t.Fatal(err)
	}
	s := startServe(t, t.TempDir())
	s.call(t, "POST", "/api/v1/agents", map[string]any{"name": "talker", "provider": "script", "script": script, "tools": []string{}, "mode": "auto"}, http.StatusCreated, nil)
	ctx := browser(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(s.url), chromedp.WaitVisible(chromedp.CSS(`textarea[aria-label="Instructions"]`))); err != nil {
		t.Fatal(err)
	}
	// The control, in the same browser on the same machine: the idle page's
	// frame rate and longest frame, so that a reader can tell a loaded
	// machine from a slow UI.
	idle := measureFrames(t, ctx, 1500, "")
	uiBench(t, "UIIdleFPS", idle.FPS, "fps")
	uiBench(t, "UIIdleWorstFrame", idle.Frame, "ms")
	var r struct{ ID string }
	s.call(t, "POST", "/api/v1/runs", map[string]any{"agent": "talker", "instructions": "talk", "workspace": t.TempDir()}, http.StatusCreated, &r)
	// Measure for 3 s while the text streams (1,350 words at 200 a second:
	// about 7 s of streaming).
	err := chromedp.Do(ctx,
		runJS(fmt.Sprintf(`(() => { location.hash = "run=%s"; return true })()`, r.ID)),
		pollTrue(`document.querySelector('[data-testid="llm-message"][data-status="running"] [data-testid="llm-text"]')?.textContent.length > 50`),
	)
	if err != nil {
		screenshot(t, ctx, "e2e-perf-stream-failed")
		t.Fatalf("no streaming text: %v", err)
	}
	res := measureFrames(t, ctx, 3000, "")
	// The same on a CPU four times slower: a machine shared with other
	// work, where 60 fps is not a given.
	throttleCPU(t, ctx, 4)
	slow := measureFrames(t, ctx, 3000, "")
	throttleCPU(t, ctx, 1)
	still, _ := chromedp.Run(ctx, chromedp.Evaluate[bool](`!!document.querySelector('[data-testid="llm-message"][data-status="running"]')`))
	screenshot(t, ctx, "e2e-perf-streaming")
	uiBench(t, "UIStreamingFPS", res.FPS, "fps")
	uiBench(t, "UIStreamingLongTasks", float64(res.Long), "tasks")
	uiBench(t, "UIStreamingWorstTask", res.WorstTask, "ms")
	uiBench(t, "UIStreamingWorstFrame", res.Frame, "ms")
	uiBench(t, "UIStreamingBusy", res.Busy, "ms/s")
	uiBench(t, "UIStreamingSlowCPUFPS", slow.FPS, "fps")
	uiBench(t, "UIStreamingSlowCPUWorstTask", slow.WorstTask, "ms")
	uiBench(t, "UIStreamingSlowCPUWorstFrame", slow.Frame, "ms")
	if !still {
		t.Errorf("the stream ended before the measurement did: the figures are not of streaming")
	}
	// Headless Chromium paces frames without a display; a UI that blocks
	// the main thread on every delta still shows here as a low rate.
	if res.FPS < 30 {
		t.Errorf("%.0f frames per second while streaming; the target is 60", res.FPS)
	}
}
