package main

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

// clickStill clicks an element once it has stayed in place for three
// animation frames. The graph moves its view by itself (it fits the graph
// when the canvas is resized, as when the Graph tab opens); an element
// measured before such a move and pressed after it is missed.
func clickStill(sel string) chromedp.Action[chromedp.Void] {
	still := fmt.Sprintf(`new Promise((resolve, reject) => {
		let last = "", same = 0, frames = 0;
		const tick = () => {
			const r = document.querySelector(%q)?.getBoundingClientRect();
			const now = r && r.width > 0 ? [r.x, r.y, r.width, r.height].join() : "";
			same = now !== "" && now === last ? same + 1 : 0;
			last = now;
			if (same >= 3) resolve(true);
			else if (++frames > 1200) reject(new Error("missing or still moving: " + %q));
			else requestAnimationFrame(tick);
		};
		requestAnimationFrame(tick);
	})`, sel, sel)
	return chromedp.Steps(
		chromedp.WaitVisible(chromedp.CSS(sel)),
		func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
			_, err := chromedp.Evaluate[bool](still, chromedp.EvalAwaitPromise)(ctx, t)
			return chromedp.Void{}, err
		},
		chromedp.Click(chromedp.CSS(sel)),
	)
}
