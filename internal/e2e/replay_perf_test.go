package e2e

// The memory of the web page that replays a long run: a run of 10,000
// events (an hour of a busy agent) is exported as the self-contained page,
// opened offline and played through twice as fast as the page can. What the
// page holds afterwards must be the run's own state, not what the playing
// left behind: the second replay adds nothing to the first.

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/heapprofiler"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

func TestE2EPerfReplayMemory(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	id := bigRun(t, home, ws, 1000)
	s := startServeAt(t, t.TempDir(), home)
	code, _, page := s.rawDo(t, "GET", "/api/v1/runs/"+id+"/export?format=html", nil)
	if code != 200 {
		t.Fatalf("export html: %d %.300s", code, page)
	}
	file := filepath.Join(t.TempDir(), "run.html")
	if err := os.WriteFile(file, page, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := browser(t)
	heap := func(what string) float64 {
		t.Helper()
		if _, err := chromedp.Call(ctx, heapprofiler.CollectGarbage, cdp.Empty{}); err != nil {
			t.Fatalf("%s: collect garbage: %v", what, err)
		}
		// The page's own figure (performance.memory) is rounded to buckets
		// without a flag; the debugger's is exact.
		use, err := chromedp.Call(ctx, cdpruntime.GetHeapUsage, cdp.Empty{})
		if err != nil {
			t.Fatalf("%s: heap: %v", what, err)
		}
		return use.UsedSize / 1048576
	}
	playThrough := func(what string) {
		t.Helper()
		err := chromedp.Do(ctx,
			chromedp.SetValue(chromedp.CSS(`select[aria-label="Speed"]`), "max"),
			runJS(`(() => { const s = document.querySelector('select[aria-label="Speed"]'); s.dispatchEvent(new Event("change", {bubbles: true})); return true })()`),
			chromedp.Click(chromedp.CSS(`[data-testid="timeline-play"]`)),
			pollTrue(`(() => { const tl = document.querySelector('[data-testid="timeline"]'); return tl.dataset.playing === "false" && tl.dataset.at === document.querySelector('[data-testid="timeline-scrubber"]').max })()`),
		)
		if err != nil {
			screenshot(t, ctx, "e2e-replay-memory-failed")
			t.Fatalf("%s: %v", what, err)
		}
	}
	err := chromedp.Do(ctx,
		chromedp.Navigate("file://"+file),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="timeline"]`)),
		pollTrue(`document.querySelectorAll('article[data-testid="tool-card"]').length > 0`),
	)
	if err != nil {
		t.Fatalf("open the page: %v", err)
	}
	loaded := heap("loaded")
	playThrough("replay 1") // from the end, Play replays from the start
	first := heap("after one replay")
	for i := 2; i <= 4; i++ {
		playThrough(fmt.Sprintf("replay %d", i))
	}
	fourth := heap("after four replays")
	screenshot(t, ctx, "e2e-replay-memory")
	pageMiB := float64(len(page)) / 1048576
	t.Logf("page %.1f MiB; JavaScript heap %.1f MiB loaded, %.1f after one replay, %.1f after four", pageMiB, loaded, first, fourth)
	uiBench(t, "UIReplayPageMiB", pageMiB, "MiB")
	uiBench(t, "UIReplayHeapLoaded", loaded, "MiB")
	uiBench(t, "UIReplayHeapAfter1", first, "MiB")
	uiBench(t, "UIReplayHeapAfter4", fourth, "MiB")
	// The first replay builds the timeline's checkpoints; replaying again
	// must not add to them. The heap moves by a few MiB from one
	// measurement to the next with the garbage collector's timing; a page
	// that kept a copy of the run's state per replay (about 6 MiB here)
	// would pass this bound by the fourth.
	if fourth > first*1.5 {
		t.Errorf("the page grows as it replays: %.1f MiB after one replay, %.1f after four", first, fourth)
	}
}
