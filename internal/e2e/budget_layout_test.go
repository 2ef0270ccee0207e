package e2e

// The run header keeps its height when the budget answer arrives (issue
// 18): the answer is held in the browser (the Fetch domain) while the page
// is measured, then let through, and the pane switch (Transcript, Graph,
// ...) must not have moved. It once moved down a line, under the pointer of
// a test that then clicked the wrong thing. Screenshots before and after
// are kept (STEWARD_ARTIFACTS) to be looked at.

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/chromedp"
)

func TestE2EBudgetKeepsHeader(t *testing.T) {
	t.Parallel()
	s := startServe(t, t.TempDir())
	// The demo run: it writes a note once approved, then completes.
	var r struct{ ID string }
	s.call(t, "POST", "/api/v1/runs", map[string]any{"agent": "default", "instructions": "write the demo note", "workspace": t.TempDir()}, http.StatusCreated, &r)
	var pending struct{ Interactions []struct{ ID string } }
	for deadline := time.Now().Add(30 * time.Second); len(pending.Interactions) == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("run %s asked for no approval within 30 s", r.ID)
		}
		s.get(t, "/api/v1/interactions?status=pending&run_id="+r.ID, &pending)
	}
	s.call(t, "POST", "/api/v1/interactions/"+pending.Interactions[0].ID+"/answer", map[string]string{"decision": "approve"}, http.StatusOK, nil)
	waitRunStatus(t, s, r.ID, "completed")

	ctx := browser(t)
	fail := func(what string, err error) {
		t.Helper()
		screenshot(t, ctx, "e2e-budget-header-failed")
		t.Fatalf("%s: %v\nserver output:\n%s", what, err, s.logs)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(s.url), chromedp.WaitVisible(chromedp.CSS(`textarea[aria-label="Instructions"]`))); err != nil {
		fail("open the UI", err)
	}
	// From now on the budget's answers wait until let through.
	paused := chromedp.Events(ctx, fetch.RequestPaused)
	if _, err := chromedp.Call(ctx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*/api/v1/runs/*/budget*"}}}); err != nil {
		fail("hold the budget's answers", err)
	}
	facts := `document.querySelector('dl.run-facts')`
	switchTop := `document.querySelector('.pane-switch')?.getBoundingClientRect().top ?? -1`
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](fmt.Sprintf(`(location.hash = "run=%s", true)`, r.ID))); err != nil {
		fail("open the run", err)
	}
	var held fetch.RequestID
	for ev, err := range paused {
		if err != nil {
			fail("wait for the budget's read", err)
		}
		held = ev.RequestID
		break
	}
	// The run's row is in (its steps shown), the budget not yet.
	err := chromedp.Do(ctx,
		pollTrue(facts+`?.innerText.includes("Steps") && document.querySelector('.pane-switch') !== null`),
		pollTrue(`document.querySelector('[data-testid="run-budgets"]') === null`),
	)
	if err != nil {
		fail("the header before the budget", err)
	}
	before, err := chromedp.Run(ctx, chromedp.Evaluate[float64](switchTop))
	if err != nil {
		fail("measure before", err)
	}
	screenshot(t, ctx, "e2e-budget-header-before")
	if _, err := chromedp.Call(ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: held}); err != nil {
		fail("let the budget through", err)
	}
	// Later reads (none are expected for an ended run) go through at once.
	if _, err := chromedp.Call(ctx, fetch.Disable, cdp.Empty{}); err != nil {
		fail("stop holding", err)
	}
	if err := chromedp.Do(ctx, pollTrue(`/^steps \d+ \/ \d+$/.test(document.querySelector('[data-testid="budget-steps"]')?.textContent ?? "")`)); err != nil {
		got, _ := chromedp.Run(ctx, chromedp.Evaluate[string](facts+`?.innerText ?? "none"`))
		fail("the budget in the header: "+got, err)
	}
	after, err := chromedp.Run(ctx, chromedp.Evaluate[float64](switchTop))
	if err != nil {
		fail("measure after", err)
	}
	screenshot(t, ctx, "e2e-budget-header-after")
	text, _ := chromedp.Run(ctx, chromedp.Evaluate[string](facts+`?.innerText ?? ""`))
	t.Logf("pane switch at %.1f px before the budget, %.1f after; facts %q", before, after, strings.Join(strings.Fields(text), " "))
	if before != after {
		t.Errorf("the pane switch moved from %.1f to %.1f px when the budget arrived", before, after)
	}
}
