package e2e

// End-to-end test of the graph in headless Chromium: with the Graph tab
// alone, select a model call in the graph of a finished run and fork from it
// with the node's own action; the fork starts paused and says where it came
// from. The fork's graph links back to that run and node, and the source
// run's graph marks the node with a badge that opens the fork.

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

func TestE2EForkFromGraphNode(t *testing.T) {
	t.Parallel()
	s := startServe(t, t.TempDir())
	// The demo run: its write is approved over the API.
	var r struct{ ID string }
	s.call(t, "POST", "/api/v1/runs", map[string]any{"agent": "default", "instructions": "write", "workspace": t.TempDir()}, http.StatusCreated, &r)
	var its struct{ Interactions []struct{ ID string } }
	for len(its.Interactions) == 0 {
		s.get(t, "/api/v1/interactions?status=pending&run_id="+r.ID, &its)
	}
	s.call(t, "POST", "/api/v1/interactions/"+its.Interactions[0].ID+"/answer", map[string]any{"decision": "approve"}, http.StatusOK, nil)
	var g struct {
		Nodes []struct{ ID, Kind, Status, Label string }
	}
	for done := false; !done; {
		var run struct{ Status string }
		s.get(t, "/api/v1/runs/"+r.ID, &run)
		done = run.Status == "completed"
	}
	s.get(t, "/api/v1/runs/"+r.ID+"/graph", &g)
	target, label := "", ""
	for _, n := range g.Nodes {
		if n.Kind == "llm" {
			target, label = n.ID, n.Label // the last model call
		}
	}

	ctx := browser(t)
	node := fmt.Sprintf(`[data-testid="graph-node"][data-node-id=%q]`, target)
	if err := chromedp.Do(ctx,
		chromedp.Navigate(s.url),
		chromedp.WaitVisible(chromedp.CSS(`textarea[aria-label="Instructions"]`)),
		runJS(fmt.Sprintf(`(() => { location.hash = "run=%s"; return true })()`, r.ID)),
		waitStatus("completed"),
	); err != nil {
		t.Fatalf("open the run: %v\nserver output:\n%s", err, s.logs)
	}
	// Each part has its own deadline, within the browser's: a part that
	// times out still leaves time for its screenshot.
	part := func() context.Context {
		c, cancel := context.WithTimeout(ctx, 30*time.Second)
		t.Cleanup(cancel)
		return c
	}

	// The Graph tab: the graph alone, its canvas wider, its view fitted
	// again. Clicking a node selects it and keeps the view following the run.
	err := chromedp.Do(part(),
		chromedp.Click(chromedp.Search(`//button[normalize-space()="Graph"]`)),
		clickStill(node),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="node-action-fork"]`)),
		pollTrue(`document.querySelector('[data-testid="graph-follow"]')?.getAttribute("aria-pressed") === "true"`),
	)
	screenshot(t, ctx, "e2e-graph-selected")
	if err != nil {
		t.Fatalf("select a node in the graph: %v\nserver output:\n%s", err, s.logs)
	}
	err = chromedp.Do(part(),
		chromedp.Click(chromedp.CSS(`[data-testid="node-action-fork"]`)),
		// The dialog asks what becomes of the files: keep them (its default).
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="fork-dialog"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="fork-start"]`)),
		pollTrue(fmt.Sprintf(`(document.querySelector('.run-header .run-id')?.textContent ?? %q) !== %q`, r.ID, r.ID)),
		waitStatus("paused"),
		bannerHas("Paused: forked from "+r.ID+" at "+target),
	)
	screenshot(t, ctx, "e2e-graph-fork")
	if err != nil {
		t.Fatalf("fork from the graph node: %v\nserver output:\n%s", err, s.logs)
	}
	fork, err := selectedRunID(ctx)
	if err != nil {
		t.Fatal(err)
	}

	// The fork's graph starts at where it came from; its link opens the
	// source run with that node selected, whose badge opens the fork again.
	origin := `[data-testid="graph-origin"]`
	badge := fmt.Sprintf(`[data-testid="graph-fork-badge"][data-node-id=%q]`, target)
	err = chromedp.Do(part(),
		chromedp.WaitVisible(chromedp.CSS(origin)),
		pollTrue(fmt.Sprintf(`document.querySelector(%q)?.textContent.includes(%q) === true`, origin, "forked from "+r.ID+" · "+label)),
	)
	screenshot(t, ctx, "e2e-graph-fork-origin")
	if err != nil {
		t.Fatalf("the fork's origin in its graph: %v\nserver output:\n%s", err, s.logs)
	}
	err = chromedp.Do(part(),
		clickStill(fmt.Sprintf(`a[aria-label=%q]`, "Open run "+r.ID+", at "+label+", which this run was forked from")),
		pollTrue(fmt.Sprintf(`document.querySelector('.run-header .run-id')?.textContent === %q`, r.ID)),
		pollTrue(fmt.Sprintf(`location.hash === %q`, "#run="+r.ID)),
		chromedp.WaitVisible(chromedp.CSS(node+`.step-selected`)),
		pollTrue(fmt.Sprintf(`document.querySelector(%q)?.getAttribute("aria-label") === %q`, badge, "Open fork "+fork)),
	)
	screenshot(t, ctx, "e2e-graph-fork-badge")
	if err != nil {
		t.Fatalf("open the source run from the fork's origin: %v\nserver output:\n%s", err, s.logs)
	}
	err = chromedp.Do(part(),
		clickStill(badge),
		pollTrue(fmt.Sprintf(`document.querySelector('.run-header .run-id')?.textContent === %q`, fork)),
		chromedp.WaitVisible(chromedp.CSS(origin)),
	)
	if err != nil {
		screenshot(t, ctx, "e2e-graph-fork-badge-failed")
		t.Fatalf("open the fork from the source run's badge: %v\nserver output:\n%s", err, s.logs)
	}

	// Five forks from the first model call: its badge lists them, and the
	// list, longer than its node, is drawn over the node below it (each
	// fork is hit where it shows, not that node).
	first := ""
	for _, n := range g.Nodes {
		if n.Kind == "llm" && first == "" {
			first = n.ID
		}
	}
	for _, id := range []string{"fork-a", "fork-b", "fork-c", "fork-d", "fork-e"} {
		var res struct{ Fork string }
		s.call(t, "POST", "/api/v1/runs/"+r.ID+"/commands", map[string]any{"command_id": id, "type": "fork", "node_id": first}, http.StatusOK, &res)
		if res.Fork == "" {
			t.Fatal("a fork of the first model call was not made")
		}
	}
	firstBadge := fmt.Sprintf(`[data-testid="graph-fork-badge"][data-node-id=%q]`, first)
	list := fmt.Sprintf(`ul[aria-label=%q]`, "Forks of "+first)
	err = chromedp.Do(part(),
		runJS(fmt.Sprintf(`(() => { location.hash = "run=%s"; return true })()`, r.ID)),
		pollTrue(fmt.Sprintf(`document.querySelector(%q)?.getAttribute("aria-label") === "5 forks of this node"`, firstBadge)),
		scrollGraphTo(firstBadge),
		clickStill(firstBadge),
		chromedp.WaitVisible(chromedp.CSS(list)),
		pollTrue(fmt.Sprintf(`[...document.querySelectorAll(%q)].every((b) => {
			const r = b.getBoundingClientRect();
			return b.contains(document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2));
		})`, list+" button")),
	)
	screenshot(t, ctx, "e2e-graph-fork-list")
	if err != nil {
		t.Fatalf("the list of a node's five forks: %v\nserver output:\n%s", err, s.logs)
	}
}

// clickStill clicks the element of CSS selector sel once it is visible
// and has kept its place for three frames: a click aimed at an element
// that is still moving (a layout that follows the run, an inbox that opens
// above it) lands elsewhere.
func clickStill(sel string) chromedp.Action[chromedp.Void] {
	return pressStill(fmt.Sprintf(`document.querySelector(%q)`, sel), sel, chromedp.CSS(sel))
}

// clickStillXPath is clickStill for an XPath expression.
func clickStillXPath(xpath string) chromedp.Action[chromedp.Void] {
	find := fmt.Sprintf(`document.evaluate(%q, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue`, xpath)
	return pressStill(find, xpath, chromedp.Search(xpath))
}

// pressStill waits until the element find (a JavaScript expression)
// yields has kept its box for three frames, then clicks q, and checks that
// the click reached that element: a layout can still move between the
// check and the press (the inbox fetches an approval a moment after the
// transcript shows it), and a click that landed elsewhere, or on the
// button while it was disabled, is pressed again, as a person would, up
// to five times.
func pressStill[S chromedp.Selectable](find, name string, q S) chromedp.Action[chromedp.Void] {
	still := fmt.Sprintf(`new Promise((resolve, reject) => {
		let last = "", same = 0, frames = 0;
		const tick = () => {
			const el = (%s);
			const r = el?.getBoundingClientRect();
			const now = r && r.width > 0 ? [r.x, r.y, r.width, r.height].join() : "";
			same = now !== "" && now === last ? same + 1 : 0;
			last = now;
			if (same >= 3) {
				window.__hit = false;
				el.addEventListener("click", () => { window.__hit = true }, {once: true});
				resolve(true);
			} else if (++frames > 1200) reject(new Error("missing or still moving: " + %q));
			else requestAnimationFrame(tick);
		};
		requestAnimationFrame(tick);
	})`, find, name)
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		for try := 1; ; try++ {
			_, err := chromedp.Steps(
				chromedp.WaitVisible(q),
				runJSAwait(still),
				chromedp.Click(q),
			)(ctx, t)
			if err != nil {
				return chromedp.Void{}, err
			}
			hit, err := chromedp.Evaluate[bool](`window.__hit === true`)(ctx, t)
			if err != nil || hit {
				return chromedp.Void{}, err
			}
			if try == 5 {
				return chromedp.Void{}, fmt.Errorf("five clicks missed %s", name)
			}
		}
	}
}

// runJSAwait evaluates a script that yields a promise and waits for it.
func runJSAwait(js string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		_, err := chromedp.Evaluate[bool](js, chromedp.EvalAwaitPromise)(ctx, t)
		return chromedp.Void{}, err
	}
}
