package e2e

// End-to-end test of the run view's room (issue 17 §2): on a run with a
// plan, a read, and a pending edit and command approval, the transcript
// gets at least 60% of a 1440×900 window's height and 50% of a 1024×700
// one's, in light and dark; the inbox is one line; each approval's buttons
// are in view on its card, never inside a box of its own to scroll. The
// screenshots are kept (STEWARD_ARTIFACTS) to be looked at.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

func TestE2ERunViewRoom(t *testing.T) {
	t.Parallel()
	ms := newModelServerFunc(t, func(req chatRequest, n int) (string, []fakeCall) {
		switch n {
		case 1:
			return "I'll read the calculator first.", []fakeCall{
				{"update_plan", map[string]any{"steps": []map[string]string{
					{"title": "Read calc.py", "status": "in_progress"}, {"title": "Fix the rounding", "status": "pending"}, {"title": "Run the tests", "status": "pending"}}}},
				{"read_file", map[string]string{"path": "src/calc.py"}},
			}
		case 2:
			return "The rounding is wrong at line 12; fixing it and running the tests.", []fakeCall{
				{"edit_file", map[string]string{"path": "src/calc.py", "old_string": "    return round(x)\n", "new_string": "    return round(x, 2)\n"}},
				{"run_command", map[string]string{"command": "python3 -m pytest -q 2>&1 | tail -n 5"}},
			}
		}
		return "Done.", nil
	})
	ws := t.TempDir()
	var calc strings.Builder
	for i := 1; i <= 20; i++ {
		if i == 12 {
			calc.WriteString("    return round(x)\n")
			continue
		}
		fmt.Fprintf(&calc, "# line %d\n", i)
	}
	if err := os.MkdirAll(filepath.Join(ws, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "src", "calc.py"), []byte(calc.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startServeAt(t, t.TempDir(), t.TempDir(), "OPENAI_BASE_URL="+ms.URL+"/v1", "OPENAI_API_KEY=sk-e2e-test", "STEWARD_MODEL=fake")
	ctx := browser(t)
	fail := func(what string, err error) {
		t.Helper()
		screenshot(t, ctx, "e2e-room-failed")
		t.Fatalf("%s: %v\nserver output:\n%s", what, err, s.logs)
	}
	err := chromedp.Do(ctx,
		chromedp.Navigate(s.url),
		chromedp.WaitVisible(chromedp.CSS(`textarea[aria-label="Instructions"]`)),
		setField("Instructions", "Fix the rounding in src/calc.py"),
		setField("Workspace", ws),
		clickStartRun(),
		waitStatus("waiting"),
		pollTrue(`document.querySelectorAll('section[aria-label="Transcript"] [data-testid="approval-card"]').length === 2`),
		// The edit's card shows the diff at the file's true line, with context.
		pollTrue(`[...document.querySelectorAll('section[aria-label="Transcript"] article[data-tool="edit_file"] [data-testid="tool-diff"]')].some(d => d.innerText.includes("@@ -9,7 +9,7 @@"))`),
		pollTrue(`document.querySelector('section[aria-label="Transcript"] article[data-tool="run_command"]')?.innerText.includes("$ python3 -m pytest -q 2>&1 | tail -n 5")`),
		pollTrue(`document.querySelector('[data-testid="inbox-here"]')?.innerText.includes("2 waiting in this run")`),
	)
	if err != nil {
		fail("a run waiting on an edit and a command", err)
	}

	for _, size := range []struct {
		w, h  int64
		share float64
	}{{1440, 900, 0.60}, {1024, 700, 0.50}} {
		for _, scheme := range []string{"light", "dark"} {
			name := fmt.Sprintf("e2e-room-%dx%d-%s", size.w, size.h, scheme)
			if err := chromedp.Do(ctx, emulateSize(size.w, size.h), theme(scheme)); err != nil {
				fail(name, err)
			}
			time.Sleep(300 * time.Millisecond) // a frame or two for the layout
			m, err := chromedp.Run(ctx, chromedp.Evaluate[roomFigures](`(() => {
				const h = window.innerHeight;
				const tr = document.querySelector('section[aria-label="Transcript"]').getBoundingClientRect();
				const inbox = document.querySelector('section[aria-label="Inbox"]').getBoundingClientRect();
				// A box between a card's buttons and the transcript that
				// scrolls itself hides them.
				const cut = [];
				for (const card of document.querySelectorAll('section[aria-label="Transcript"] [data-testid="approval-card"]')) {
					const b = card.querySelector('button.approve');
					for (let el = b.parentElement; el && el !== card.parentElement; el = el.parentElement) {
						const st = getComputedStyle(el);
						if (/(auto|scroll)/.test(st.overflowY) && el.scrollHeight > el.clientHeight + 1) cut.push(el.className);
					}
				}
				return {share: tr.height / h, inbox: inbox.height, cut};
			})()`))
			screenshot(t, ctx, name)
			if err != nil {
				fail(name, err)
			}
			t.Logf("%s: the transcript has %.0f%% of the height; the inbox %.0f px", name, 100*m.Share, m.Inbox)
			if m.Share < size.share {
				t.Errorf("%s: the transcript has %.0f%% of the window's height, want at least %.0f%%", name, 100*m.Share, 100*size.share)
			}
			if m.Inbox > 80 {
				t.Errorf("%s: the inbox is %.0f px high with nothing of another run in it", name, m.Inbox)
			}
			if len(m.Cut) > 0 {
				t.Errorf("%s: an approval's buttons are inside boxes that scroll: %v", name, m.Cut)
			}
		}
	}
}

// roomFigures is what the room test measures of the run view.
type roomFigures struct {
	Share float64  `json:"share"` // the transcript's height over the window's
	Inbox float64  `json:"inbox"` // the inbox's height, px
	Cut   []string `json:"cut"`   // boxes that scroll around an approval's buttons
}

// emulateSize shows the page in a window of w×h px.
func emulateSize(w, h int64) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, _ *chromedp.Target) (chromedp.Void, error) {
		_, err := chromedp.Call(ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{Width: w, Height: h, DeviceScaleFactor: 1})
		return chromedp.Void{}, err
	}
}
