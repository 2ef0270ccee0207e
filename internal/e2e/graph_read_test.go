package e2e

// End-to-end tests of a graph a person can read, in headless Chromium: a
// finished run of 40 tool calls in the Graph tab, in the light and the dark
// theme. Its nodes say what they did, its denied and failed calls show as
// such, the calls of one turn stand side by side, a steer sits where it
// came in, the fit stops at a readable zoom, a zoom of the person's sticks
// while the graph follows, and the minimap covers no node. Then the time
// to the first drawing of a 2,000-node run's graph.

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"

	"steward/backend/event"
	"steward/backend/store"
)

// call is one tool call of readableRun's script: the status it ends with,
// and its code when it did not succeed.
type call struct {
	tool, args string
	status     event.NodeStatus
	code       string
}

// readableRun writes a completed run of 40 tool calls into the database of
// home: turns of one to four calls, a failed test run, a call the policy
// denied, a steer that came in during the third turn, a question and its
// answer.
func readableRun(t *testing.T, home, ws string) string {
	t.Helper()
	st, err := store.Open(filepath.Join(home, "steward.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const id = "run_read"
	var ok event.NodeStatus = event.NodeSucceeded
	turns := []struct {
		say   string
		calls []call
	}{
		{"I'll look at the project first.", []call{
			{"list_dir", `{}`, ok, ""}, {"read_file", `{"path":"src/calc.py"}`, ok, ""},
			{"read_file", `{"path":"tests/test_calc.py"}`, ok, ""}, {"grep", `{"pattern":"def total","path":"src"}`, ok, ""}}},
		{"The total skips the last item. Let me run the tests to be sure.", []call{{"run_command", `{"command":"pytest -q"}`, event.NodeFailed, "exit_status"}}},
		{"", []call{{"edit_file", `{"path":"src/calc.py","old_string":"items[:-1]","new_string":"items"}`, ok, ""}}},
		{"Running the tests again, and the linter beside them.", []call{
			{"run_command", `{"command":"pytest -q"}`, ok, ""}, {"run_command", `{"command":"ruff check src"}`, ok, ""}}},
		{"Now the changelog, as you asked.", []call{{"read_file", `{"path":"CHANGELOG.md"}`, ok, ""}, {"write_file", `{"path":"CHANGELOG.md","content":"..."}`, ok, ""}}},
		{"Checking the docs for the old behaviour.", []call{
			{"browser_open", `{"url":"https://docs.example.com/calc/total"}`, ok, ""}, {"browser_snapshot", `{}`, ok, ""}}},
		{"", []call{{"browser_act", `{"action":"click","ref":"e12"}`, ok, ""}, {"browser_extract", `{"format":"markdown"}`, ok, ""}}},
		{"The docs describe the bug as the intended behaviour. Cleaning the build first.", []call{{"run_command", `{"command":"rm -rf build dist"}`, event.NodeDenied, "denied"}}},
		{"", []call{{"ask_user", `{"question":"Update the docs page too?"}`, ok, ""}}},
		{"Updating the docs in the repository.", []call{
			{"glob", `{"pattern":"docs/**/*.md"}`, ok, ""}, {"read_file", `{"path":"docs/calc.md"}`, ok, ""}, {"grep", `{"pattern":"last item","path":"docs"}`, ok, ""}}},
		{"", []call{{"edit_file", `{"path":"docs/calc.md","old_string":"all but the last","new_string":"all"}`, ok, ""}, {"apply_patch", `{"patch":"--- a/docs/index.md\n+++ b/docs/index.md\n@@ -1 +1 @@\n-a\n+b\n--- a/docs/faq.md\n+++ b/docs/faq.md\n@@ -1 +1 @@\n-a\n+b\n"}`, ok, ""}}},
		{"Looking for issues that reported it.", []call{{"mcp__github__search_issues", `{"limit":5,"query":"total skips last item"}`, ok, ""}, {"mcp__github__get_issue", `{"repo":"acme/calc","number":42}`, ok, ""}}},
		{"", []call{{"git_status", `{}`, ok, ""}, {"git_diff", `{"path":"src"}`, ok, ""}}},
		{"", []call{{"read_file", `{"path":"src/util.py"}`, ok, ""}, {"grep", `{"pattern":"items","path":"src"}`, ok, ""}, {"read_file", `{"path":"tests/conftest.py"}`, ok, ""}}},
		{"Committing the fix.", []call{{"git_commit", `{"message":"Fix total: count the last item\n\nCloses #42."}`, ok, ""}}},
		{"A last full check.", []call{
			{"run_command", `{"command":"pytest -q --cov=src"}`, ok, ""}, {"run_command", `{"command":"ruff check ."}`, ok, ""},
			{"read_file", `{"path":"pyproject.toml"}`, ok, ""}, {"git_log", `{"max_count":3}`, ok, ""}}},
		{"", []call{{"update_plan", `{"steps":[{"title":"fix","status":"done"},{"title":"docs","status":"done"}]}`, ok, ""}, {"read_file", `{"path":"README.md"}`, ok, ""}, {"grep", `{"pattern":"total("}`, ok, ""}}},
		{"", []call{{"edit_file", `{"path":"README.md","old_string":"a","new_string":"b"}`, ok, ""}, {"run_command", `{"command":"python -m doctest README.md"}`, event.NodeFailed, "exit_status"}}},
		{"", []call{{"edit_file", `{"path":"README.md","old_string":"b","new_string":"c"}`, ok, ""}, {"run_command", `{"command":"python -m doctest README.md"}`, ok, ""}}},
	}
	evs := []event.Event{
		event.New(id, event.RunCreated, "", event.RunCreatedData{Agent: event.AgentRef{ID: "ag_read", Name: "coder", Provider: "script", Model: "script"},
			Instructions: "Fix the total in calc.py", Workspace: ws, Mode: "ask", MaxSteps: 40}),
		event.New(id, event.RunStatus, "", event.RunStatusData{Status: "running"}),
		event.New(id, event.NodeStarted, "n1", event.NodeStartedData{Kind: event.KindAgent, Label: "coder"}),
		event.New(id, event.NodeStarted, "n2", event.NodeStartedData{Kind: event.KindUser, Parent: "n1", Label: "instructions", Text: "Fix the total in calc.py: it skips the last item."}),
		event.New(id, event.NodeFinished, "n2", event.NodeFinishedData{Status: event.NodeSucceeded}),
	}
	next := 2
	node := func() string { next++; return fmt.Sprintf("n%d", next) }
	after := []string{"n2"}
	calls := 0
	for i, turn := range turns {
		llm := node()
		var tcs []event.ToolCall
		for k, c := range turn.calls {
			tcs = append(tcs, event.ToolCall{ID: fmt.Sprintf("c%d_%d", i, k), Name: c.tool, Arguments: json.RawMessage(c.args)})
		}
		evs = append(evs,
			event.New(id, event.NodeStarted, llm, event.NodeStartedData{Kind: event.KindLLM, Parent: "n1", After: after, Label: fmt.Sprintf("model call %d", i+1), Step: i + 1, Model: "script"}),
			event.New(id, event.NodeFinished, llm, event.NodeFinishedData{Status: event.NodeSucceeded, Text: turn.say, ToolCalls: tcs,
				Usage: &event.Usage{InputTokens: int64(1800 + 900*i), OutputTokens: int64(40 + 7*i)}, DurationMS: 900}))
		after = nil
		for k, c := range turn.calls {
			tl := node()
			calls++
			evs = append(evs, event.New(id, event.NodeStarted, tl, event.NodeStartedData{Kind: event.KindTool, Parent: llm, After: []string{llm}, Label: c.tool,
				Tool: c.tool, CallID: tcs[k].ID, Arguments: tcs[k].Arguments, Risk: "read"}))
			if i == 2 {
				// A steer, sent while the third turn's edit ran.
				evs = append(evs, event.New(id, event.NodeStarted, node(), event.NodeStartedData{Kind: event.KindUser, Parent: "n1", Label: "steer", Text: "Also note the fix in the changelog."}))
				after = append(after, fmt.Sprintf("n%d", next))
			}
			fin := event.NodeFinishedData{Status: c.status, Code: c.code, IsError: c.status != ok, DurationMS: int64(3 + 40*k), Output: "done"}
			evs = append(evs, event.New(id, event.NodeFinished, tl, fin))
			after = append(after, tl)
			if c.tool == "ask_user" {
				u := node()
				evs = append(evs,
					event.New(id, event.NodeStarted, u, event.NodeStartedData{Kind: event.KindUser, Parent: "n1", After: []string{tl}, Label: "answer", Text: "Yes, in the repository only.", AnswerTo: tl}),
					event.New(id, event.NodeFinished, u, event.NodeFinishedData{Status: ok}))
				after = append(after, u)
			}
		}
	}
	if calls != 40 {
		t.Fatalf("the script has %d tool calls, want 40", calls)
	}
	last := node()
	evs = append(evs,
		event.New(id, event.NodeStarted, last, event.NodeStartedData{Kind: event.KindLLM, Parent: "n1", After: after, Label: fmt.Sprintf("model call %d", len(turns)+1), Model: "script"}),
		event.New(id, event.NodeFinished, last, event.NodeFinishedData{Status: ok, Text: "The total now counts every item; tests, docs and changelog agree.", Usage: &event.Usage{InputTokens: 21000, OutputTokens: 120}}),
		event.New(id, event.NodeFinished, "n1", event.NodeFinishedData{Status: ok}),
		event.New(id, event.RunStatus, "", event.RunStatusData{Status: "completed"}))
	if _, err := st.SubmitAll(evs).Wait(); err != nil {
		t.Fatal(err)
	}
	return id
}

// scrollGraphTo scrolls the graph with the wheel, as a person does, until
// the element of CSS selector sel is in the middle of the canvas: a graph
// too large to read whole is shown in part (the fit stops at a readable
// zoom).
func scrollGraphTo(sel string) chromedp.Action[chromedp.Void] {
	return pollTrue(fmt.Sprintf(`(() => {
		const p = document.querySelector('.graph-canvas .react-flow__pane'), el = document.querySelector(%q);
		if (!p || !el) return false;
		for (let i = 0; i < 200; i++) {
			// To the middle of the canvas: near its edges the zoom buttons
			// and the pane's own controls may lie over it.
			const c = p.getBoundingClientRect(), r = el.getBoundingClientRect();
			const off = (r.top + r.bottom) / 2 - (c.top + c.bottom) / 2;
			const dy = off < -40 ? -60 : off > 40 ? 60 : 0;
			if (dy === 0) return true;
			p.dispatchEvent(new WheelEvent('wheel', {deltaY: dy, bubbles: true, cancelable: true}));
		}
		return false;
	})()`, sel))
}

// viewJS reads the graph's pan and zoom off its viewport's transform.
const viewJS = `(() => {
	const m = /translate\(\s*([-\d.e]+)px,\s*([-\d.e]+)px\)\s*scale\(([-\d.e]+)\)/.exec(document.querySelector('.graph-canvas .react-flow__viewport').style.transform);
	return {x: +m[1], y: +m[2], zoom: +m[3]};
})()`

type flowView struct{ X, Y, Zoom float64 }

func TestE2EGraphReadable(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	id := readableRun(t, home, ws)
	s := startServeAt(t, t.TempDir(), home)
	ctx := browser(t)
	fail := func(what string, err error) {
		t.Helper()
		screenshot(t, ctx, "e2e-graph-read-failed")
		t.Fatalf("%s: %v\nserver output:\n%s", what, err, s.logs)
	}
	// nodeSel finds the graph's node whose text holds all of texts.
	nodeSel := func(texts ...string) string {
		js, _ := json.Marshal(texts)
		return fmt.Sprintf(`[...document.querySelectorAll('[data-testid="graph-node"]')].find(n => %s.every(t => n.textContent.includes(t)))`, js)
	}
	err := chromedp.Do(ctx,
		chromedp.Navigate(s.url),
		chromedp.WaitVisible(chromedp.CSS(`textarea[aria-label="Instructions"]`)),
		runJS(fmt.Sprintf(`(() => { location.hash = "run=%s"; return true })()`, id)),
		waitStatus("completed"),
		chromedp.Click(chromedp.Search(`//button[normalize-space()="Graph"]`)),
		// The graph maximised: the canvas as large as the window allows.
		chromedp.Click(chromedp.CSS(`button[aria-label="Maximise graph"]`)),
		pollTrue(`document.querySelectorAll('[data-testid="graph-node"]').length > 0`),
	)
	if err != nil {
		fail("open the run's graph", err)
	}

	// What the nodes say: a tool and its key argument, a model's first
	// words and tokens; denied and failed calls as such.
	for _, want := range []struct{ name, js string }{
		{"edit_file src/calc.py", nodeSel("edit_file", "src/calc.py") + ` !== undefined`},
		{"run_command pytest -q, failed", `[...document.querySelectorAll('[data-testid="graph-node"][data-status="failed"]')].some(n => n.textContent.includes("run_command") && n.textContent.includes("pytest -q") && n.textContent.includes("exit status"))`},
		{"browser_open docs.example.com", nodeSel("browser_open", "docs.example.com") + ` !== undefined`},
		{"the denied rm", `[...document.querySelectorAll('[data-testid="graph-node"][data-status="denied"]')].some(n => n.textContent.includes("rm -rf build dist") && n.textContent.includes("denied"))`},
		{"a model's words and tokens", nodeSel("The total skips the last item", "2,700 in · 47 out tokens") + ` !== undefined`},
		{"the steer's text", nodeSel("Also note the fix in the changelog") + ` !== undefined`},
	} {
		// Nodes out of view are not drawn past 200 nodes; 60 are all drawn.
		if err := chromedp.Do(ctx, pollTrue(want.js)); err != nil {
			fail("a node that says "+want.name, err)
		}
	}

	// The fit stops at a readable zoom; the first turn's four calls stand in
	// one row; the steer is below the instructions' row, the answer below
	// its question.
	type box struct{ X, Y, W, H float64 }
	rect := func(js string) box {
		t.Helper()
		b, err := chromedp.Run(ctx, chromedp.Evaluate[box](fmt.Sprintf(`(() => { const r = (%s).getBoundingClientRect(); return {x: r.x, y: r.y, w: r.width, h: r.height}; })()`, js)))
		if err != nil {
			fail("a node's box", err)
		}
		return b
	}
	v, err := chromedp.Run(ctx, chromedp.Evaluate[flowView](viewJS))
	if err != nil {
		fail("the view", err)
	}
	t.Logf("the Graph tab's zoom after its fit: %.3f", v.Zoom)
	if v.Zoom < 0.75-1e-9 {
		t.Errorf("the fit zoomed out to %.3f, below the readable 0.75", v.Zoom)
	}
	screenshot(t, ctx, "e2e-graph-40-calls-light")
	if err := chromedp.Do(ctx, theme("dark")); err != nil {
		fail("dark theme", err)
	}
	screenshot(t, ctx, "e2e-graph-40-calls-dark")
	if err := chromedp.Do(ctx, theme("light")); err != nil {
		fail("light theme", err)
	}

	// Scroll to the top with the wheel (it pans), then check the first turn.
	scrollUp := fmt.Sprintf(`(() => {
		const p = document.querySelector('.graph-canvas .react-flow__pane');
		const top = () => (%s).getBoundingClientRect().top - p.getBoundingClientRect().top;
		for (let i = 0; i < 200 && top() < 24; i++) p.dispatchEvent(new WheelEvent('wheel', {deltaY: -60, bubbles: true, cancelable: true}));
		return top() >= 24;
	})()`, nodeSel("it skips the last item."))
	if err := chromedp.Do(ctx, pollTrue(scrollUp)); err != nil {
		fail("scroll to the first turn", err)
	}
	if err := chromedp.Do(ctx, pollTrue(`document.querySelector('[data-testid="graph-follow"]').getAttribute("aria-pressed") === "false"`)); err != nil {
		fail("a scroll of the person's stops the following", err)
	}
	rows := map[string]box{}
	for _, k := range []string{"src/calc.py", "tests/test_calc.py", "def total in src"} {
		rows[k] = rect(fmt.Sprintf(`[...document.querySelectorAll('[data-testid="graph-node"]')].find(n => n.querySelector('[data-testid="graph-node-what"]')?.textContent === %q)`, k))
	}
	if a, b, c := rows["src/calc.py"], rows["tests/test_calc.py"], rows["def total in src"]; a.Y != b.Y || b.Y != c.Y || a.X >= b.X || b.X >= c.X {
		t.Errorf("the first turn's calls are not side by side in one row: %+v", rows)
	}
	instr, steer := rect(nodeSel("it skips the last item.")), rect(nodeSel("Also note the fix in the changelog"))
	// It came in while the third turn's edit ran: below that edit, where
	// it once stood beside the instructions.
	edit := rect(nodeSel("edit_file", "src/calc.py"))
	if steer.Y <= instr.Y+instr.H || steer.Y <= edit.Y+edit.H {
		t.Errorf("the steer (y %.0f) is not below the edit it came in after (y %.0f; the instructions at y %.0f)", steer.Y, edit.Y, instr.Y)
	}
	screenshot(t, ctx, "e2e-graph-40-calls-top")
	// Down to the middle: the steer, the denied call, the question and its answer.
	scrollTo := fmt.Sprintf(`(() => {
		const p = document.querySelector('.graph-canvas .react-flow__pane');
		const at = () => (%s).getBoundingClientRect().top - p.getBoundingClientRect().top;
		for (let i = 0; i < 200 && at() > p.getBoundingClientRect().height / 2; i++) p.dispatchEvent(new WheelEvent('wheel', {deltaY: 60, bubbles: true, cancelable: true}));
		return at() <= p.getBoundingClientRect().height / 2;
	})()`, nodeSel("rm -rf build dist"))
	if err := chromedp.Do(ctx, pollTrue(scrollTo)); err != nil {
		fail("scroll to the denied call", err)
	}
	screenshot(t, ctx, "e2e-graph-40-calls-middle")
	if err := chromedp.Do(ctx, theme("dark")); err != nil {
		fail("dark theme", err)
	}
	screenshot(t, ctx, "e2e-graph-40-calls-middle-dark")
	if err := chromedp.Do(ctx, theme("light")); err != nil {
		fail("light theme", err)
	}

	lastInView := fmt.Sprintf(`(() => {
		const c = document.querySelector('.graph-canvas').getBoundingClientRect(), r = (%s).getBoundingClientRect();
		return r.top >= c.top && r.bottom <= c.bottom && r.left >= c.left && r.right <= c.right;
	})()`, nodeSel("The total now counts every item"))
	// Follow again, zoom in three times with the buttons: the zoom sticks
	// and the following goes on.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid="graph-follow"]`)),
		pollTrue(`document.querySelector('[data-testid="graph-follow"]').getAttribute("aria-pressed") === "true"`),
		pollTrue(lastInView)); err != nil {
		fail("follow again: the last node in view", err)
	}
	before, _ := chromedp.Run(ctx, chromedp.Evaluate[flowView](viewJS))
	for range 3 {
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`.graph-canvas button[aria-label="Zoom In"]`))); err != nil {
			fail("zoom in", err)
		}
	}
	after, _ := chromedp.Run(ctx, chromedp.Evaluate[flowView](viewJS))
	t.Logf("three zoom-ins while following: %.3f -> %.3f", before.Zoom, after.Zoom)
	want := min(1.75, before.Zoom*1.2*1.2*1.2)
	if d := after.Zoom - want; d > 0.01 || d < -0.01 {
		t.Errorf("three zoom-ins while following moved the zoom from %.3f to %.3f, want %.3f", before.Zoom, after.Zoom, want)
	}
	if err := chromedp.Do(ctx, pollTrue(`document.querySelector('[data-testid="graph-follow"]').getAttribute("aria-pressed") === "true"`), pollTrue(lastInView)); err != nil {
		fail("zooming stops the following, or loses the followed node", err)
	}
	screenshot(t, ctx, "e2e-graph-40-calls-zoomed")

	// The minimap covers no node, wherever the view is.
	overlap := `(() => {
		const m = document.querySelector('.graph-minimap').getBoundingClientRect();
		return [...document.querySelectorAll('.react-flow__node')].filter(n => {
			const r = n.getBoundingClientRect();
			return r.width > 0 && r.left < m.right && r.right > m.left && r.top < m.bottom && r.bottom > m.top;
		}).length;
	})()`
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`.graph-canvas button[aria-label="Fit view"]`)),
		runJS(`(() => { const p = document.querySelector('.graph-canvas .react-flow__pane'); for (let i = 0; i < 10; i++) p.dispatchEvent(new WheelEvent('wheel', {deltaX: 300, bubbles: true, cancelable: true})); return true })()`)); err != nil {
		fail("fit and scroll right", err)
	}
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](overlap))
	if err != nil || n != 0 {
		t.Errorf("the minimap covers %d nodes (%v)", n, err)
	}
	screenshot(t, ctx, "e2e-graph-40-calls-fitted")
}

// TestE2EPerfGraphLongRun times the Graph tab's first drawing of a run of
// 2,000 nodes: from selecting the run to its nodes on screen, its events
// fetched and folded, the graph laid out and fitted. (TestE2EPerfLongRun times
// the run's first render with the graph beside the transcript.)
func TestE2EPerfGraphLongRun(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	id := bigRun(t, home, ws, 1000)
	s := startServeAt(t, t.TempDir(), home)
	ctx := browser(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(s.url), chromedp.WaitVisible(chromedp.CSS(`textarea[aria-label="Instructions"]`))); err != nil {
		t.Fatal(err)
	}
	// The Graph tab alone, kept for the next page (layoutPref.ts), and the
	// page loaded again: then the run selected, as a person would, timed in
	// the page from there to its graph drawn.
	if err := chromedp.Do(ctx, runJS(`(() => { localStorage.setItem("steward.runPanes", "graph"); return true })()`),
		chromedp.Navigate(s.url), chromedp.WaitVisible(chromedp.CSS(`textarea[aria-label="Instructions"]`))); err != nil {
		t.Fatal(err)
	}
	tab, err := chromedp.Run(ctx, chromedp.Evaluate[float64](fmt.Sprintf(`(() => { const t = performance.now(); location.hash = "run=%s"; return t })()`, id)))
	if err != nil {
		t.Fatal(err)
	}
	// Drawn: nodes in the DOM and the view fitted (the flow starts at 0, 0, zoom 1).
	const drawn = `document.querySelectorAll('.graph-canvas .react-flow__node').length > 0 &&
		document.querySelector('.graph-canvas .react-flow__viewport')?.style.transform.replace(/\s/g, "") !== "translate(0px,0px)scale(1)"`
	ready, err := chromedp.Run(ctx, chromedp.Evaluate[float64](readyAt(drawn), chromedp.EvalAwaitPromise))
	if err != nil {
		screenshot(t, ctx, "e2e-perf-graph-failed")
		t.Fatalf("the graph did not render: %v", err)
	}
	screenshot(t, ctx, "e2e-perf-graph-long-run")
	nodes, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('.graph-canvas .react-flow__node').length`))
	uiBench(t, "UIGraphFirstRender2000Nodes", ready-tab, "ms")
	t.Logf("a 2,000-node run selected, to its graph drawn in the Graph tab (%d nodes in the DOM): %.0f ms", nodes, ready-tab)
	// As TestE2EPerfLongRun's: the bound leaves room for a loaded machine.
	if ready-tab > 4000 {
		t.Errorf("the Graph tab drew a 2,000-node run in %.0f ms; the target is under 1,000", ready-tab)
	}
}
