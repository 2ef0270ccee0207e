package e2e

// The run list's search is the server's: with thousands of runs in the
// database the UI holds a page of them, and typing into the box finds a
// run that no loaded page holds.

import (
	"fmt"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"

	"steward/backend/event"
	"steward/backend/store"
)

// manyRuns writes n ended runs into the database of home, one a second,
// the oldest first: "routine maintenance task <i>", except the oldest,
// "migrate the zebra schema", far past the list's first page.
func manyRuns(t *testing.T, home string, n int) {
	t.Helper()
	st, err := store.Open(filepath.Join(home, "steward.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const base = int64(1_750_000_000_000)
	var group []event.Event
	var last *store.Pending
	for i := range n {
		id := fmt.Sprintf("run_%05d", i)
		ev := func(typ event.Type, node string, data any) event.Event {
			e := event.New(id, typ, node, data)
			e.TS = base + int64(i)*1000
			return e
		}
		text := fmt.Sprintf("routine maintenance task %d", i)
		if i == 0 {
			text = "migrate the zebra schema"
		}
		group = append(group,
			ev(event.RunCreated, "", event.RunCreatedData{Agent: event.AgentRef{ID: "ag_1", Name: "default", Provider: "script", Model: "demo"},
				Instructions: text, Workspace: "/tmp/ws", Mode: "ask", MaxSteps: 10}),
			ev(event.RunStatus, "", event.RunStatusData{Status: "running"}),
			ev(event.RunStatus, "", event.RunStatusData{Status: "completed"}))
		if len(group) >= 900 {
			last = st.SubmitAll(group)
			group = nil
		}
	}
	if len(group) > 0 {
		last = st.SubmitAll(group)
	}
	if _, err := last.Wait(); err != nil {
		t.Fatal(err)
	}
}

func TestE2ERunListSearch(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	manyRuns(t, home, 3000)
	s := startServeAt(t, t.TempDir(), home)
	ctx := browser(t)
	fail := func(what string, err error) {
		t.Helper()
		screenshot(t, ctx, "e2e-runlist-search-failed")
		t.Fatalf("%s: %v\nserver output:\n%s", what, err, s.logs)
	}
	const list = `document.querySelector('nav[aria-label="Runs"]')`
	shown := list + `.querySelectorAll('button[data-run-id]')`
	// searched: the runs asked for with q= (the page's own record of its
	// requests), and the list settled on its answer.
	const settled = `!document.querySelector('.run-list-searching')`
	asked := func(param string) int {
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](fmt.Sprintf(
			`performance.getEntriesByType("resource").filter(e => e.name.includes("/api/v1/runs?") && e.name.includes(%q)).length`, param)))
		if err != nil {
			fail("count requests", err)
		}
		return n
	}
	err := chromedp.Do(ctx,
		chromedp.Navigate(s.url),
		chromedp.WaitVisible(chromedp.CSS(`input[aria-label="Search runs"]`)),
		pollTrue(shown+`.length === 100`),
	)
	if err != nil {
		fail("open the list", err)
	}
	held, err := chromedp.Run(ctx, chromedp.Evaluate[bool](list+`.querySelector('[data-run-id="run_00000"]') !== null`))
	if err != nil || held {
		fail("the oldest run is in the first page", err)
	}

	// Typed a key at a time: one question once typing stops, and the
	// answer is the run no loaded page held.
	err = chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.CSS(`input[aria-label="Search runs"]`), "zebra"),
		pollTrue(settled+` && `+shown+`.length === 1 && `+shown+`[0].dataset.runId === "run_00000"`),
	)
	if err != nil {
		fail("search for zebra", err)
	}
	if n := asked("q="); n == 0 || n >= len("zebra") {
		t.Errorf("typing zebra asked the server %d times, want once typing stopped (debounced), fewer than a question a key", n)
	}

	// Clearing the box shows the held pages at once: no new question.
	before := asked("/api/v1/runs?")
	err = chromedp.Do(ctx,
		setField("Search runs", ""),
		pollTrue(shown+`.length === 100 && `+shown+`[0].dataset.runId === "run_02999"`),
	)
	if err != nil {
		fail("clear the search", err)
	}
	if after := asked("/api/v1/runs?"); after != before {
		t.Errorf("clearing the box asked the server %d times, want none", after-before)
	}

	// Waiting on you is the server's too: a run of the demo agent waits
	// for its approval.
	var r struct{ ID string }
	s.call(t, "POST", "/api/v1/runs", map[string]any{"agent": "default", "instructions": "write a note", "workspace": t.TempDir()}, http.StatusCreated, &r)
	err = chromedp.Do(ctx,
		pollTrue(fmt.Sprintf(`%s[0].dataset.runId === %q && %s[0].textContent.includes("1 pending")`, shown, r.ID, shown)),
		chromedp.SetValue(chromedp.CSS(`select[aria-label="Filter runs by status"]`), "attention"),
		runJS(`(() => { document.querySelector('select[aria-label="Filter runs by status"]').dispatchEvent(new Event("change", {bubbles: true})); return true })()`),
		pollTrue(fmt.Sprintf(`%s && %s.length === 1 && %s[0].dataset.runId === %q`, settled, shown, shown, r.ID)),
		chromedp.SetValue(chromedp.CSS(`select[aria-label="Filter runs by status"]`), "all"),
		runJS(`(() => { document.querySelector('select[aria-label="Filter runs by status"]').dispatchEvent(new Event("change", {bubbles: true})); return true })()`),
	)
	if err != nil {
		fail("filter Waiting on you", err)
	}
	if n := asked("attention=true"); n != 1 {
		t.Errorf("Waiting on you asked the server %d times, want once", n)
	}

	// "task 29" is in 111 runs (29, 290-299, 2900-2999): a page of 100,
	// then, scrolled to its end, the rest with the same question.
	err = chromedp.Do(ctx,
		setField("Search runs", "task 29"),
		pollTrue(settled+` && `+shown+`.length === 100`),
		runJS(`(() => { const n = `+list+`; n.scrollTop = n.scrollHeight; return true })()`),
		pollTrue(shown+`.length === 111 && `+shown+`[110].dataset.runId === "run_00029"`),
	)
	if err != nil {
		fail("page the search", err)
	}
	if n := asked("q=task+29&before="); n != 1 {
		t.Errorf("the search's next page was asked %d times, want once", n)
	}

	// How it looks, light and dark, wide and narrow, scrolled to the top.
	// Narrow, the runs column is a drawer: opened, and the list scrolled
	// into it.
	top := runJS(`(() => {
		const b = document.querySelector('[data-testid="runs-drawer"]');
		if (b && getComputedStyle(b).display !== "none" && b.getAttribute("aria-expanded") === "false") b.click();
		const n = ` + list + `; n.scrollTop = 0; n.scrollIntoView({block: "start"});
		return true })()`)
	for _, v := range []struct {
		name   string
		w, h   int64
		scheme string
	}{{"wide-light", 1400, 900, "light"}, {"wide-dark", 1400, 900, "dark"}, {"narrow-light", 420, 860, "light"}, {"narrow-dark", 420, 860, "dark"}} {
		if err := chromedp.Do(ctx, emulateSize(v.w, v.h), theme(v.scheme), top); err != nil {
			fail(v.name, err)
		}
		screenshot(t, ctx, "e2e-runlist-search-"+v.name)
	}
	// Scrolled down its answer, the search stays in view.
	err = chromedp.Do(ctx, runJS(`(() => { const n = `+list+`; n.scrollTop = n.scrollHeight / 2; return true })()`))
	if err != nil {
		fail("scroll the answer", err)
	}
	screenshot(t, ctx, "e2e-runlist-search-scrolled-narrow-dark")
	err = chromedp.Do(ctx,
		setField("Search runs", "zq"),
		top,
		pollTrue(`[...document.querySelectorAll('.run-list-no-match p')].some(p => p.textContent === "No runs match “zq”")`),
	)
	if err != nil {
		fail("a search that matches nothing", err)
	}
	screenshot(t, ctx, "e2e-runlist-search-none-narrow-dark")
}
