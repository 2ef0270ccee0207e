package e2e

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"steward/backend/tools/mcp/mcptest"
)

// TestE2EMCPElicitation: a server asks, while its tool runs, first for a
// form and then for a page: the person sees each in the run's inbox with
// the server's name, fills in the form (its default stays), then declines
// the page; the server hears what the person said, the model reads the
// server's answers, and the run completes.
func TestE2EMCPElicitation(t *testing.T) {
	t.Parallel()
	form := map[string]any{"message": "Who should the <b>ticket</b> go to?", "schema": map[string]any{"type": "object",
		"properties": map[string]any{
			"assignee": map[string]any{"type": "string", "title": "Assignee", "minLength": 2},
			"priority": map[string]any{"type": "integer", "title": "Priority", "minimum": 1, "maximum": 5, "default": 3},
		}, "required": []string{"assignee"}}}
	page := map[string]any{"message": "Sign in to the tracker", "url": "https://tracker.example/consent?x=1"}
	ms := newModelServerFunc(t, func(req chatRequest, n int) (string, []fakeCall) {
		switch n {
		case 1:
			return "Asking the tracker.", []fakeCall{{"mcp__fx__ask", form}}
		case 2:
			return "Signing in.", []fakeCall{{"mcp__fx__ask", page}}
		}
		return "Done.", nil
	})
	home, _ := fixtureHome(t)
	s := startServeAt(t, t.TempDir(), home, "OPENAI_BASE_URL="+ms.URL+"/v1", "OPENAI_API_KEY=sk-e2e-test", "STEWARD_MODEL=fake")
	s.call(t, "POST", "/api/v1/agents", map[string]any{"name": "asker", "provider": "openai", "model": "fake", "tools": []string{"mcp__fx__*"}, "mode": "auto"},
		http.StatusCreated, nil)
	var r struct{ ID string }
	s.call(t, "POST", "/api/v1/runs", map[string]any{"agent": "asker", "instructions": "file a ticket", "workspace": t.TempDir()}, http.StatusCreated, &r)

	ctx := browser(t)
	card := `//*[@data-testid="elicitation-card"]`
	err := chromedp.Do(ctx,
		chromedp.Navigate(s.url+"#run="+r.ID),
		waitStatus("waiting"),
		chromedp.WaitVisible(chromedp.Search(card+`//*[@data-testid="elicitation-submit"]`)),
		// The server's message is text, never markup.
		pollTrue(`[...document.querySelectorAll('[data-testid="elicitation-message"]')].some(e => e.textContent.includes("Who should the <b>ticket</b> go to?"))`),
		pollTrue(`document.body.innerText.includes("fx")`),
	)
	screenshot(t, ctx, "e2e-mcp-elicitation-form")
	if err != nil {
		t.Fatalf("the server's form: %v\nserver output:\n%s", err, s.logs)
	}
	// Narrow and dark, to look at; then back as it was.
	err = chromedp.Do(ctx, theme("dark"), emulateWidth(900))
	screenshot(t, ctx, "e2e-mcp-elicitation-form-narrow-dark")
	if err == nil {
		err = chromedp.Do(ctx, theme("light"), emulateWidth(0))
	}
	if err != nil {
		t.Fatalf("narrow and dark: %v", err)
	}
	err = chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.Search(card+`//label[contains(normalize-space(), "Assignee")]/following::input[1]`), "Ada"),
		clickStillXPath(card+`//*[@data-testid="elicitation-submit"]`),
		chromedp.WaitVisible(chromedp.Search(card+`//*[@data-testid="elicitation-host"]`)),
		pollTrue(`[...document.querySelectorAll('[data-testid="elicitation-host"]')].some(e => e.textContent.includes("tracker.example"))`),
		// The inbox lists it, and the transcript says whom the run waits for.
		pollTrue(`document.querySelector('section[aria-label="Inbox"] .count')?.textContent === "1"`),
		pollTrue(`document.body.innerText.includes("Waiting for your input to the MCP server fx.")`),
	)
	screenshot(t, ctx, "e2e-mcp-elicitation-page")
	if err != nil {
		t.Fatalf("the answered form, then the page: %v\nserver output:\n%s", err, s.logs)
	}
	// Nothing opened the page for the person: the run's tab is the only one.
	if targets, err := chromedp.Targets(ctx); err != nil || countPages(targets) != 1 {
		t.Errorf("pages open: %d (%v), want the run's alone", countPages(targets), err)
	}
	err = chromedp.Do(ctx,
		clickStillXPath(card+`//*[@data-testid="elicitation-decline"]`),
		waitStatus("completed"),
	)
	screenshot(t, ctx, "e2e-mcp-elicitation-completed")
	if err != nil {
		t.Fatalf("the declined page: %v\nserver output:\n%s", err, s.logs)
	}
	var heard []string
	for _, v := range ms.toolResults() {
		heard = append(heard, v)
	}
	all := strings.Join(heard, "\n")
	for _, want := range []string{mcptest.AskAnswer + `{"action":"accept","content":{"assignee":"Ada","priority":3}}`, mcptest.AskAnswer + `{"action":"decline"}`} {
		if !strings.Contains(all, want) {
			t.Errorf("the model read %q, without %q", heard, want)
		}
	}
	var its struct {
		Interactions []struct {
			Kind, Status string
			Answer       *struct{ Decision, Source string }
		}
	}
	s.get(t, "/api/v1/interactions?run_id="+r.ID, &its)
	if len(its.Interactions) != 2 {
		t.Fatalf("interactions %+v, want the two questions", its.Interactions)
	}
	for _, it := range its.Interactions {
		if it.Kind != "elicitation" || it.Status != "answered" || it.Answer == nil || it.Answer.Source != "web" {
			t.Errorf("interaction %+v", it)
		}
	}
}

func countPages(ts []*target.Info) int {
	n := 0
	for _, t := range ts {
		if t.Type == "page" {
			n++
		}
	}
	return n
}

// emulateWidth shows the page as a window width px wide (0: as it was).
func emulateWidth(px int64) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, _ *chromedp.Target) (chromedp.Void, error) {
		var err error
		if px == 0 {
			_, err = chromedp.Call(ctx, emulation.ClearDeviceMetricsOverride, cdp.Empty{})
		} else {
			_, err = chromedp.Call(ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{Width: px, Height: 900, DeviceScaleFactor: 1})
		}
		return chromedp.Void{}, err
	}
}
