package e2e

// End-to-end test of the Agents and Settings pages in headless Chromium
// against the real binary: create an agent, edit it, save a provider key
// (shown again only as a hint, stored with mode 0600), revoke a grant; and
// screenshots of the main views in the light and the dark theme.

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// setByLabel types value into the form control labelled label, the way a
// person's typing reaches React.
func setByLabel(label, value string) chromedp.Action[chromedp.Void] {
	return runJS(fmt.Sprintf(`(() => {
		const l = [...document.querySelectorAll('label')].find(l => l.textContent.trim() === %q);
		const el = l && (l.htmlFor ? document.getElementById(l.htmlFor) : l.querySelector('input,textarea,select'));
		if (!el) throw new Error("no control labelled " + %q);
		const proto = el instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : el instanceof HTMLSelectElement ? HTMLSelectElement.prototype : HTMLInputElement.prototype;
		Object.getOwnPropertyDescriptor(proto, 'value').set.call(el, %q);
		el.dispatchEvent(new Event(el instanceof HTMLSelectElement ? 'change' : 'input', {bubbles: true}));
		return true;
	})()`, label, label, value))
}

// formLoaded waits for the agent form: the editor shows "Loading…" until
// it has the tool catalog (and, to edit, the agent).
var formLoaded = pollTrue(`[...document.querySelectorAll('label')].some(l => l.textContent.trim() === "Name")`)

// theme makes the page see the system's colour scheme as scheme.
func theme(scheme string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, _ *chromedp.Target) (chromedp.Void, error) {
		_, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}})
		return chromedp.Void{}, err
	}
}

func TestE2EAgentsSettingsGrants(t *testing.T) {
	t.Parallel()
	s := startServe(t, t.TempDir())
	ctx := browser(t)
	fail := func(what string, err error) {
		t.Helper()
		screenshot(t, ctx, "e2e-settings-failed")
		t.Fatalf("%s: %v\nserver output:\n%s", what, err, s.logs)
	}
	// A grant to revoke later: approve always, everywhere, over the API.
	var r struct{ ID string }
	s.call(t, "POST", "/api/v1/runs", map[string]any{"agent": "default", "instructions": "write", "workspace": t.TempDir()}, http.StatusCreated, &r)
	var its struct{ Interactions []struct{ ID string } }
	for len(its.Interactions) == 0 {
		s.get(t, "/api/v1/interactions?status=pending&run_id="+r.ID, &its)
	}
	s.call(t, "POST", "/api/v1/interactions/"+its.Interactions[0].ID+"/answer", map[string]any{"decision": "approve", "scope": "everywhere"}, http.StatusOK, nil)

	// Create an agent.
	err := chromedp.Do(ctx,
		chromedp.Navigate(s.url),
		chromedp.WaitVisible(chromedp.CSS(`textarea[aria-label="Instructions"]`)),
		runJS(fmt.Sprintf(`(() => { location.hash = "run=%s"; return true })()`, r.ID)),
		waitStatus("completed"),
	)
	if err != nil {
		fail("open the run", err)
	}
	for _, scheme := range []string{"light", "dark"} {
		if err := chromedp.Do(ctx, theme(scheme)); err != nil {
			t.Fatal(err)
		}
		screenshot(t, ctx, "e2e-view-run-"+scheme)
	}
	err = chromedp.Do(ctx,
		theme("light"),
		chromedp.Click(chromedp.CSS(`[data-testid="agents-button"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="agents-page"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="agent-new"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="agent-editor"]`)),
		formLoaded,
		setByLabel("Name", "reviewer"),
		setByLabel("Description", "Reads and comments"),
		setByLabel("Max wall time", "forever"),
		chromedp.Click(chromedp.CSS(`[data-testid="agent-save"]`)),
		// The server's message, next to the form, which keeps what was typed.
		pollTrue(`document.querySelector('[data-testid="agent-error"]')?.textContent.includes("max_wall_time")`),
		setByLabel("Max wall time", "30m"),
		chromedp.Click(chromedp.CSS(`[data-testid="agent-save"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="agent-row"][data-name="reviewer"]`)),
	)
	if err != nil {
		fail("create an agent", err)
	}
	// Edit it: plan mode.
	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="agent-row"][data-name="reviewer"] [data-testid="agent-edit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="agent-editor"]`)),
		pollTrue(`[...document.querySelectorAll('input')].some(i => i.value === "reviewer")`),
		setByLabel("Mode", "plan"),
		chromedp.Click(chromedp.CSS(`[data-testid="agent-save"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="agent-row"][data-name="reviewer"]`)),
	)
	if err != nil {
		fail("edit the agent", err)
	}
	var a struct{ Mode string }
	s.get(t, "/api/v1/agents/reviewer", &a)
	if a.Mode != "plan" {
		t.Errorf("the edited agent's mode is %q, want plan", a.Mode)
	}
	for _, scheme := range []string{"light", "dark"} {
		_ = chromedp.Do(ctx, theme(scheme))
		screenshot(t, ctx, "e2e-view-agents-"+scheme)
	}

	// Save an API key: shown again only as a hint, stored 0600.
	const key = "sk-e2e-secret-0123456789abcdef"
	err = chromedp.Do(ctx,
		theme("light"),
		chromedp.Click(chromedp.CSS(`[data-testid="settings-button"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="provider-card"][data-provider="openai"]`)),
		chromedp.SendKeys(chromedp.CSS(`[data-testid="provider-card"][data-provider="openai"] [data-testid="provider-key-input"]`), key),
		chromedp.Click(chromedp.CSS(`[data-testid="provider-card"][data-provider="openai"] [data-testid="provider-save"]`)),
		pollTrue(`document.querySelector('[data-testid="provider-card"][data-provider="openai"]')?.innerText.includes("…cdef")`),
	)
	if err != nil {
		fail("save a key", err)
	}
	page, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.documentElement.outerHTML`))
	if strings.Contains(page, key) || strings.Contains(page, "0123456789abcdef") {
		t.Error("the page holds the key after saving it")
	}
	fi, err := os.Stat(filepath.Join(s.home, "config.json"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("config.json: %v, mode %v; want 0600", err, fi.Mode().Perm())
	}
	for _, scheme := range []string{"light", "dark"} {
		_ = chromedp.Do(ctx, theme(scheme))
		screenshot(t, ctx, "e2e-view-settings-"+scheme)
	}

	// Revoke the grant.
	err = chromedp.Do(ctx,
		theme("light"),
		chromedp.Click(chromedp.Search(`//nav[@data-testid="settings-nav"]//button[normalize-space()="Grants"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="grant-row"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="grant-row"] [data-testid="revoke-grant"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="grants-empty"]`)),
	)
	if err != nil {
		fail("revoke a grant", err)
	}
	var grants struct{ Grants []struct{ ID string } }
	s.get(t, "/api/v1/grants", &grants)
	if len(grants.Grants) != 0 {
		t.Errorf("%d grants left after the revoke", len(grants.Grants))
	}
}
