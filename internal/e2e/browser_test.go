package e2e

// End-to-end test of the browser tools: a model (a fake OpenAI-compatible
// server that reads the snapshots it is sent, as a real model would) orders
// in a shop served by the test: it opens the page, fills the name, clicks
// Order, takes a screenshot and tries a link to a domain the agent does not
// allow. The run's real Chromium is closed at the end, its recording is a
// video, and the web UI shows the screenshot and the video.

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// shop serves the pages the agent visits on 127.0.0.1; its link to
// "localhost" is another host, which the agent may not visit.
func shop(t *testing.T) *httptest.Server {
	t.Helper()
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		switch r.URL.Path {
		case "/":
			_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
			fmt.Fprintf(w, `<!doctype html><title>Shop</title><h1>Tea shop</h1>
<form action="/order"><label>Name <input name="name"></label> <button>Order</button></form>
<p><a href="http://localhost:%s/secret">Staff only</a></p>`, port)
		case "/order":
			fmt.Fprintf(w, `<!doctype html><title>Ordered</title><h1>Thanks, %s</h1><p>Your tea is on its way.</p>`,
				strings.ReplaceAll(r.URL.Query().Get("name"), "<", "&lt;"))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// shopper is the fake model's plan: each turn acts on what the last tool
// result shows, finding the element refs in the snapshot.
func shopper(t *testing.T, page string) modelTurn {
	refOf := func(snapshot, element string) string {
		m := regexp.MustCompile(regexp.QuoteMeta(element) + ` \[ref=(e\d+)\]`).FindStringSubmatch(snapshot)
		if m == nil {
			t.Errorf("no %s in the snapshot the model received:\n%s", element, snapshot)
			return "e0"
		}
		return m[1]
	}
	return func(req chatRequest, n int) (string, []fakeCall) {
		last := req.Messages[len(req.Messages)-1].text()
		switch n {
		case 1:
			return "Opening the shop.", []fakeCall{{"browser_open", map[string]any{"url": page}}}
		case 2:
			return "Filling in my name.", []fakeCall{{"browser_act", map[string]any{"action": "fill", "ref": refOf(last, `textbox "Name"`), "value": "Ada"}}}
		case 3:
			return "Ordering.", []fakeCall{{"browser_act", map[string]any{"action": "click", "ref": refOf(last, `button "Order"`)}}}
		case 4:
			// The model waits a little, as a real one thinks: the recording
			// leaves such gaps out.
			time.Sleep(2 * time.Second)
			return "Keeping a picture of the confirmation.", []fakeCall{{"browser_screenshot", map[string]any{}}}
		case 5:
			return "Checking the staff page.", []fakeCall{{"browser_open", map[string]any{"url": strings.Replace(page, "127.0.0.1", "localhost", 1) + "secret"}}}
		}
		return "Ordered tea for Ada.", nil
	}
}

func TestE2EBrowserTools(t *testing.T) {
	t.Parallel()
	page := shop(t).URL + "/"
	ms := newModelServerFunc(t, shopper(t, page))
	s := startServe(t, t.TempDir(), "OPENAI_BASE_URL="+ms.URL+"/v1", "OPENAI_API_KEY=sk-e2e-test", "STEWARD_MODEL=fake")
	s.call(t, "POST", "/api/v1/agents", map[string]any{"name": "shopper", "provider": "openai", "model": "fake",
		"tools":           []string{"browser_open", "browser_act", "browser_snapshot", "browser_screenshot"},
		"mode":            "auto",
		"browser_domains": []string{"127.0.0.1"}, "send_images": true}, http.StatusCreated, nil)
	var r struct{ ID string }
	s.call(t, "POST", "/api/v1/runs", map[string]any{"agent": "shopper", "instructions": "order tea for Ada", "workspace": t.TempDir()}, http.StatusCreated, &r)

	// The log: every call succeeded but the one to the other host, the
	// screenshot is the call's artifact, and the recording the run's.
	var evs struct {
		Events []struct {
			Type   string          `json:"type"`
			NodeID string          `json:"node_id"`
			Data   json.RawMessage `json:"data"`
		} `json:"events"`
	}
	deadline := time.Now().Add(90 * time.Second)
	for {
		var run struct{ Status string }
		s.get(t, "/api/v1/runs/"+r.ID, &run)
		if run.Status == "completed" || run.Status == "failed" || run.Status == "cancelled" {
			if run.Status != "completed" {
				t.Fatalf("run %s; server output:\n%s", run.Status, s.logs)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the run is still %s after 90 s; server output:\n%s", run.Status, s.logs)
		}
		time.Sleep(100 * time.Millisecond)
	}
	s.get(t, "/api/v1/runs/"+r.ID+"/events?limit=1000", &evs)
	checkScreenshotSent(t, ms)
	type artifact struct{ Name, Kind, Mime, Description string }
	var shot, video artifact
	var outputs []string
	for _, ev := range evs.Events {
		switch ev.Type {
		case "artifact.created":
			var a artifact
			if err := json.Unmarshal(ev.Data, &a); err != nil {
				t.Fatal(err)
			}
			if ev.NodeID != "" {
				shot = a
			} else {
				video = a
			}
		case "node.finished":
			var d struct{ Output string }
			_ = json.Unmarshal(ev.Data, &d)
			outputs = append(outputs, d.Output)
		}
	}
	results := ms.toolResults()
	var refused, thanked bool
	for _, out := range results {
		refused = refused || strings.Contains(out, "localhost") && strings.Contains(out, "refused") && strings.Contains(out, `"127.0.0.1"`)
		thanked = thanked || strings.Contains(out, `heading "Thanks, Ada"`)
	}
	if len(results) != 5 || !refused || !thanked {
		t.Errorf("the model received %d tool results (want 5), the order's confirmation %v, the refusal of localhost %v:\n%v", len(results), thanked, refused, results)
	}
	if shot.Kind != "screenshot" || shot.Mime != "image/png" {
		t.Errorf("screenshot artifact = %+v", shot)
	}
	if video.Kind != "video" || video.Mime != "video/mp4" {
		t.Errorf("recording artifact = %+v (ffmpeg is a system package of make test)", video)
	}
	get := func(path string) (string, []byte) {
		req, _ := http.NewRequest("GET", s.base+path, nil)
		req.Header.Set("Authorization", "Bearer "+strings.SplitN(s.url, "token=", 2)[1])
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.Header.Get("Content-Type"), b
	}
	if typ, b := get("/api/v1/runs/" + r.ID + "/artifacts/" + shot.Name); typ != "image/png" || len(b) < 1000 || string(b[1:4]) != "PNG" {
		t.Errorf("GET the screenshot: %s, %d bytes", typ, len(b))
	}
	if typ, b := get("/api/v1/runs/" + r.ID + "/artifacts/" + video.Name); typ != "video/mp4" || len(b) < 1000 {
		t.Errorf("GET the recording: %s, %d bytes", typ, len(b))
	}
	// The run's Chromium is gone with the run, while the server goes on.
	if left := childChromium(s.pid); len(left) > 0 {
		t.Errorf("Chromium processes of the server left after the run ended: %v", left)
	}

	// The web UI: the screenshot on its tool card, the recording in the
	// Browser panel.
	ctx := browser(t)
	// The browser starts on the test's context: a step's shorter one must
	// not own it (its end would close the tab).
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatal(err)
	}
	step := func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		sctx, cancel := context.WithTimeout(ctx, 25*time.Second) // leaves time for the screenshot of a failure
		defer cancel()
		if err := chromedp.Do(sctx, actions...); err != nil {
			screenshot(t, ctx, "e2e-browser-failed")
			t.Fatalf("%s: %v\nserver output:\n%s", what, err, s.logs)
		}
	}
	step("open the run",
		chromedp.Navigate(s.url),
		chromedp.WaitVisible(chromedp.CSS(`textarea[aria-label="Instructions"]`)),
		runJS(fmt.Sprintf(`(() => { location.hash = "run=%s"; return true })()`, r.ID)),
		waitStatus("completed"))
	step("the screenshot on its tool card",
		chromedp.WaitVisible(chromedp.CSS(`article[data-testid="tool-card"] [data-testid="screenshot"] img`)),
		pollTrue(`(() => { const i = document.querySelector('[data-testid="screenshot"] img'); return !!i && i.complete && i.naturalWidth > 100 })()`))
	step("the recording in the Browser panel",
		chromedp.WaitVisible(chromedp.CSS(`video[data-testid="browser-video"]`)),
		pollTrue(`(() => { const v = document.querySelector('video[data-testid="browser-video"]'); return v.readyState >= 1 && v.duration > 1 })()`))
	screenshot(t, ctx, "e2e-browser")
	dur, _ := chromedp.Run(ctx, chromedp.Evaluate[float64](`document.querySelector('video[data-testid="browser-video"]').duration`))
	t.Logf("recording: %.1f s of video for a run of five browser calls", dur)
}

// childChromium lists the Chromium processes descended from pid.
func childChromium(pid int) []string {
	parent := map[int]int{}
	names := map[int]string{}
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		p, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", d.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so cut at the last ")".
		i := strings.LastIndexByte(string(stat), ')')
		fields := strings.Fields(string(stat[i+1:]))
		if len(fields) < 2 {
			continue
		}
		parent[p], _ = strconv.Atoi(fields[1])
		names[p] = string(stat[strings.IndexByte(string(stat), '(')+1 : i])
	}
	var out []string
	for p, name := range names {
		if !strings.Contains(strings.ToLower(name), "chrom") {
			continue
		}
		for q := parent[p]; q > 1; q = parent[q] {
			if q == pid {
				out = append(out, fmt.Sprintf("%d %s", p, name))
				break
			}
		}
	}
	return out
}

// checkScreenshotSent checks that the agent (send_images) sent its
// screenshot to the model as an image, once, right after the call that
// took it: a user message of image parts after the tool results, as the
// OpenAI API takes them.
func checkScreenshotSent(t *testing.T, ms *modelServer) {
	t.Helper()
	ms.mu.Lock()
	defer ms.mu.Unlock()
	for i, req := range ms.reqs {
		var images []string
		for _, m := range req.Messages {
			parts, _ := m.Content.([]any)
			for _, p := range parts {
				part, _ := p.(map[string]any)
				if part["type"] != "image_url" {
					continue
				}
				u, _ := part["image_url"].(map[string]any)["url"].(string)
				if m.Role != "user" {
					t.Errorf("request %d: an image in a %s message", i+1, m.Role)
				}
				images = append(images, u)
			}
		}
		want := 0
		if i >= 4 { // request 5 follows the screenshot; the latest pictures stay
			want = 1
		}
		if len(images) != want {
			t.Errorf("request %d sent %d images, want %d", i+1, len(images), want)
			continue
		}
		for _, u := range images {
			png, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(u, "data:image/png;base64,"))
			if !strings.HasPrefix(u, "data:image/png;base64,") || err != nil || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
				t.Errorf("request %d: the image is not a PNG data URL: %.80s (%v)", i+1, u, err)
			}
		}
	}
}
