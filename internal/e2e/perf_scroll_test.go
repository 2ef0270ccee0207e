package e2e

// The transcripts of a 10,000-event run (2,000 nodes) and of a
// 100,000-event run (20,000 nodes) in headless Chromium:
//
//   - scrolled from top to bottom in 10 s, the frame rate, the longest
//     frame and the main thread's busy time, with the idle page's as the
//     control (issue 18's row of the table);
//   - one row in view growing and shrinking at every frame, as a streamed
//     message or an opened card does: the JavaScript time per frame. Each
//     frame then measures a row; a list that pays O(n) for it (recomputing
//     every offset, scanning every key for its anchor) spends twice as
//     long at 20,000 rows as at 2,000, one that pays O(log n) the same.
//     The 10,000-event run is the control, measured in turns with the
//     other, five times each, the least of each kept, so that a change in
//     the machine's load falls on both.
//
// At 20,000 rows that O(n) is about a millisecond a frame, which the
// frame rate does not show on this machine (60 fps before and after the
// Fenwick tree, d50609e); the ratio does (2.5 to 3.8 before, 0.8 to 1.5
// after).

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"steward/internal/chromiumtest"
)

// scrollStep is measureFrames' step that moves the transcript's list from
// top (f = 0) to bottom (f = 1).
const scrollStep = `const el = document.querySelector('[aria-label="Transcript messages"]');
	if (f === 0) { el.scrollTop = 0; el.dispatchEvent(new Event("scroll")); }
	else el.scrollTop = f * (el.scrollHeight - el.clientHeight);`

// resizeStep is measureFrames' step that makes the row in the middle of the
// view 8 px taller, then shorter, at every other frame.
const resizeStep = `const rows = document.querySelectorAll('[aria-label="Transcript messages"] .vlist-row');
	const r = rows[Math.floor(rows.length / 2)]?.firstElementChild;
	if (r) { window.__grow = !window.__grow; r.style.paddingBottom = window.__grow ? "8px" : ""; }`

// openTranscript writes a run of turns turns (bigRun), serves it and opens
// its transcript alone, every page of its history read.
func openTranscript(t *testing.T, turns int) context.Context {
	t.Helper()
	home, ws := t.TempDir(), t.TempDir()
	id := bigRun(t, home, ws, turns)
	s := startServeAt(t, t.TempDir(), home)
	// Opening the run takes seconds on its own: a generous budget.
	ctx, _ := chromiumtest.Browser(t, 1400, 900, 5*time.Minute)
	err := chromedp.Do(ctx,
		chromedp.Navigate(s.url),
		chromedp.WaitVisible(chromedp.CSS(`textarea[aria-label="Instructions"]`)),
		runJS(fmt.Sprintf(`(() => { location.hash = "run=%s"; return true })()`, id)),
		// The Transcript tab, pressed from the page: a click at its place on
		// screen missed it when the run's header grew a line (its budgets)
		// between finding the tab and the click, and the test then waited
		// three minutes on a graph it had asked to hide.
		pollTrue(`(() => {
			const b = [...document.querySelectorAll('[aria-label="Show"] button')].find((b) => b.textContent.trim() === "Transcript");
			if (!b) return false;
			if (b.getAttribute("aria-pressed") !== "true") b.click();
			return b.getAttribute("aria-pressed") === "true";
		})()`),
	)
	if err != nil {
		t.Fatal(err)
	}
	// Loaded: the foot and bigRun's last tool call, n(2·turns+2), are rows.
	loaded := fmt.Sprintf(`document.querySelector('[data-testid="run-status"]')?.textContent === "completed" &&
		document.querySelector('section[aria-label="Transcript"] .vlist-row[data-key="foot"]') &&
		document.querySelector('section[aria-label="Transcript"] .vlist-row[data-key="n%d"] article[data-testid="tool-card"]') &&
		!document.querySelector('section[aria-label="Graph"]')`, 2*turns+2)
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](loaded, chromedp.WithPollingTimeout(3*time.Minute))); err != nil {
		screenshot(t, ctx, "e2e-perf-scroll-failed")
		// Which of the conditions held, so that a failure says where the
		// page stopped.
		state, _ := chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf(`JSON.stringify({
			status: document.querySelector('[data-testid="run-status"]')?.textContent ?? null,
			foot: !!document.querySelector('section[aria-label="Transcript"] .vlist-row[data-key="foot"]'),
			last: !!document.querySelector('section[aria-label="Transcript"] .vlist-row[data-key="n%d"]'),
			rows: [...document.querySelectorAll('section[aria-label="Transcript"] .vlist-row')].map(r => r.dataset.key).slice(-3),
			graph: !!document.querySelector('section[aria-label="Graph"]'),
			hash: location.hash,
		})`, 2*turns+2)))
		t.Fatalf("the run's transcript did not load: %v; the page: %s", err, state)
	}
	// Settle: the first rows measured, the follow at the end done.
	if err := chromedp.Do(ctx, chromedp.Sleep(time.Second)); err != nil {
		t.Fatal(err)
	}
	return ctx
}

func TestE2EPerfScroll(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: writes and scrolls runs of 10,000 and 100,000 events, about 1 min; make test and CI run it")
	}
	pages := []struct {
		name  string
		turns int
		ctx   context.Context
	}{{name: "10k", turns: 1000}, {name: "100k", turns: 10_000}}
	for i := range pages {
		pages[i].ctx = openTranscript(t, pages[i].turns)
	}
	for _, p := range pages {
		name := "UIScroll" + p.name
		idle := measureFrames(t, p.ctx, 1500, "")
		uiBench(t, name+"IdleFPS", idle.FPS, "fps")
		uiBench(t, name+"IdleWorstFrame", idle.Frame, "ms")
		res := measureFrames(t, p.ctx, 10_000, scrollStep)
		screenshot(t, p.ctx, "e2e-perf-scroll-"+p.name)
		end, err := chromedp.Run(p.ctx, chromedp.Evaluate[[]float64](`(() => { const el = document.querySelector('[aria-label="Transcript messages"]'); return [el.scrollTop, el.scrollHeight, el.querySelectorAll('.vlist-row').length] })()`))
		if err != nil || len(end) != 3 {
			t.Fatalf("the list's position: %v %v", end, err)
		}
		t.Logf("%s: %d frames; ended at %.0f of %.0f px with %.0f rows in the DOM", p.name, res.Frames, end[0], end[1], end[2])
		uiBench(t, name+"FPS", res.FPS, "fps")
		uiBench(t, name+"WorstFrame", res.Frame, "ms")
		uiBench(t, name+"Busy", res.Busy, "ms/s")
		if minHeight := float64(p.turns) * 10; end[1] < minHeight {
			t.Errorf("the %s transcript is %.0f px high: not the %d nodes of the run", p.name, end[1], 2*p.turns)
		}
		// The target is 60 fps with no frame over 50 ms; the
		// bounds leave room for a loaded machine (the ratio below is what
		// catches an O(n) list): 233 ms was seen with the machine loaded.
		if res.FPS < 30 {
			t.Errorf("%.0f frames per second scrolling the %s-event transcript; the target is 60", res.FPS, p.name)
		}
		if res.Frame > 400 {
			t.Errorf("the longest frame scrolling the %s-event transcript took %.0f ms; the target is under 50", p.name, res.Frame)
		}
	}

	// A row measured at every frame, the list parked low (the anchor is
	// then near the end), not following.
	for _, p := range pages {
		if err := chromedp.Do(p.ctx,
			runJS(`(() => { const el = document.querySelector('[aria-label="Transcript messages"]'); el.scrollTop = el.scrollHeight * 0.9; el.dispatchEvent(new Event("scroll")); return true })()`),
			chromedp.Sleep(500*time.Millisecond)); err != nil {
			t.Fatal(err)
		}
	}
	perFrame := map[string][]float64{}
	for range 5 {
		for _, p := range pages {
			f := measureFrames(t, p.ctx, 2000, resizeStep)
			perFrame[p.name] = append(perFrame[p.name], f.Script/f.FPS)
		}
	}
	// The least of the five: other work on the machine only adds to the
	// time a frame's script took, and it comes and goes faster than the
	// turns alternate (a median of five went from 1.0x to 2.2x so).
	small, big := slices.Min(perFrame["10k"]), slices.Min(perFrame["100k"])
	uiBench(t, "UIRowMeasure10kScript", small, "ms/frame")
	uiBench(t, "UIRowMeasure100kScript", big, "ms/frame")
	uiBench(t, "UIRowMeasure100kOf10k", big/small, "x")
	t.Logf("JavaScript per frame with a row measured at every frame: %v at 2,000 rows, %v at 20,000", perFrame["10k"], perFrame["100k"])
	// O(log n) measures 0.8 to 1.5 here and the O(n) list before d50609e
	// 2.5 to 3.8, on the same machine, loaded (a load average of 18 gave
	// the 1.5).
	if big > 2*small {
		t.Errorf("a row measured costs %.2f ms of JavaScript a frame at 20,000 rows, %.2f ms at 2,000: %.1fx, where O(log n) stays near 1x",
			big, small, big/small)
	}
}
