package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestE2EFollowUp: a run that completed shows a follow-up box where the
// steer box was; a message sent from it continues the same run as a new
// turn: the transcript shows the message, the model reads the whole
// conversation and the message, and the run completes again.
func TestE2EFollowUp(t *testing.T) {
	t.Parallel()
	ms := newModelServerFunc(t, func(req chatRequest, n int) (string, []fakeCall) {
		if n == 1 {
			return "First answer.", nil
		}
		return "Second answer, to: " + req.Messages[len(req.Messages)-1].text(), nil
	})
	env := []string{"OPENAI_BASE_URL=" + ms.URL + "/v1", "OPENAI_API_KEY=sk-e2e-test", "STEWARD_MODEL=fake"}
	ws := t.TempDir()
	s := startServe(t, t.TempDir(), env...)
	ctx := browser(t)
	fail := func(what string, err error) {
		t.Helper()
		screenshot(t, ctx, "e2e-follow-up-failed")
		t.Fatalf("%s: %v\nserver output:\n%s", what, err, s.logs)
	}
	const message = "Now say goodbye"
	err := chromedp.Do(ctx,
		chromedp.Navigate(s.url),
		chromedp.WaitVisible(chromedp.CSS(`textarea[aria-label="Instructions"]`)),
		setField("Instructions", "Say hello"),
		setField("Workspace", ws),
		clickStartRun(),
		waitStatus("completed"),
		chromedp.WaitVisible(chromedp.CSS(`textarea[aria-label="Follow-up message"]`)),
		pollTrue(`!document.querySelector('textarea[aria-label="Steer message"]')`),
	)
	if err != nil {
		fail("a completed run offers a follow-up", err)
	}
	err = chromedp.Do(ctx,
		setField("Follow-up message", message),
		chromedp.Click(chromedp.Search(`//button[normalize-space()="Send follow-up"]`)),
		pollTrue(fmt.Sprintf(`document.querySelector('[data-testid="follow-up-message"]')?.innerText.includes(%q)`, message)),
		pollTrue(fmt.Sprintf(`[...document.querySelectorAll('[data-testid="llm-text"]')].some((e) => e.innerText.includes(%q))`, "Second answer, to: "+message)),
		waitStatus("completed"),
		chromedp.WaitVisible(chromedp.CSS(`textarea[aria-label="Follow-up message"]`)),
		pollTrue(`document.querySelector('section[aria-label="Transcript"]')?.innerText.includes("turn 2")`),
		pollTrue(`document.querySelector('nav[aria-label="Runs"] button.run-item')?.innerText.includes("completed")`),
		// The run's facts count both turns' model calls: budgets do too.
		pollTrue(`[...document.querySelectorAll('.run-facts dt')].find((d) => d.textContent === "Steps")?.nextElementSibling?.textContent === "2"`),
	)
	screenshot(t, ctx, "e2e-follow-up")
	if err != nil {
		fail("the follow-up's turn", err)
	}
	// One run, two turns: the second model call read the first turn and
	// the message, in order.
	ms.mu.Lock()
	reqs := ms.reqs
	ms.mu.Unlock()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls, want 2", len(reqs))
	}
	var got []string
	for _, m := range reqs[1].Messages {
		if m.Role != "system" {
			got = append(got, m.Role+":"+m.text())
		}
	}
	want := []string{"user:Say hello", "assistant:First answer.", "user:" + message}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("the follow-up's model call read %q, want %q", got, want)
	}
	runs, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('nav[aria-label="Runs"] button.run-item').length`))
	if err != nil || runs != 1 {
		t.Errorf("%d runs in the list (%v), want the one run", runs, err)
	}
}
