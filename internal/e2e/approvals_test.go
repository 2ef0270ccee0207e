package e2e

// End-to-end test of approvals in the web UI, against the real binary, a
// fake OpenAI-compatible model server and headless Chromium: a turn of two
// parallel writes is decided call by call (one approved, one denied with
// feedback, which the model server receives), then "Always allow ... for
// this agent" is chosen, confirmed and saved, survives a restart of the server, and the next run of the agent
// does not ask.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// get reads an API path with the server's token into out.
func (s *served) get(t *testing.T, path string, out any) {
	t.Helper()
	s.call(t, "GET", path, nil, http.StatusOK, out)
}

// call sends body (JSON) to an API path with the server's token, checks the
// status and decodes the answer into out (when not nil).
func (s *served) call(t *testing.T, method, path string, body any, want int, out any) {
	t.Helper()
	u, err := url.Parse(s.url)
	if err != nil {
		t.Fatal(err)
	}
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, s.base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+u.Query().Get("token"))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != want {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("%s %s: %s %s", method, path, resp.Status, b)
	}
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
	}
}

// card is the XPath of the tool card of the write to name.
// selectIn chooses value in the select labelled label inside the element
// at xpath, as a person's choice does (React hears the change).
func selectIn(xpath, label, value string) chromedp.Action[chromedp.Void] {
	js := fmt.Sprintf(`(() => {
		const root = document.evaluate(%q, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue;
		const el = root && root.querySelector('select[aria-label=%q]');
		if (!el) return false;
		Object.getOwnPropertyDescriptor(HTMLSelectElement.prototype, 'value').set.call(el, %q);
		el.dispatchEvent(new Event('change', {bubbles: true}));
		return el.value === %q;
	})()`, xpath, label, value, value)
	return pollTrue(js)
}

func card(name string) string {
	return fmt.Sprintf(`//article[@data-tool="write_file"][.//*[contains(text(), %q)]]`, name)
}

// startRun starts a run of the default agent from the new-run form, which
// is always beside the runs.
func startRun(ws, instructions string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		return chromedp.Void{}, chromedp.Do(ctx,
			chromedp.WaitVisible(chromedp.CSS(`textarea[aria-label="Instructions"]`)),
			setField("Instructions", instructions),
			setField("Workspace", ws),
			clickStartRun(),
			chromedp.WaitVisible(chromedp.CSS(`section[aria-label="Transcript"]`)),
		)
	}
}

func TestE2EApprovals(t *testing.T) {
	t.Parallel()
	ms := newModelServer(t)
	env := []string{"OPENAI_BASE_URL=" + ms.URL + "/v1", "OPENAI_API_KEY=sk-e2e-test", "STEWARD_MODEL=fake"}
	home, ws := t.TempDir(), t.TempDir()
	s := startServeAt(t, t.TempDir(), home, env...)
	ctx := browser(t)
	fail := func(what string, err error) {
		t.Helper()
		screenshot(t, ctx, "e2e-approvals-failed")
		t.Fatalf("%s: %v\nserver output:\n%s", what, err, s.logs)
	}

	// Run 1: two parallel writes, shown together before either runs.
	const feedback = "leave b.txt alone"
	err := chromedp.Do(ctx,
		chromedp.Navigate(s.url),
		chromedp.WaitVisible(chromedp.CSS(`textarea[aria-label="Instructions"]`)),
		setField("Instructions", "Write a.txt and b.txt"),
		setField("Workspace", ws),
		clickStartRun(),
		waitStatus("waiting"),
		// Each on its card in the transcript; the inbox's line decides them together.
		pollTrue(`document.querySelectorAll('section[aria-label="Transcript"] [data-testid="approval-card"]').length === 2`),
		pollTrue(`document.querySelector('section[aria-label="Inbox"] [data-testid="approval-group"]')?.innerText.includes("2 parallel calls")`),
	)
	if err != nil {
		fail("two approvals in one group", err)
	}
	screenshot(t, ctx, "e2e-approvals-group")
	err = chromedp.Do(ctx,
		clickStillXPath(card("a.txt")+`//button[normalize-space()="Approve"]`),
		clickStillXPath(card("b.txt")+`//button[normalize-space()="Deny"]`),
		chromedp.WaitVisible(chromedp.Search(card("b.txt")+`//textarea[@aria-label="Reason"]`)),
		chromedp.SendKeys(chromedp.Search(card("b.txt")+`//textarea[@aria-label="Reason"]`), feedback),
		clickStillXPath(card("b.txt")+`//button[normalize-space()="Confirm deny"]`),
		waitStatus("completed"),
		chromedp.WaitVisible(chromedp.Search(card("a.txt")+`[@data-status="succeeded"]`)),
		chromedp.WaitVisible(chromedp.Search(card("b.txt")+`[@data-status="denied"]`)),
		pollTrue(fmt.Sprintf(`document.querySelector('section[aria-label="Transcript"]')?.innerText.includes(%q)`, feedback)),
		pollTrue(`document.querySelectorAll('[data-testid="decision-row"]').length >= 4`),
	)
	screenshot(t, ctx, "e2e-approvals-decided")
	if err != nil {
		fail("approve one, deny the other", err)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "a.txt")); err != nil || string(b) != "written by the model" {
		t.Errorf("a.txt = %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(ws, "b.txt")); !os.IsNotExist(err) {
		t.Errorf("b.txt was written (stat: %v)", err)
	}
	// The model server received the denial with the person's words.
	var denied string
	for id, text := range ms.toolResults() {
		if strings.Contains(text, feedback) {
			denied = id
		}
	}
	if denied == "" {
		t.Errorf("no tool result the model server received holds the feedback: %v", ms.toolResults())
	}

	// Run 2: approve always for this agent.
	err = chromedp.Do(ctx,
		startRun(ws, "Write c.txt"),
		waitStatus("waiting"),
		selectIn(card("c.txt"), "Always: where", "agent"),
		clickStillXPath(card("c.txt")+`//button[normalize-space()="Always allow write_file on c.txt for this agent"]`),
		clickStillXPath(card("c.txt")+`//button[@data-testid="always-confirm"]`),
		waitStatus("completed"),
	)
	if err != nil {
		fail("approve always for this agent", err)
	}

	// The grant survives a restart of the server.
	s.stop()
	s = startServeAt(t, t.TempDir(), home, env...)
	var grants struct {
		Grants []struct{ Scope, Tool, Match string }
	}
	s.get(t, "/api/v1/grants", &grants)
	if len(grants.Grants) != 1 || grants.Grants[0].Scope != "agent" || grants.Grants[0].Tool != "write_file" || grants.Grants[0].Match != "c.txt" {
		t.Fatalf("grants after the restart: %+v", grants.Grants)
	}

	// Run 3: the same write runs without asking.
	if err := os.Remove(filepath.Join(ws, "c.txt")); err != nil {
		t.Fatal(err)
	}
	err = chromedp.Do(ctx,
		chromedp.Navigate(s.url),
		chromedp.WaitVisible(chromedp.CSS(`textarea[aria-label="Instructions"]`)),
		setField("Instructions", "Write c.txt again"),
		setField("Workspace", ws),
		clickStartRun(),
		waitStatus("completed"),
		chromedp.WaitVisible(chromedp.Search(card("c.txt")+`[@data-status="succeeded"]`)),
		pollTrue(`[...document.querySelectorAll('[data-testid="decision-row"]')].some(r => r.innerText.includes("grant"))`),
	)
	screenshot(t, ctx, "e2e-approvals-granted")
	if err != nil {
		fail("a run that the grant lets through", err)
	}
	var its struct{ Interactions []json.RawMessage }
	s.get(t, "/api/v1/interactions?status=pending", &its)
	if len(its.Interactions) != 0 {
		t.Errorf("%d approvals pending after the granted run", len(its.Interactions))
	}
}
