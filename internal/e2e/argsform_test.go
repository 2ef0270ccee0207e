package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
)

// typeInto sets the field labelled label inside the element at xpath, as
// a person's typing reaches React (the native setter, an input event).
func typeInto(xpath, label, value string) chromedp.Action[chromedp.Void] {
	return pollTrue(fmt.Sprintf(`(() => {
		const root = document.evaluate(%q, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue;
		const l = root && [...root.querySelectorAll('label')].find(l => l.textContent.replace('*', '').trim() === %q);
		const el = l && document.getElementById(l.htmlFor);
		if (!el) return false;
		const proto = el instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
		Object.getOwnPropertyDescriptor(proto, 'value').set.call(el, %q);
		el.dispatchEvent(new Event('input', {bubbles: true}));
		return el.value === %q;
	})()`, xpath, label, value, value))
}

// Edit, then approve through the form read from write_file's schema: the
// content is edited in its own box, and what runs is the edit.
func TestE2EApprovalArgsForm(t *testing.T) {
	t.Parallel()
	ms := newModelServer(t)
	env := []string{"OPENAI_BASE_URL=" + ms.URL + "/v1", "OPENAI_API_KEY=sk-e2e-test", "STEWARD_MODEL=fake"}
	ws := t.TempDir()
	s := startServeAt(t, t.TempDir(), t.TempDir(), env...)
	ctx := browser(t)
	fail := func(what string, err error) {
		t.Helper()
		screenshot(t, ctx, "e2e-argsform-failed")
		t.Fatalf("%s: %v\nserver output:\n%s", what, err, s.logs)
	}
	const edited = "edited in the form\nsecond line\n"
	err := chromedp.Do(ctx,
		chromedp.Navigate(s.url),
		startRun(ws, "Write d.txt"),
		waitStatus("waiting"),
		clickStillXPath(card("d.txt")+`//button[@data-testid="edit-args"]`),
		chromedp.WaitVisible(chromedp.Search(card("d.txt")+`//form[@data-testid="args-form"]//textarea`)),
		typeInto(card("d.txt"), "content", edited),
	)
	if err != nil {
		fail("edit the content in the form", err)
	}
	screenshot(t, ctx, "e2e-argsform-light")
	if err := chromedp.Do(ctx, theme("dark")); err != nil {
		fail("dark theme", err)
	}
	screenshot(t, ctx, "e2e-argsform-dark")
	err = chromedp.Do(ctx,
		theme("light"),
		clickStillXPath(card("d.txt")+`//button[@data-testid="approve-edited"]`),
		waitStatus("completed"),
		chromedp.WaitVisible(chromedp.Search(card("d.txt")+`[@data-status="succeeded"]`)),
		chromedp.WaitVisible(chromedp.Search(card("d.txt")+`//*[@data-testid="edited-args"]`)),
		pollTrue(`document.querySelector('[data-testid="edited-args"]')?.innerText.includes("edited in the form")`),
	)
	screenshot(t, ctx, "e2e-argsform-approved")
	if err != nil {
		fail("approve the edit", err)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "d.txt")); err != nil || string(b) != edited {
		t.Errorf("d.txt = %q, %v", b, err)
	}
}
