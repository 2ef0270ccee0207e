package e2e

// End-to-end test of the Usage page (issue 17 §5): two runs on a priced
// fake model, then the run header's budgets as used/limit, and the Usage
// page by day, agent and run, with its chart, in light and dark. The
// screenshots are kept (STEWARD_ARTIFACTS) to be looked at.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

func TestE2EUsagePage(t *testing.T) {
	t.Parallel()
	// Each run: a read, then an answer; every call 10 tokens in, 5 out.
	ms := newModelServerFunc(t, func(req chatRequest, n int) (string, []fakeCall) {
		if n%2 == 1 {
			return "Reading the notes.", []fakeCall{{"read_file", map[string]string{"path": "notes.txt"}}}
		}
		return "Done.", nil
	})
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	// $1000 and $2000 a million tokens: a call costs $0.02, enough to see.
	if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(`{"prices": {"fake": {"input_per_mtok": 1000, "output_per_mtok": 2000}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startServeAt(t, t.TempDir(), home, "OPENAI_BASE_URL="+ms.URL+"/v1", "OPENAI_API_KEY=sk-e2e-test", "STEWARD_MODEL=fake")
	ctx := browser(t)
	fail := func(what string, err error) {
		t.Helper()
		screenshot(t, ctx, "e2e-usage-failed")
		t.Fatalf("%s: %v\nserver output:\n%s", what, err, s.logs)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(s.url), chromedp.WaitVisible(chromedp.CSS(`textarea[aria-label="Instructions"]`))); err != nil {
		fail("open the UI", err)
	}
	for _, instr := range []string{"Read the notes", "Read the notes again"} {
		err := chromedp.Do(ctx,
			setField("Instructions", instr),
			setField("Workspace", ws),
			clickStartRun(),
			pollTrue(fmt.Sprintf(`document.querySelector('section[aria-label="Transcript"]')?.innerText.includes(%q)`, instr)),
			waitStatus("completed"),
		)
		if err != nil {
			fail("run "+instr, err)
		}
	}
	// The header shows the steps budget as used / limit (the agent's
	// default max_steps), read from the engine's count: two model calls.
	if err := chromedp.Do(ctx, pollTrue(`/^steps 2 \/ \d+$/.test(document.querySelector('[data-testid="budget-steps"]')?.textContent ?? "")`)); err != nil {
		got, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="run-budgets"]')?.textContent ?? "none"`))
		fail("budgets in the run header: "+got, err)
	}
	screenshot(t, ctx, "e2e-usage-run-budgets")

	err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="usage-button"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="usage-page"]`)),
		// By day (the default): one day, two runs, four calls at $0.02.
		pollTrue(`document.querySelectorAll('[data-testid="usage-row"]').length === 1`),
		pollTrue(`document.querySelector('[data-testid="usage-total"]')?.innerText.includes("$0.08")`),
		pollTrue(`document.querySelectorAll('[data-testid="usage-bar"]').length === 1`),
	)
	if err != nil {
		got, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="usage-page"]')?.innerText ?? "none"`))
		fail("usage by day: "+got, err)
	}
	total, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="usage-total"]`)))
	if err != nil || !strings.Contains(total, "40") || !strings.Contains(total, "20") {
		t.Errorf("total %q (%v): want 40 tokens in and 20 out", total, err)
	}
	for _, scheme := range []string{"light", "dark"} {
		if err := chromedp.Do(ctx, theme(scheme)); err != nil {
			fail(scheme, err)
		}
		time.Sleep(300 * time.Millisecond)
		screenshot(t, ctx, "e2e-usage-by-day-"+scheme)
	}
	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.Search(`//div[@aria-label="Group by"]/button[normalize-space()="Run"]`)),
		pollTrue(`document.querySelectorAll('[data-testid="usage-row"]').length === 2 && document.querySelectorAll('[data-testid="usage-bar"]').length === 2`),
	)
	if err != nil {
		fail("usage by run", err)
	}
	for _, scheme := range []string{"light", "dark"} {
		if err := chromedp.Do(ctx, theme(scheme)); err != nil {
			fail(scheme, err)
		}
		time.Sleep(300 * time.Millisecond)
		screenshot(t, ctx, "e2e-usage-by-run-"+scheme)
	}
	// A run's row opens the run.
	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="usage-row"] button.link`)),
		chromedp.WaitVisible(chromedp.CSS(`section[aria-label="Transcript"]`)),
	)
	if err != nil {
		fail("open a run from its usage row", err)
	}

	// A run whose steps budget runs out after one call: Raise budget and
	// continue asks for the new limit, refuses one that raises nothing,
	// and continues with the one typed.
	start := fmt.Sprintf(`fetch("/api/v1/runs", {method: "POST", credentials: "same-origin", headers: {"Content-Type": "application/json"},
		body: JSON.stringify({agent: "default", instructions: "Raise me", workspace: %q, limits: {max_steps: 1}})}).then(r => r.ok)`, ws)
	ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](start, chromedp.EvalAwaitPromise))
	if err != nil || !ok {
		fail("start a run with max_steps 1", fmt.Errorf("ok %v: %v", ok, err))
	}
	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.Search(`//button[.//text()[contains(., "Raise me")]]`)),
		waitStatus("paused"),
		pollTrue(`document.querySelector('[data-testid="budget-steps"]')?.textContent === "steps 1 / 1"`),
		chromedp.Click(chromedp.Search(`//button[normalize-space()="Raise budget and continue"]`)),
		pollTrue(`document.querySelector('input[aria-label="New steps limit"]')?.value === "2"`),
		setField("New steps limit", "1"),
		chromedp.Click(chromedp.Search(`//button[normalize-space()="Continue with these limits"]`)),
		pollTrue(`document.querySelector('form[aria-label="Raise budget"] [role="alert"]')?.textContent === "Raise at least one budget above its limit to go on"`),
	)
	if err != nil {
		fail("the raise form", err)
	}
	screenshot(t, ctx, "e2e-usage-raise-form-refused")
	err = chromedp.Do(ctx,
		setField("New steps limit", "3"),
		chromedp.Click(chromedp.Search(`//button[normalize-space()="Continue with these limits"]`)),
		waitStatus("completed"),
		pollTrue(`document.querySelector('[data-testid="budget-steps"]')?.textContent === "steps 2 / 3"`),
	)
	if err != nil {
		got, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="run-budgets"]')?.textContent ?? "none"`))
		fail("continue with the raised limit: "+got, err)
	}
}
