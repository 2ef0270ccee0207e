package e2e

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// The Replay button, as a person uses it: a run that ended is replayed
// from its log with the recorded tool results, as a new run linked to it,
// without asking the model anything. A replay whose tools run for real and
// answer otherwise (a clock) says where it diverged from its recording.
func TestE2EReplayButton(t *testing.T) {
	t.Parallel()
	ms := newModelServerFunc(t, func(req chatRequest, n int) (string, []fakeCall) {
		switch n {
		case 1:
			return "Writing the note.", []fakeCall{{"write_file", map[string]any{"path": "note.txt", "content": "first draft\n"}}}
		case 2:
			return "Reading the clock.", []fakeCall{{"run_command", map[string]any{"command": "date +%s%N"}}}
		}
		return "Done.", nil
	})
	s := startServe(t, t.TempDir(), "OPENAI_BASE_URL="+ms.URL+"/v1", "OPENAI_API_KEY=sk-test", "STEWARD_MODEL=fake")
	s.call(t, "POST", "/api/v1/agents", map[string]any{"name": "clock", "provider": "openai", "model": "fake",
		"tools": []string{"write_file", "run_command"}, "mode": "auto"}, http.StatusCreated, nil)
	var src struct{ ID string }
	s.call(t, "POST", "/api/v1/runs", map[string]any{"agent": "clock", "instructions": "note the time", "workspace": t.TempDir()}, http.StatusCreated, &src)
	waitRunStatus(t, s, src.ID, "completed")
	asked := func() int { ms.mu.Lock(); defer ms.mu.Unlock(); return len(ms.reqs) }
	if n := asked(); n != 3 {
		t.Fatalf("the source run asked the model %d times, want 3", n)
	}

	ctx := browser(t)
	err := chromedp.Do(ctx,
		chromedp.Navigate(s.url),
		chromedp.WaitVisible(chromedp.CSS(`textarea[aria-label="Instructions"]`)),
		runJS(fmt.Sprintf(`(() => { location.hash = "run=%s"; return true })()`, src.ID)),
		waitStatus("completed"),
		chromedp.Click(chromedp.CSS(`[data-testid="replay-button"]`)),
		chromedp.WaitVisible(chromedp.Search(`//*[@role="dialog"]//*[contains(., "Replay this run")]`)),
	)
	screenshot(t, ctx, "e2e-replay-dialog")
	if err != nil {
		t.Fatalf("open the Replay dialog: %v\nserver output:\n%s", err, s.logs)
	}
	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.Search(`//button[normalize-space()="Start replay"]`)),
		pollTrue(fmt.Sprintf(`location.hash.startsWith("#run=") && !location.hash.includes(%q)`, src.ID)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="replay-of"]`)),
		waitStatus("completed"),
		pollTrue(`document.querySelectorAll('article[data-testid="tool-card"]').length === 2`),
	)
	screenshot(t, ctx, "e2e-replay-recorded")
	if err != nil {
		t.Fatalf("replay from the UI: %v\nserver output:\n%s", err, s.logs)
	}
	hash, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.hash`))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		ID, Status, Workspace string
		ReplayOf              string `json:"replay_of"`
	}
	s.get(t, "/api/v1/runs/"+strings.TrimPrefix(hash, "#run="), &rep)
	if rep.ReplayOf != src.ID || rep.Status != "completed" {
		t.Errorf("the replay %+v, want completed with replay_of %s", rep, src.ID)
	}
	if n := asked(); n != 3 {
		t.Errorf("the model was asked %d times in all; a replay must not ask it", n)
	}
	if rel, err := filepath.Rel(filepath.Join(s.home, "replays"), rep.Workspace); err != nil || strings.HasPrefix(rel, "..") {
		t.Errorf("the replay worked in %s, want a new folder in the data directory's replays/", rep.Workspace)
	}
	if b, err := os.ReadFile(filepath.Join(rep.Workspace, "note.txt")); err != nil || string(b) != "first draft\n" {
		t.Errorf("note.txt in the replay's workspace: %q, %v", b, err)
	}
	var evs struct{ Events []wireEvent }
	s.get(t, "/api/v1/runs/"+rep.ID+"/events?limit=1000", &evs)
	for _, ev := range evs.Events {
		if ev.Type == "replay.diverged" {
			t.Errorf("the recorded replay diverged: %s", ev.Data)
		}
	}

	// With the tools run for real, the clock answers otherwise: the replay
	// goes on, and says where it diverged.
	var live struct{ ID string }
	s.call(t, "POST", "/api/v1/runs/"+src.ID+"/replay", map[string]any{"tools": "live"}, http.StatusCreated, &live)
	waitRunStatus(t, s, live.ID, "completed")
	err = chromedp.Do(ctx,
		runJS(fmt.Sprintf(`(() => { location.hash = "run=%s"; return true })()`, live.ID)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="replay-diverged"]`)),
		pollTrue(`document.querySelector('[data-testid="replay-diverged"]').textContent.includes("model call 3")`),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="transcript-diverged"]`)),
	)
	screenshot(t, ctx, "e2e-replay-diverged")
	if err != nil {
		t.Fatalf("the diverged replay in the UI: %v\nserver output:\n%s", err, s.logs)
	}

	// What cannot be replayed is refused with the reason.
	code, _, body := s.rawDo(t, "POST", "/api/v1/runs/"+src.ID+"/replay", []byte(`{"tools":"sometimes"}`))
	if code != http.StatusBadRequest || !strings.Contains(string(body), `tools is \"sometimes\"`) {
		t.Errorf("a bad tools value: %d %s", code, body)
	}
	code, _, body = s.rawDo(t, "POST", "/api/v1/runs/run_nope/replay", []byte(`{}`))
	if code != http.StatusNotFound {
		t.Errorf("an unknown run: %d %s", code, body)
	}
}
