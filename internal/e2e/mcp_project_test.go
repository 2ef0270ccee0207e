package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"steward/backend/tools/mcp/mcptest"
)

// TestE2EProjectServersApprovedExportedAndReplayed: a workspace's
// .mcp.json, as a repository ships it, is reviewed in the new-run form
// (what it would run, what it reads of the person's environment) and
// offers nothing until the person approves it there; then a run of an
// agent with project servers calls the project's tool under approval, the
// run says which servers it was offered, and the run is exported, and
// replayed from its recording without the model or the server. A change of
// the file withdraws the approval.
func TestE2EProjectServersApprovedExportedAndReplayed(t *testing.T) {
	t.Parallel()
	ms := newModelServerFunc(t, func(req chatRequest, n int) (string, []fakeCall) {
		if last := req.Messages[len(req.Messages)-1]; last.Role == "tool" {
			return "Done.", nil
		}
		return "Asking the project's server.", []fakeCall{{"mcp__proj__echo", map[string]string{"text": "hello from the project"}}}
	})
	ws := t.TempDir()
	fx := mcptest.Stdio(map[string]string{"PROJ_MODE": "${PROJ_MODE:-ro}"})
	file, err := json.Marshal(map[string]any{"mcpServers": map[string]any{"proj": map[string]any{"command": fx.Command, "args": fx.Args, "env": fx.Env}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, ".mcp.json"), file, 0o644); err != nil {
		t.Fatal(err)
	}
	s := startServe(t, t.TempDir(), "OPENAI_BASE_URL="+ms.URL+"/v1", "OPENAI_API_KEY=sk-e2e-test", "STEWARD_MODEL=fake")
	var ag struct{ ID string }
	s.call(t, "POST", "/api/v1/agents", map[string]any{"name": "with-project", "provider": "openai", "model": "fake",
		"tools": []string{"read_file"}, "mode": "ask", "project_servers": true}, http.StatusCreated, &ag)

	// Not approved: the run is offered nothing, and says why.
	var early struct{ ID string }
	s.call(t, "POST", "/api/v1/runs", map[string]any{"agent": "with-project", "instructions": "too early", "workspace": ws}, http.StatusCreated, &early)
	waitRunStatus(t, s, early.ID, "completed")
	if got := ms.toolResults(); len(got) != 1 || !strings.Contains(first(got), "unknown tool") {
		t.Fatalf("an unapproved project's tool was called: %v", got)
	}

	ctx := browser(t)
	review := `section[data-testid="project-review"]`
	err = chromedp.Do(ctx,
		chromedp.Navigate(s.url),
		chromedp.WaitVisible(chromedp.CSS(`textarea[aria-label="Instructions"]`)),
		chromedp.SetValue(chromedp.CSS(`select[aria-label="Agent"]`), ag.ID),
		runJS(`(() => { document.querySelector('select[aria-label="Agent"]').dispatchEvent(new Event("change", {bubbles: true})); return true })()`),
		setField("Workspace", ws),
		chromedp.WaitVisible(chromedp.CSS(review)),
		pollTrue(fmt.Sprintf(`document.querySelector(%q).innerText.includes(%q)`, review, fx.Command)),
		pollTrue(fmt.Sprintf(`document.querySelector(%q).innerText.includes("their values go to the servers: PROJ_MODE")`, review)),
	)
	screenshot(t, ctx, "e2e-project-review")
	if err != nil {
		t.Fatalf("the review of .mcp.json: %v\nserver output:\n%s", err, s.logs)
	}
	err = chromedp.Do(ctx,
		clickStillXPath(`//button[normalize-space()="Approve this .mcp.json"]`),
		pollTrue(fmt.Sprintf(`document.querySelector(%q).innerText.includes("Project servers (approved): proj")`, review)),
		chromedp.SendKeys(chromedp.CSS(`textarea[aria-label="Instructions"]`), "echo through the project's server"),
		clickStartRun(),
		chromedp.WaitVisible(chromedp.CSS(`section[aria-label="Transcript"]`)),
		waitStatus("waiting"),
		pollTrue(`document.querySelector('[data-testid="project-banner"]')?.innerText.includes("Project MCP servers offered: proj") === true`),
	)
	screenshot(t, ctx, "e2e-project-run-waiting")
	if err != nil {
		t.Fatalf("a run with the approved project: %v\nserver output:\n%s", err, s.logs)
	}
	approve := `//article[@data-tool="mcp__proj__echo"]//button[normalize-space()="Approve"]`
	err = chromedp.Do(ctx,
		chromedp.WaitVisible(chromedp.Search(approve)),
		clickStillXPath(approve),
		waitStatus("completed"),
		chromedp.WaitVisible(chromedp.Search(`//article[@data-tool="mcp__proj__echo"][@data-status="succeeded"]`)),
	)
	screenshot(t, ctx, "e2e-project-run-completed")
	if err != nil {
		t.Fatalf("the approved project call: %v\nserver output:\n%s", err, s.logs)
	}
	hash, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.hash`))
	if err != nil {
		t.Fatal(err)
	}
	src := strings.TrimPrefix(hash, "#run=")
	results := ms.toolResults()
	if !strings.Contains(strings.Join(values(results), "\n"), "echo: hello from the project") {
		t.Fatalf("the model received %v, want the project server's answer", results)
	}
	asked := func() int { ms.mu.Lock(); defer ms.mu.Unlock(); return len(ms.reqs) }
	before := asked()

	// Exported, the recording holds the call and its result, and it
	// imports as a run of its own.
	code, _, rec := s.rawDo(t, "GET", "/api/v1/runs/"+src+"/export?format=steward", nil)
	if code != http.StatusOK {
		t.Fatalf("export: %d %s", code, rec)
	}
	code, _, body := s.rawDo(t, "POST", "/api/v1/recordings", rec)
	if code != http.StatusCreated {
		t.Fatalf("import: %d %s", code, body)
	}
	var imp struct{ ID string }
	if err := json.Unmarshal(body, &imp); err != nil {
		t.Fatal(err)
	}
	var g struct {
		Nodes []struct{ Kind, Label, Status string }
	}
	s.get(t, "/api/v1/runs/"+imp.ID+"/graph", &g)
	if !hasNode(g.Nodes, "mcp__proj__echo") {
		t.Errorf("the imported recording has no succeeded mcp__proj__echo node: %+v", g.Nodes)
	}

	// Replayed with the recorded results: neither the model nor the
	// project's server is asked, and nothing diverges.
	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="replay-button"]`)),
		chromedp.Click(chromedp.Search(`//button[normalize-space()="Start replay"]`)),
		pollTrue(fmt.Sprintf(`location.hash.startsWith("#run=") && !location.hash.includes(%q)`, src)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="replay-of"]`)),
		waitStatus("completed"),
		chromedp.WaitVisible(chromedp.Search(`//article[@data-tool="mcp__proj__echo"][@data-status="succeeded"]`)),
	)
	screenshot(t, ctx, "e2e-project-replayed")
	if err != nil {
		t.Fatalf("replay of the project run: %v\nserver output:\n%s", err, s.logs)
	}
	hash, err = chromedp.Run(ctx, chromedp.Evaluate[string](`location.hash`))
	if err != nil {
		t.Fatal(err)
	}
	var evs struct{ Events []wireEvent }
	s.get(t, "/api/v1/runs/"+strings.TrimPrefix(hash, "#run=")+"/events?limit=1000", &evs)
	for _, ev := range evs.Events {
		if ev.Type == "replay.diverged" {
			t.Errorf("the recorded replay diverged: %s", ev.Data)
		}
	}
	if n := asked(); n != before {
		t.Errorf("the replay asked the model %d times; it must not", n-before)
	}

	// The file changes: the approval no longer holds.
	if err := os.WriteFile(filepath.Join(ws, ".mcp.json"), append(file, ' '), 0o644); err != nil {
		t.Fatal(err)
	}
	var v struct{ State string }
	s.get(t, "/api/v1/mcp/project?workspace="+ws, &v)
	if v.State != "changed" {
		t.Errorf("after a change the project is %q, want changed", v.State)
	}
}

func first(m map[string]string) string {
	for _, v := range m {
		return v
	}
	return ""
}

func values(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

func hasNode(nodes []struct{ Kind, Label, Status string }, tool string) bool {
	for _, n := range nodes {
		if n.Kind == "tool" && n.Label == tool && n.Status == "succeeded" {
			return true
		}
	}
	return false
}
