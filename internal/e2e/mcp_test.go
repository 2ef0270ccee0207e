package e2e

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"steward/backend/tools/mcp"
	"steward/backend/tools/mcp/mcptest"
)

func TestMain(m *testing.M) {
	// The MCP server a test's config.json names is this binary again.
	mcptest.ServeIfAsked()
	os.Exit(m.Run())
}

// fixtureHome is a data directory whose config.json has the fixture server
// as fx, as a person pastes it from another app.
func fixtureHome(t *testing.T) (string, mcp.Server) {
	t.Helper()
	home := t.TempDir()
	fx := mcptest.Stdio(nil)
	cfg, err := json.Marshal(map[string]any{"mcpServers": map[string]any{"fx": map[string]any{"command": fx.Command, "args": fx.Args, "env": fx.Env}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "config.json"), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	return home, fx
}

// TestE2EMCPToolUnderApproval: an MCP server in config.json, as a person
// pastes it from another app, gives the binary its tools: an agent may
// name them (and not those of a server that is not configured), the
// model is offered them, and a call of one waits for the person like any
// call of an untrusted server's tool, runs on the server once approved in
// the UI, and its result reaches the model and the graph.
func TestE2EMCPToolUnderApproval(t *testing.T) {
	t.Parallel()
	ms := newModelServerFunc(t, func(req chatRequest, n int) (string, []fakeCall) {
		if last := req.Messages[len(req.Messages)-1]; last.Role == "tool" {
			return "Done.", nil
		}
		return "Asking the server.", []fakeCall{{"mcp__fx__echo", map[string]string{"text": "hello from the model"}}}
	})
	home, fx := fixtureHome(t)
	s := startServeAt(t, t.TempDir(), home, "OPENAI_BASE_URL="+ms.URL+"/v1", "OPENAI_API_KEY=sk-e2e-test", "STEWARD_MODEL=fake")
	agent := func(name string, tools ...string) map[string]any {
		return map[string]any{"name": name, "provider": "openai", "model": "fake", "tools": tools, "mode": "ask"}
	}
	s.call(t, "POST", "/api/v1/agents", agent("no-such-server", "mcp__nope__*"), http.StatusBadRequest, nil)
	s.call(t, "POST", "/api/v1/agents", agent("with-mcp", "read_file", "mcp__fx__*"), http.StatusCreated, nil)
	var r struct{ ID string }
	s.call(t, "POST", "/api/v1/runs", map[string]any{"agent": "with-mcp", "instructions": "echo something", "workspace": t.TempDir()}, http.StatusCreated, &r)

	ctx := browser(t)
	approve := `//article[@data-tool="mcp__fx__echo"]//button[normalize-space()="Approve"]`
	err := chromedp.Do(ctx,
		chromedp.Navigate(s.url+"#run="+r.ID),
		waitStatus("waiting"),
		chromedp.WaitVisible(chromedp.Search(approve)),
		// The person reads why it asks: the server is not trusted.
		pollTrue(`document.body.innerText.includes("MCP server fx is not trusted")`),
	)
	screenshot(t, ctx, "e2e-mcp-approval")
	if err != nil {
		t.Fatalf("the MCP call's approval: %v\nserver output:\n%s", err, s.logs)
	}
	if got := ms.toolResults(); len(got) != 0 {
		t.Fatalf("the model got results before the approval: %v", got)
	}
	err = chromedp.Do(ctx,
		clickStillXPath(approve),
		waitStatus("completed"),
		chromedp.WaitVisible(chromedp.Search(`//article[@data-tool="mcp__fx__echo"][@data-status="succeeded"]`)),
	)
	screenshot(t, ctx, "e2e-mcp-completed")
	if err != nil {
		t.Fatalf("the approved MCP call: %v\nserver output:\n%s", err, s.logs)
	}
	var results []string
	for _, v := range ms.toolResults() {
		results = append(results, v)
	}
	if len(results) != 1 || results[0] != "echo: hello from the model" {
		t.Errorf("the model received %q, want the server's answer", results)
	}
	var g struct {
		Nodes []struct{ Kind, Label, Status string }
	}
	s.get(t, "/api/v1/runs/"+r.ID+"/graph", &g)
	found := false
	for _, n := range g.Nodes {
		found = found || (n.Kind == "tool" && n.Label == "mcp__fx__echo" && n.Status == "succeeded")
	}
	if !found {
		t.Errorf("no succeeded mcp__fx__echo node in the graph: %+v", g.Nodes)
	}
	ms.mu.Lock()
	offered := string(ms.reqs[0].Tools)
	ms.mu.Unlock()
	if !strings.Contains(offered, `"mcp__fx__echo"`) {
		t.Errorf("the model was not offered the server's tool: %s", offered)
	}

	// Settings → MCP servers: the server as config.json gives it, and Test
	// connection lists its tools with their annotations and risks.
	card := `//article[@aria-label="MCP server fx"]`
	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="settings-button"]`)),
		chromedp.Click(chromedp.Search(`//nav[@aria-label="Settings"]//button[normalize-space()="MCP servers"]`)),
		chromedp.WaitVisible(chromedp.Search(card+`//span[normalize-space()="untrusted"]`)),
		chromedp.Click(chromedp.Search(card+`//button[normalize-space()="Test connection"]`)),
		pollTrue(`document.querySelector('[data-testid="mcp-test"] [role="status"]')?.innerText.includes("tools") === true`),
		pollTrue(`[...document.querySelectorAll('[data-testid="mcp-tool"]')].some(r => r.innerText.includes("mcp__fx__echo") && r.innerText.includes("read-only") && r.querySelector('.risk-exec'))`),
		pollTrue(`[...document.querySelectorAll('[data-testid="mcp-tool"]')].some(r => r.innerText.includes("bad_schema") && r.innerText.includes("Not offered"))`),
	)
	screenshot(t, ctx, "e2e-mcp-settings")
	if err != nil {
		t.Fatalf("Settings → MCP servers: %v\nserver output:\n%s", err, s.logs)
	}

	// Add a second server by pasting a whole mcpServers, as another app
	// keeps it: it is saved in config.json and its tools are offered at
	// once (an agent may name them); then remove it.
	paste, err := json.Marshal(map[string]any{"mcpServers": map[string]any{"fx2": map[string]any{"command": fx.Command, "args": fx.Args, "env": fx.Env}}})
	if err != nil {
		t.Fatal(err)
	}
	card2 := `//article[@aria-label="MCP server fx2"]`
	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.Search(`//button[normalize-space()="Add a server"]`)),
		setField("Entry", string(paste)),
		chromedp.Click(chromedp.Search(`//form[@aria-label="Add an MCP server"]//button[normalize-space()="Save"]`)),
		chromedp.WaitVisible(chromedp.Search(card2)),
	)
	screenshot(t, ctx, "e2e-mcp-added")
	if err != nil {
		t.Fatalf("add a server in Settings: %v\nserver output:\n%s", err, s.logs)
	}
	b, err := os.ReadFile(filepath.Join(home, "config.json"))
	if err != nil || !strings.Contains(string(b), `"fx2"`) {
		t.Fatalf("config.json after adding fx2: %v\n%s", err, b)
	}
	s.call(t, "POST", "/api/v1/agents", agent("with-fx2", "mcp__fx2__echo"), http.StatusCreated, nil)
	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.Search(card2+`//button[normalize-space()="Remove…"]`)),
		chromedp.Click(chromedp.Search(card2+`//button[normalize-space()="Remove fx2"]`)),
		pollTrue(`document.querySelectorAll('[data-testid="mcp-server"]').length === 1`),
	)
	if err != nil {
		t.Fatalf("remove a server in Settings: %v\nserver output:\n%s", err, s.logs)
	}
	s.call(t, "POST", "/api/v1/agents", agent("with-fx2-again", "mcp__fx2__echo"), http.StatusBadRequest, nil)
}
