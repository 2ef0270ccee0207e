package e2e

// Scrolling the transcript of a 100,000-event run (20,000 nodes) from top
// to bottom in headless Chromium: the frame rate and the longest frame,
// with the idle page's as the control. The virtual list measures rows at
// every frame while it scrolls; a list that does O(n) work per
// measurement or per frame shows here as a low rate and long frames.

import (
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/performance"
	"github.com/chromedp/chromedp"

	"steward/internal/chromiumtest"
)

func TestE2EPerfScroll100k(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 100,000-event run")
	}
	home, ws := t.TempDir(), t.TempDir()
	id := bigRun(t, home, ws, 10_000)
	s := startServeAt(t, t.TempDir(), home)
	// Opening the run takes seconds on its own: a generous budget.
	ctx, _ := chromiumtest.Browser(t, 1400, 900, 4*time.Minute)
	const scroller = `document.querySelector('[aria-label="Transcript messages"]')`
	err := chromedp.Do(ctx,
		chromedp.Navigate(s.url),
		chromedp.WaitVisible(chromedp.CSS(`textarea[aria-label="Instructions"]`)),
		runJS(fmt.Sprintf(`(() => { location.hash = "run=%s"; return true })()`, id)),
		chromedp.Click(chromedp.Search(`//div[@aria-label="Show"]/button[normalize-space()="Transcript"]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	loaded := `document.querySelector('[data-testid="run-status"]')?.textContent === "completed" &&
		document.querySelectorAll('section[aria-label="Transcript"] article[data-testid="tool-card"]').length > 0 &&
		!document.querySelector('section[aria-label="Graph"]')`
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](loaded, chromedp.WithPollingTimeout(3*time.Minute))); err != nil {
		screenshot(t, ctx, "e2e-perf-scroll-failed")
		t.Fatalf("the run's transcript did not load: %v", err)
	}
	// Settle: the first rows measured, the follow at the end done.
	if err := chromedp.Do(ctx, chromedp.Sleep(time.Second)); err != nil {
		t.Fatal(err)
	}
	type result struct {
		FPS    float64 `json:"fps"`
		Frame  float64 `json:"frame"`
		Frames int     `json:"frames"`
		Top    float64 `json:"top"`
		Height float64 `json:"height"`
	}
	// scroll moves the list from top to bottom over ms milliseconds, one
	// step per frame (or holds it still, for the control), counting frames
	// and the longest gap between two.
	scroll := func(ms int, move bool) result {
		t.Helper()
		js := fmt.Sprintf(`new Promise(resolve => {
			const el = %s;
			const move = %t;
			if (move) { el.scrollTop = 0; el.dispatchEvent(new Event("scroll")); }
			requestAnimationFrame(() => {
				let frames = 0, gap = 0; const t0 = performance.now(); let last = t0;
				const tick = now => {
					frames++; gap = Math.max(gap, now - last); last = now;
					const f = Math.min(1, (performance.now() - t0) / %d);
					if (move) el.scrollTop = f * (el.scrollHeight - el.clientHeight);
					if (f < 1) requestAnimationFrame(tick);
					else resolve({fps: frames * 1000 / (performance.now() - t0), frame: gap, frames, top: el.scrollTop, height: el.scrollHeight});
				};
				requestAnimationFrame(tick);
			});
		})`, scroller, move, ms)
		r, err := chromedp.Run(ctx, chromedp.Evaluate[result](js, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	// busy is how long the page's main thread has worked so far, in ms:
	// what the frame rate hides once it reaches the display's 60.
	if _, err := chromedp.Call(ctx, performance.Enable, performance.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	busy := func() float64 {
		t.Helper()
		m, err := chromedp.Call(ctx, performance.GetMetrics, cdp.Empty{})
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range m.Metrics {
			if x.Name == "TaskDuration" {
				return x.Value * 1000
			}
		}
		t.Fatal("no TaskDuration in the page's metrics")
		return 0
	}
	idle := scroll(1500, false)
	uiBench(t, "UIScroll100kIdleFPS", idle.FPS, "fps")
	uiBench(t, "UIScroll100kIdleWorstFrame", idle.Frame, "ms")
	b0 := busy()
	res := scroll(10_000, true)
	uiBench(t, "UIScroll100kBusy", (busy()-b0)/10, "ms/s")
	screenshot(t, ctx, "e2e-perf-scroll")
	t.Logf("%d frames; ended at %.0f of %.0f px", res.Frames, res.Top, res.Height)
	uiBench(t, "UIScroll100kFPS", res.FPS, "fps")
	uiBench(t, "UIScroll100kWorstFrame", res.Frame, "ms")
	rows, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('[aria-label="Transcript messages"] .vlist-row').length`))
	t.Logf("rows in the DOM at the end: %d", rows)
	if res.Height < 100_000 {
		t.Errorf("the transcript is %.0f px high: not the 20,000 nodes of the run", res.Height)
	}
	// The target is 60 fps with no frame over 50 ms; the bounds
	// leave room for a loaded machine and still fail a list that does
	// O(n) work per frame (about 55 fps and 80 ms frames at 20,000 rows
	// before the Fenwick tree, much worse under load).
	if res.FPS < 30 {
		t.Errorf("%.0f frames per second scrolling a 100,000-event transcript; the target is 60", res.FPS)
	}
	if res.Frame > 200 {
		t.Errorf("the longest frame scrolling a 100,000-event transcript took %.0f ms; the target is under 50", res.Frame)
	}
}
