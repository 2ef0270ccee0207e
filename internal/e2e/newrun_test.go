package e2e

// The New run form's Options fold, in a real browser against the real
// binary: a run started with a budget and a breakpoint from it pauses at
// the breakpoint, and the fold is pictured open, light and dark.

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"
)

func TestE2ENewRunOptionsBreakpoint(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	s := startServe(t, t.TempDir())
	ctx := browser(t)
	fail := func(what string, err error) {
		t.Helper()
		screenshot(t, ctx, t.Name()+"-failed")
		t.Fatalf("%s: %v\nserver output:\n%s", what, err, s.logs)
	}
	err := chromedp.Do(ctx,
		chromedp.Navigate(s.url),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="demo-label"]`)),
		chromedp.SendKeys(chromedp.CSS(`textarea[aria-label="Instructions"]`), "Write the note, stopping first"),
		setField("Workspace", ws),
		// Closed at first: the form stays short.
		pollTrue(`document.querySelector('[data-testid="run-options"]').open === false`),
		chromedp.Click(chromedp.CSS(`[data-testid="run-options"] > summary`)),
		chromedp.WaitVisible(chromedp.CSS(`input[aria-label="Max steps"]`)),
		setField("Max steps", "5"),
		chromedp.Click(chromedp.CSS(`input[aria-label="Pause before write_file"]`)),
		pollTrue(`document.querySelector('[data-testid="run-options"] summary').textContent === "Options (2 set)"`),
	)
	if err != nil {
		fail("open the options and set them", err)
	}
	screenshot(t, ctx, "e2e-new-run-options-light")
	if err := chromedp.Do(ctx, theme("dark")); err != nil {
		fail("dark theme", err)
	}
	screenshot(t, ctx, "e2e-new-run-options-dark")
	if err := chromedp.Do(ctx, theme("light")); err != nil {
		fail("light theme", err)
	}
	err = chromedp.Do(ctx,
		clickStartRun(),
		chromedp.WaitVisible(chromedp.CSS(`section[aria-label="Transcript"]`)),
		waitStatus("paused"),
		// It paused for the breakpoint set in the form, before the write.
		pollTrue(`document.body.innerText.toLowerCase().includes("breakpoint before write_file")`),
		// The workspace is offered again for the next run.
		chromedp.Navigate(s.url),
		pollTrue(`document.querySelector('[aria-label="Workspace"]')?.value === `+fmt.Sprintf("%q", ws)),
	)
	if err != nil {
		fail("start the run and see it pause at the breakpoint", err)
	}
}
