package e2e

// End-to-end test of file review in the web UI: a scripted agent creates
// one file and changes another; the Files tab shows both with their diffs;
// an undo from the UI takes back one node's change; a person's edit makes
// the revert refuse, naming the file, and write nothing.

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
)

func TestE2EFilesReviewAndUndo(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("first line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(t.TempDir(), "editor.json")
	if err := os.WriteFile(script, []byte(`{"turns": [
		{"tool_calls": [{"name": "write_file", "arguments": {"path": "new.txt", "content": "made by the agent\n"}}]},
		{"tool_calls": [{"name": "read_file", "arguments": {"path": "notes.txt"}}]},
		{"tool_calls": [{"name": "edit_file", "arguments": {"path": "notes.txt", "old_string": "first line", "new_string": "first line, edited"}}]},
		{"text": "Done."}
	]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startServe(t, t.TempDir())
	s.call(t, "POST", "/api/v1/agents", map[string]any{"name": "editor", "provider": "script", "script": script,
		"tools": []string{"write_file", "read_file", "edit_file"}, "mode": "auto"}, http.StatusCreated, nil)
	var r struct{ ID string }
	s.call(t, "POST", "/api/v1/runs", map[string]any{"agent": "editor", "instructions": "edit", "workspace": ws}, http.StatusCreated, &r)

	ctx := browser(t)
	fail := func(what string, err error) {
		t.Helper()
		screenshot(t, ctx, "e2e-files-failed")
		t.Fatalf("%s: %v\nserver output:\n%s", what, err, s.logs)
	}
	row := func(path string) string { return fmt.Sprintf(`[data-testid="file-row"][data-path=%q]`, path) }
	err := chromedp.Do(ctx,
		chromedp.Navigate(s.url),
		chromedp.WaitVisible(chromedp.CSS(`textarea[aria-label="Instructions"]`)),
		runJS(fmt.Sprintf(`(() => { location.hash = "run=%s"; return true })()`, r.ID)),
		waitStatus("completed"),
		chromedp.Click(chromedp.CSS(`[data-testid="files-tab"]`)),
		chromedp.WaitVisible(chromedp.CSS(row("new.txt")+`[data-status="added"]`)),
		chromedp.WaitVisible(chromedp.CSS(row("notes.txt")+`[data-status="modified"]`)),
		chromedp.Click(chromedp.CSS(row("notes.txt"))),
		pollTrue(`document.querySelector('[data-testid="file-diff"]')?.innerText.includes("first line, edited")`),
	)
	screenshot(t, ctx, "e2e-files-review")
	if err != nil {
		fail("the Files tab", err)
	}
	// Undo the edit of notes.txt from its change row.
	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="change-row"][data-source="tool"] [data-testid="undo-op"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="restore-done"]`)),
	)
	if err != nil {
		fail("undo from the UI", err)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "notes.txt")); err != nil || string(b) != "first line\n" {
		t.Fatalf("notes.txt after the undo = %q, %v", b, err)
	}
	// A person edits new.txt: the revert refuses and names it.
	if err := os.WriteFile(filepath.Join(ws, "new.txt"), []byte("mine now\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="revert-run"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="revert-confirm"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="restore-conflicts"]`)),
		pollTrue(`document.querySelector('[data-testid="restore-conflicts"]')?.innerText.includes("new.txt")`),
	)
	screenshot(t, ctx, "e2e-files-conflict")
	if err != nil {
		fail("a revert that conflicts", err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "new.txt")); string(b) != "mine now\n" {
		t.Fatalf("the refused revert changed new.txt to %q", b)
	}
}
