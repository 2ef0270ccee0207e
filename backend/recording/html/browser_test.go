package html

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"steward/backend/event"
	"steward/frontend"
	"steward/internal/chromiumtest"
)

// traffic is what the page asked of the outside, and what went wrong in it.
type traffic struct {
	mu         sync.Mutex
	requests   []string // every request but the page's own file: failed, and the test too
	local      []string // data: and blob: loads, which never leave the page
	exceptions []string
	console    []string
}

func (tr *traffic) add(list *[]string, s string) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	*list = append(*list, s)
}

func (tr *traffic) snapshot() (requests, exceptions, console []string) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return append([]string(nil), tr.requests...), append([]string(nil), tr.exceptions...), append([]string(nil), tr.console...)
}

// TestPlayerOpensOffline writes a recording of a synthetic run and opens it
// in headless Chromium from a file:// URL, with every request the page could
// make paused and failed: it must make none, show the transcript and the
// graph, replay from the start to the end with the scrubber and the play
// button, and show the file's diff from the embedded contents.
func TestPlayerOpensOffline(t *testing.T) {
	player, err := frontend.Player()
	if errors.Is(err, frontend.ErrPlayerNotBuilt) {
		t.Fatalf("%v\nThe Makefile builds it before the Go tests (make ui); run that first.", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	d := syntheticRun(t)
	path := filepath.Join(t.TempDir(), "recording.html")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	// The video is over this limit: the page says how to get it instead.
	if err := Write(f, player, d, Options{MaxVideoBytes: 1024}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	t.Logf("recording page: %d bytes (player %d bytes)", st.Size(), len(player))
	pageURL := (&url.URL{Scheme: "file", Path: path}).String()

	ctx, stop := headless(t)
	tr := &traffic{}
	watch(t, ctx, stop, pageURL, tr)

	n := len(d.Events)
	waiting := 0 // the events up to the approval's request
	for i, e := range d.Events {
		if e.Type == event.ApprovalRequested {
			waiting = i + 1
		}
	}
	at := func(i int) string { return fmt.Sprintf("%d / %d", i, n) }
	steps := []struct {
		name string
		do   chromedp.Action[chromedp.Void]
	}{
		{"open the page", chromedp.Navigate(pageURL)},
		{"the transcript shows", chromedp.WaitVisible(chromedp.CSS(`section[aria-label="Transcript"]`))},
		{"it opens on the last event", waitText(`[data-testid="timeline-position"]`, at(n))},
		{"the status is the run's last", waitText(`[data-testid="run-status"]`, "completed")},
		{"the model's first text shows", waitTrue(textHas(`[data-testid="llm-text"]`, firstText))},
		{"the model's last text shows", waitTrue(textHas(`[data-testid="llm-text"]`, finalText))},
		{"the write_file card shows", waitTrue(`!!document.querySelector('article[data-testid="tool-card"][data-tool="write_file"]')`)},
		{"the screenshot card shows", waitTrue(`!!document.querySelector('article[data-testid="tool-card"][data-tool="browser_screenshot"]')`)},
		{"the screenshot loads from the page", waitTrue(`[...document.querySelectorAll('img[alt="The example page"]')].some(i => i.complete && i.naturalWidth === 320)`)},
		{"the video left out is explained", waitTrue(textHas(`[data-testid="video-left-out"]`, "steward export "+runID+" --format video"))},
		// A small run's turns are open, at a readable zoom around the end.
		{"the graph has the last turn's nodes", waitTrue(graphHas("n3", "n4", "n5", "n6"))},
		{"the turn folds", chromedp.Click(chromedp.CSS(`.react-flow__node[data-id="n3"] [data-testid="graph-fold"]`))},
		{"its tool nodes go", waitTrue(`!document.querySelector('.react-flow__node[data-id="n4"]')`)},
		{"and opens again", chromedp.Click(chromedp.CSS(`.react-flow__node[data-id="n3"] [data-testid="graph-fold"]`))},
		{"the graph has the tool nodes", waitTrue(graphHas("n3", "n4", "n5", "n6"))},
		{"select the last model call", chromedp.Click(chromedp.CSS(`.react-flow__node[data-id="n6"]`))},
		{"its details show what it was given", waitTrue(textHas(`[data-testid="node-detail"]`, "Input (4 messages)"))},
		{"close the details", chromedp.Click(chromedp.CSS(`[aria-label="Close node details"]`))},
		{"scrub to the start", scrub(1)},
		{"at the start", waitText(`[data-testid="timeline-position"]`, at(1))},
		{"no model text at the start", waitTrue(`document.querySelectorAll('[data-testid="llm-text"]').length === 0`)},
		{"no tool card at the start", waitTrue(`document.querySelectorAll('[data-testid="tool-card"]').length === 0`)},
		{"no graph node at the start", waitTrue(`document.querySelectorAll('.react-flow__node').length === 0`)},
		{"the instructions show at the start", waitTrue(textHas(`section[aria-label="Transcript"]`, "Write hello.txt that greets the world"))},
		{"scrub to the approval", scrub(waiting)},
		{"the call waits for a person", waitTrue(`!!document.querySelector('article[data-tool="write_file"][data-status="waiting"] [data-testid="approval-card"]')`)},
		{"but offers no button to answer", waitTrue(`![...document.querySelectorAll('button')].some((b) => /^(Approve|Deny)/.test(b.textContent.trim()) && b.offsetParent !== null)`)},
		{"", shotAction(t, "recording-waiting")},
		{"scrub to the first answer", scrub(8)},
		{"the first answer, no tool yet", waitTrue(textHas(`[data-testid="llm-text"]`, firstText) + ` && document.querySelectorAll('[data-testid="tool-card"]').length === 0`)},
		{"the status then", waitText(`[data-testid="run-status"]`, "running")},
		{"scrub to the end", scrub(n)},
		{"everything is back", waitTrue(textHas(`[data-testid="llm-text"]`, finalText) + ` && document.querySelectorAll('[data-testid="tool-card"]').length === 2`)},
		{"play from the start", chromedp.Click(chromedp.CSS(`[data-testid="timeline-play"]`))},
		{"it plays to the end and stops", waitTrue(`document.querySelector('[data-testid="timeline"]').dataset.playing === "false" && document.querySelector('[data-testid="timeline-position"]').textContent === ` + jsString(at(n)))},
		{"open the Files tab", chromedp.Click(chromedp.CSS(`[data-testid="files-tab"]`))},
		{"the diff comes from the embedded blobs", waitTrue(textHas(`[data-testid="file-diff"]`, "+hello, world"))},
	}
	for _, s := range steps {
		if err := chromedp.Do(ctx, s.do); err != nil {
			shot(t, ctx, "recording-failed")
			t.Fatalf("%s: %v", s.name, err)
		}
	}
	shot(t, ctx, "recording-files")
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.Search(`//div[@aria-label="Show"]/button[normalize-space()="Both"]`)),
		waitTrue(graphHas("n5", "n6"))); err != nil {
		t.Fatal(err)
	}
	shot(t, ctx, "recording-light")
	dark := emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}}
	if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, dark); err != nil {
		t.Fatal(err)
	}
	shot(t, ctx, "recording-dark")

	requests, exceptions, console := tr.snapshot()
	if len(requests) != 0 {
		t.Errorf("the page made %d requests, want none:\n%s", len(requests), strings.Join(requests, "\n"))
	}
	if len(exceptions) != 0 {
		t.Errorf("the page threw:\n%s", strings.Join(exceptions, "\n"))
	}
	if len(console) != 0 {
		t.Errorf("the page logged errors (a CSP violation is one):\n%s", strings.Join(console, "\n"))
	}
	csp, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`window.__cspViolations`))
	if err != nil {
		t.Fatal(err)
	}
	if len(csp) != 0 {
		t.Errorf("the Content Security Policy blocked:\n%s", strings.Join(csp, "\n"))
	}
}

// headless starts Chromium as the end-to-end tests do.
func headless(t *testing.T) (context.Context, func()) {
	t.Helper()
	return chromiumtest.Browser(t, 1440, 1000, 90*time.Second)
}

// watch pauses every request of the tab (Fetch on all patterns): the page's
// own file goes on, data: and blob: loads (which stay in the page) too,
// and anything else is failed and counted. The Network domain counts what
// Fetch might not see; exceptions, console errors and CSP violations are
// recorded as well.
func watch(t *testing.T, ctx context.Context, stop func(), pageURL string, tr *traffic) {
	t.Helper()
	inPage := func(u string) bool { return strings.HasPrefix(u, "data:") || strings.HasPrefix(u, "blob:") }
	err := chromedp.Listen(ctx, func(ev any) {
		switch e := ev.(type) {
		case *network.EventRequestWillBeSent:
			if e.Request.URL != pageURL && !inPage(e.Request.URL) {
				tr.add(&tr.requests, "network: "+e.Request.URL)
			}
		case *runtime.EventExceptionThrown:
			x := e.ExceptionDetails
			desc := ""
			if x.Exception != nil {
				desc = x.Exception.Description
			}
			tr.add(&tr.exceptions, fmt.Sprintf("%s %s (line %d)", x.Text, desc, x.LineNumber))
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError {
				var parts []string
				for _, a := range e.Args {
					parts = append(parts, string(a.Value)+a.Description)
				}
				tr.add(&tr.console, strings.Join(parts, " "))
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	paused := chromedp.Events(ctx, fetch.RequestPaused)
	var wg sync.WaitGroup
	wg.Go(func() {
		for ev, err := range paused {
			if err != nil {
				return
			}
			if ev.Request.URL == pageURL || inPage(ev.Request.URL) {
				if inPage(ev.Request.URL) {
					tr.add(&tr.local, ev.Request.URL[:min(len(ev.Request.URL), 40)])
				}
				_, _ = chromedp.Call(ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
				continue
			}
			tr.add(&tr.requests, "fetch: "+ev.Request.URL)
			_, _ = chromedp.Call(ctx, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonBlockedByClient})
		}
	})
	// The loop ends with the browser: stop it first.
	t.Cleanup(func() { stop(); wg.Wait() })
	// The violations the policy reports, collected before the page's own
	// script runs.
	record := `window.__cspViolations = []; document.addEventListener("securitypolicyviolation", (e) => window.__cspViolations.push(e.violatedDirective + " " + e.blockedURI));`
	for _, step := range []func() error{
		func() error { _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); return err },
		func() error { _, err := chromedp.Call(ctx, runtime.Enable, struct{}{}); return err },
		func() error {
			_, err := chromedp.Call(ctx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*"}}})
			return err
		},
		func() error {
			_, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: record})
			return err
		},
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
}

// scrub moves the replay's scrubber to event i as a drag does: through the
// input's native value setter and an input event, which React reads.
func scrub(i int) chromedp.Action[chromedp.Void] {
	return evalTrue(fmt.Sprintf(`(() => {
		const el = document.querySelector('[data-testid="timeline-scrubber"]');
		Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set.call(el, %q);
		el.dispatchEvent(new Event('input', {bubbles: true}));
		return true;
	})()`, fmt.Sprint(i)))
}

func evalTrue(js string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		_, err := chromedp.Evaluate[bool](js)(ctx, t)
		return chromedp.Void{}, err
	}
}

// waitTrue waits until a JavaScript expression is true.
func waitTrue(expr string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		_, err := chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(15*time.Second))(ctx, t)
		if err != nil {
			return chromedp.Void{}, fmt.Errorf("waiting for %s: %w", expr, err)
		}
		return chromedp.Void{}, nil
	}
}

func waitText(sel, want string) chromedp.Action[chromedp.Void] {
	return waitTrue(fmt.Sprintf(`document.querySelector(%s)?.textContent === %s`, jsString(sel), jsString(want)))
}

// textHas is true when some element matching sel contains text.
func textHas(sel, text string) string {
	return fmt.Sprintf(`[...document.querySelectorAll(%s)].some((el) => el.textContent.includes(%s))`, jsString(sel), jsString(text))
}

// graphHas is true when the graph draws every node named.
func graphHas(ids ...string) string {
	var conds []string
	for _, id := range ids {
		conds = append(conds, fmt.Sprintf(`!!document.querySelector('.react-flow__node[data-id="%s"]')`, id))
	}
	return strings.Join(conds, " && ")
}

func jsString(s string) string {
	return fmt.Sprintf("%q", s) // Go's quoting is valid JavaScript for these texts
}

// shotAction is shot as a step.
func shotAction(t *testing.T, name string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, _ *chromedp.Target) (chromedp.Void, error) {
		shot(t, ctx, name)
		return chromedp.Void{}, nil
	}
}

// shot saves a screenshot to $STEWARD_ARTIFACTS (or the test's temp dir).
func shot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	chromiumtest.Screenshot(t, ctx, name)
}
