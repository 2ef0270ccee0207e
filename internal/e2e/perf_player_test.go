package e2e

// The HTML player with a long run: a 100,000-event run exported as a web
// page through the binary's API, then opened from file:// in headless
// Chromium, measured from the navigation until its last transcript row and
// its last graph node are drawn (issue 18: under 2 s, no task over 200 ms).

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// playerOpenJS runs in the page before its own script (it is added to every
// new document): it records the long tasks from the start and, at every
// frame, whether the run is fully drawn, into window.__playerOpen.
const playerOpenJS = `(() => {
	const long = [];
	window.__longTasks = [];
	try {
		new PerformanceObserver(list => list.getEntries().forEach(e => { long.push(e.duration); window.__longTasks.push([Math.round(e.startTime), Math.round(e.duration)]); }))
			.observe({type: "longtask", buffered: true});
	} catch (e) {}
	const done = () =>
		document.querySelector('.vlist-row[data-key="foot"]') &&
		document.querySelector('.vlist-row[data-key="%[1]s"] article[data-testid="tool-card"]') &&
		document.querySelector('.react-flow__node[data-id="%[2]s"]') &&
		document.querySelector('[data-testid="run-status"]')?.textContent === "completed";
	const check = () => {
		if (!done()) return requestAnimationFrame(check);
		const ms = performance.now();
		// Long tasks are reported after they end: one more frame.
		requestAnimationFrame(() => setTimeout(() => {
			window.__playerOpen = {ms, long: long.length, longMs: long.reduce((a, b) => a + b, 0), worstTask: Math.max(0, ...long)};
		}, 0));
	};
	requestAnimationFrame(check);
})()`

// Bounds that fail here, with room for a 2-CPU machine other tests load
// (at a load average of 16 the player took 4.4 s with a 717 ms task): the
// targets are 2 s and 200 ms. The player that parsed and folded the whole
// page in one task took 2.6 s with a 1.76 s task on an idle machine, its
// page of 21 MB; the parts, compressed, make it 3 MB.
const (
	playerOpenBoundMS  = 6000
	playerWorstBoundMS = 1000
	playerPageBound    = 8 << 20
)

func TestE2EPerfPlayerOpen(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: exports a 100,000-event run as a web page and opens it three times, about 12 s; make test and CI run it")
	}
	const turns = 10_000
	home, ws := t.TempDir(), t.TempDir()
	id := bigRun(t, home, ws, turns)
	s := startServeAt(t, t.TempDir(), home)
	var exports []float64
	var body []byte
	for range 3 {
		t0 := time.Now()
		code, _, b := s.rawDo(t, "GET", "/api/v1/runs/"+id+"/export?format=html", nil)
		exports = append(exports, time.Since(t0).Seconds()*1000)
		if code != http.StatusOK {
			t.Fatalf("export as html: %d %.300s", code, b)
		}
		body = b
	}
	path := filepath.Join(t.TempDir(), id+".html")
	if err := os.WriteFile(path, body, 0o644); err != nil {
		t.Fatal(err)
	}
	pageURL := (&url.URL{Scheme: "file", Path: path}).String()

	browserCtx := browser(t)
	// bigRun's last turn: model call n(2·turns+1), its call n(2·turns+2).
	js := fmt.Sprintf(playerOpenJS, fmt.Sprintf("n%d", 2*turns+2), fmt.Sprintf("n%d", 2*turns+1))
	// Each opening in a tab of its own, the heap measured in the last.
	var opens []openFigures
	var ctx context.Context
	for i := range 3 {
		var closeTab context.CancelFunc
		ctx, closeTab = chromedp.NewContext(browserCtx)
		t.Cleanup(closeTab)
		if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: js}); err != nil {
			t.Fatal(err)
		}
		stopProfile := cpuProfile(t, ctx, fmt.Sprintf("player-open-%d", i+1))
		if err := chromedp.Do(ctx, chromedp.Navigate(pageURL)); err != nil {
			t.Fatal(err)
		}
		f, err := chromedp.Run(ctx, chromedp.Poll[openFigures](`window.__playerOpen`, chromedp.WithPollingTimeout(60*time.Second)))
		stopProfile()
		if err != nil {
			screenshot(t, ctx, "e2e-perf-player-failed")
			t.Fatalf("the recording did not open fully: %v", err)
		}
		tasks, err := chromedp.Run(ctx, chromedp.Evaluate[[][2]float64](`window.__longTasks`))
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("open %d: %.0f ms, %d long tasks (%.0f ms in all, worst %.0f ms; [start, ms] %v)", i+1, f.MS, f.Long, f.LongMS, f.WorstTask, tasks)
		opens = append(opens, f)
		if i < 2 {
			closeTab()
		}
	}
	screenshot(t, ctx, "e2e-perf-player-100k")
	loaded, collected := jsHeap(t, ctx)
	// The replay works on the log read in parts: the scrubber to the middle
	// (the first move back builds the checkpoints it starts from, after
	// the heap is measured: they are the replay's, not the open's) shows
	// the run there.
	scrubMS, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`new Promise(resolve => {
		const el = document.querySelector('[data-testid="timeline-scrubber"]');
		const t0 = performance.now();
		Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set.call(el, "50000");
		el.dispatchEvent(new Event('input', {bubbles: true}));
		const check = () => document.querySelector('[data-testid="timeline"]').dataset.at === "50000" &&
			document.querySelector('[data-testid="run-status"]')?.textContent === "running"
			? resolve(performance.now() - t0) : requestAnimationFrame(check);
		check();
	})`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("scrub to the middle: %v", err)
	}
	uiBench(t, "PlayerScrub100kMiddle", scrubMS, "ms")
	screenshot(t, ctx, "e2e-perf-player-100k-middle")

	median := func(v []float64) float64 { v = slices.Clone(v); slices.Sort(v); return v[len(v)/2] }
	of := func(get func(openFigures) float64) float64 {
		var v []float64
		for _, f := range opens {
			v = append(v, get(f))
		}
		return median(v)
	}
	open, worst := of(func(f openFigures) float64 { return f.MS }), of(func(f openFigures) float64 { return f.WorstTask })
	uiBench(t, "PlayerExport100k", median(exports), "ms")
	uiBench(t, "PlayerExport100kBytes", float64(len(body)), "bytes")
	uiBench(t, "PlayerOpen100k", open, "ms")
	uiBench(t, "PlayerOpen100kLongTasks", of(func(f openFigures) float64 { return float64(f.Long) }), "tasks")
	uiBench(t, "PlayerOpen100kWorstTask", worst, "ms")
	uiBench(t, "PlayerOpen100kHeap", loaded, "MiB")
	uiBench(t, "PlayerOpen100kHeapAfterGC", collected, "MiB")
	t.Logf("export %.0f ms (median of 3), %d bytes; open %.0f ms, worst task %.0f ms (medians of 3); JS heap %.0f MiB open, %.0f MiB after a collection",
		median(exports), len(body), open, worst, loaded, collected)
	if len(body) > playerPageBound {
		t.Errorf("the page of the 100,000-event run is %d bytes; this test fails above %d", len(body), playerPageBound)
	}
	if open > playerOpenBoundMS {
		t.Errorf("opening the 100,000-event recording took %.0f ms (median of 3); the target is under 2000, this test fails above %d", open, playerOpenBoundMS)
	}
	if worst > playerWorstBoundMS {
		t.Errorf("its longest task took %.0f ms (median of 3); the target is under 200, this test fails above %d", worst, playerWorstBoundMS)
	}
}
