package e2e

// End-to-end test of the runtime controls in the web UI: pause while the
// model streams, step, steer, continue, then fork from a finished model call
// and finish the fork. It drives the demo agent (list_dir, then write_file,
// which needs approval, then a final text; about 0.7 s of streaming for the
// first model call) with the real binary and headless Chromium.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// clickButton clicks the first enabled button whose text is name, waiting for
// one: a control is enabled only once the run's capabilities allow it.
func clickButton(name string) chromedp.Action[chromedp.Void] {
	return chromedp.Click(chromedp.Search(fmt.Sprintf(`//button[normalize-space()=%q and not(@disabled)]`, name)))
}

// bannerHas waits until the paused banner's text holds s.
func bannerHas(s string) chromedp.Action[chromedp.Void] {
	return pollTrue(fmt.Sprintf(`document.querySelector('section[aria-label="Paused"]')?.innerText.includes(%q) === true`, s))
}

// watchStatuses records every text the run's status badge shows, so that a
// status held for a moment only (pausing) is not missed between two polls.
const watchStatuses = `(() => {
	window.__statuses = [];
	const note = () => {
		const t = document.querySelector('[data-testid="run-status"]')?.textContent;
		if (t && window.__statuses[window.__statuses.length - 1] !== t) window.__statuses.push(t);
	};
	note();
	new MutationObserver(note).observe(document.body, {subtree: true, childList: true, characterData: true});
	return true;
})()`

// runJS evaluates a script for its effect.
func runJS(js string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		_, err := chromedp.Evaluate[bool](js)(ctx, t)
		return chromedp.Void{}, err
	}
}

func selectedRunID(ctx context.Context) (string, error) {
	return chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('.run-header .run-id')?.textContent ?? ""`))
}

func TestE2ERuntimePauseStepSteerFork(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	// A slower demo (60 ms a word, about 1.7 s for the first model call):
	// the pause must land while the model streams, even on a loaded machine.
	s := startServe(t, t.TempDir(), "STEWARD_DEMO_DELAY=60ms")
	ctx := browser(t)
	startRunInUI(t, ctx, s, ws, "Look around, then write the demo file")

	fail := func(step string, err error) {
		t.Helper()
		screenshot(t, ctx, "e2e-runtime-failed")
		statuses, _ := chromedp.Run(ctx, chromedp.Evaluate[[]string](`window.__statuses ?? []`))
		t.Fatalf("%s: %v\nstatuses seen: %v\nserver output:\n%s", step, err, statuses, s.logs)
	}

	// Pause while the first model call streams: the run finishes the call,
	// then stops at the safe point before the tool call the model asked for.
	err := chromedp.Do(ctx,
		runJS(watchStatuses),
		pollTrue(`!!document.querySelector('[data-testid="llm-message"][data-status="running"]')`),
		clickButton("Pause"),
		pollTrue(`window.__statuses.includes("pausing")`),
	)
	if err != nil {
		fail("pause while the model streams", err)
	}
	screenshot(t, ctx, "e2e-runtime-pausing") // best effort: the model call may have ended already
	err = chromedp.Do(ctx,
		waitStatus("paused"),
		bannerHas("Paused: paused by the user"),
		bannerHas("Next: list_dir"),
		// The controls follow the run's capabilities once the UI refetched it.
		pollTrue(`document.querySelector('button[title^="Run on until"]')?.disabled === false`),
	)
	if err != nil {
		fail("pause while the model streams", err)
	}
	if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('article[data-testid="tool-card"]').length`)); n != 0 {
		t.Errorf("%d tool cards while paused before the first tool call; want none", n)
	}
	screenshot(t, ctx, "e2e-runtime-paused")

	// Step: list_dir runs, and the run pauses again before the next model call.
	err = chromedp.Do(ctx,
		clickButton("Step"),
		chromedp.WaitVisible(chromedp.CSS(`article[data-tool="list_dir"][data-status="succeeded"]`)),
		bannerHas("Next: model call"),
		bannerHas("Paused: step"),
		waitStatus("paused"),
	)
	if err != nil {
		fail("step over list_dir", err)
	}

	// Steer while paused: the message is in the transcript at once, before
	// the model call that reads it.
	const steer = "Please keep the file short."
	err = chromedp.Do(ctx,
		setField("Steer message", steer),
		clickButton("Send steer"),
		pollTrue(fmt.Sprintf(`document.querySelector('[data-testid="steer-message"]')?.innerText.includes(%q) === true`, steer)),
		pollTrue(`document.querySelector('[data-testid="steer-message"] .msg-meta')?.innerText.includes("Steer") === true`),
		pollTrue(`document.querySelector('textarea[aria-label="Steer message"]')?.value === ""`),
	)
	if err != nil {
		fail("steer", err)
	}

	// Continue: model call 2 asks for write_file, which waits for approval.
	err = chromedp.Do(ctx,
		clickButton("Continue"),
		chromedp.WaitVisible(chromedp.CSS(`article[data-tool="write_file"][data-status="waiting"]`)),
		waitStatus("waiting"),
		// The steer message came before model call 2 in the conversation.
		pollTrue(`(() => {
			const st = document.querySelector('[data-testid="steer-message"]');
			const llm = document.querySelectorAll('[data-testid="llm-message"]');
			return !!st && llm.length >= 2 &&
				!!(llm[0].compareDocumentPosition(st) & Node.DOCUMENT_POSITION_FOLLOWING) &&
				!!(st.compareDocumentPosition(llm[1]) & Node.DOCUMENT_POSITION_FOLLOWING);
		})()`),
	)
	if err != nil {
		fail("continue: the write waits for approval, after the steer message", err)
	}
	// The transcript may still move (it follows the run) as the card shows:
	// the button is pressed once it stays in place.
	err = chromedp.Do(ctx,
		clickStill(`article[data-tool="write_file"] .approval-actions button.approve`),
		waitStatus("completed"),
	)
	if err != nil {
		fail("approve the write", err)
	}
	if _, err := os.Stat(filepath.Join(ws, "steward-demo.md")); err != nil {
		t.Errorf("approved file not written: %v", err)
	}
	source, err := selectedRunID(ctx)
	if err != nil || !strings.HasPrefix(source, "run") {
		fail("read the run id", fmt.Errorf("%q, %v", source, err))
	}
	firstLLM, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="llm-message"]')?.dataset.nodeId ?? ""`))
	if err != nil || firstLLM == "" {
		fail("read the first model call's node", fmt.Errorf("%q, %v", firstLLM, err))
	}

	// Fork from the first model call: the UI selects the new run, which
	// starts paused and says where it came from.
	// The header stays on top while the transcript scrolls: bring the card
	// into the middle of the view first, as a person scrolls to it.
	err = chromedp.Do(ctx,
		runJS(`(document.querySelector('[data-testid="llm-message"]').scrollIntoView({block: "center"}), true)`),
		chromedp.Click(chromedp.Search(`(//div[@data-testid="llm-message"])[1]//button[normalize-space()="Fork from here" and not(@disabled)]`)),
		// The dialog asks what becomes of the files: keep them (its default).
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="fork-dialog"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="fork-start"]`)),
		pollTrue(fmt.Sprintf(`(document.querySelector('.run-header .run-id')?.textContent ?? %q) !== %q`, source, source)),
		waitStatus("paused"),
		bannerHas("Paused: forked from "+source+" at "+firstLLM),
		bannerHas("Next: model call"),
		pollTrue(fmt.Sprintf(`document.querySelector('.lineage')?.innerText.includes(%q) === true`, "Fork of "+source+" at "+firstLLM)),
		pollTrue(`document.querySelector('[data-testid="fork-files"]')?.innerText.includes("files kept as they were") === true`),
		pollTrue(`document.querySelector('[data-testid="fork-history"]')?.innerText.includes("Carried over from") === true`),
		// The run list shows the paused fork with its reason.
		pollTrue(`[...document.querySelectorAll('nav[aria-label="Runs"] .run-item-paused')].some(b => b.innerText.includes("Paused: forked from"))`),
	)
	if err != nil {
		fail("fork from the first model call", err)
	}
	fork, err := selectedRunID(ctx)
	if err != nil || fork == source {
		fail("read the fork's id", fmt.Errorf("%q, %v", fork, err))
	}
	screenshot(t, ctx, "e2e-runtime-fork")

	// ? shows the keyboard shortcuts, Escape hides them.
	err = chromedp.Do(ctx,
		chromedp.KeyEvent("?"),
		chromedp.WaitVisible(chromedp.CSS(`[role="dialog"][aria-label="Keyboard shortcuts"]`)),
	)
	screenshot(t, ctx, "e2e-runtime-shortcuts")
	if err == nil {
		err = chromedp.Do(ctx,
			chromedp.KeyEvent(kb.Escape),
			pollTrue(`!document.querySelector('[role="dialog"][aria-label="Keyboard shortcuts"]')`),
		)
	}
	if err != nil {
		fail("keyboard shortcuts help", err)
	}

	// Continue the fork with the keyboard (p), and it completes; the source
	// run lists it among its forks. The fork's write is refused without
	// asking anyone: the source run wrote the file after the fork's point,
	// and the fork has not read it (a stale read, which its tool refuses
	// anyway).
	err = chromedp.Do(ctx,
		pollTrue(`document.querySelector('button[title^="Run on until"]')?.disabled === false`),
		chromedp.KeyEvent("p"),
		waitStatus("completed"),
		chromedp.WaitVisible(chromedp.CSS(`article[data-tool="write_file"][data-status="failed"]`)),
		pollTrue(`document.querySelector('article[data-tool="write_file"][data-status="failed"]')?.innerText.includes("read") === true`),
		chromedp.Click(chromedp.Search(fmt.Sprintf(`//button[@aria-label=%q]`, "Open run "+source))),
		pollTrue(fmt.Sprintf(`document.querySelector('.run-header .run-id')?.textContent === %q`, source)),
		pollTrue(fmt.Sprintf(`document.querySelector('.lineage')?.innerText.includes(%q) === true`, "Forks: "+fork+" at "+firstLLM)),
		// The run list follows: both runs completed.
		pollTrue(`(() => {
			const items = [...document.querySelectorAll('nav[aria-label="Runs"] .run-item')];
			return items.length === 2 && items.every(b => b.querySelector('.status')?.textContent === "completed");
		})()`),
	)
	screenshot(t, ctx, "e2e-runtime-fork-completed")
	if err != nil {
		fail("finish the fork", err)
	}
}
