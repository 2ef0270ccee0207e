package main

// End-to-end test of the graph in headless Chromium: select a model call
// in the graph of a finished run and fork from it with the node's own
// action; the fork starts paused and says where it came from.

import (
	"fmt"
	"net/http"
	"testing"

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
		Nodes []struct{ ID, Kind, Status string }
	}
	for done := false; !done; {
		var run struct{ Status string }
		s.get(t, "/api/v1/runs/"+r.ID, &run)
		done = run.Status == "completed"
	}
	s.get(t, "/api/v1/runs/"+r.ID+"/graph", &g)
	target := ""
	for _, n := range g.Nodes {
		if n.Kind == "llm" {
			target = n.ID // the last model call
		}
	}

	ctx := browser(t)
	node := fmt.Sprintf(`[data-testid="graph-node"][data-node-id=%q]`, target)
	err := chromedp.Do(ctx,
		chromedp.Navigate(s.url),
		chromedp.WaitVisible(chromedp.CSS(`textarea[aria-label="Instructions"]`)),
		runJS(fmt.Sprintf(`(() => { location.hash = "run=%s"; return true })()`, r.ID)),
		waitStatus("completed"),
		// In the default view, transcript and graph side by side. (With the
		// Graph tab alone the page sometimes freezes: see issue 6's note.)
		chromedp.WaitVisible(chromedp.CSS(node)),
		chromedp.Click(chromedp.CSS(node)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="node-action-fork"]`)),
	)
	screenshot(t, ctx, "e2e-graph-selected")
	if err != nil {
		screenshot(t, ctx, "e2e-graph-failed")
		t.Fatalf("select a node in the graph: %v\nserver output:\n%s", err, s.logs)
	}
	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="node-action-fork"]`)),
		pollTrue(fmt.Sprintf(`(document.querySelector('.run-header .run-id')?.textContent ?? %q) !== %q`, r.ID, r.ID)),
		waitStatus("paused"),
		bannerHas("Paused: forked from "+r.ID+" at "+target),
	)
	screenshot(t, ctx, "e2e-graph-fork")
	if err != nil {
		t.Fatalf("fork from the graph node: %v\nserver output:\n%s", err, s.logs)
	}
}
