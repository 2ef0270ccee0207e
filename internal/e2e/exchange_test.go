package e2e

// End-to-end test of exports and imports against the real binary: a run that
// leaks secrets everywhere a run can (model text, tool arguments, tool output,
// file contents, a command's environment dump) is exported in every format,
// and no format holds any of them; its recording imports as a read-only run
// with the same log, graph and files; a tampered recording is refused and
// writes nothing; and the imported run shows in the UI.

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// rawDo sends body to path with the server's token and returns the answer.
func (s *served) rawDo(t *testing.T, method, path string, body []byte) (int, http.Header, []byte) {
	t.Helper()
	u, _ := url.Parse(s.url)
	req, err := http.NewRequest(method, s.base+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+u.Query().Get("token"))
	if body != nil {
		req.Header.Set("Content-Type", "application/octet-stream")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, b
}

type wireEvent struct {
	Seq    int64           `json:"seq"`
	Type   string          `json:"type"`
	NodeID string          `json:"node_id"`
	Data   json.RawMessage `json:"data"`
}

func TestE2EExportRedactsAndImports(t *testing.T) {
	t.Parallel()
	const (
		configured = "sk-canary-configured-7Hq2ZpX9vLm4Rt8W"
		github     = "ghp_CanaryGithubToken0123456789abcdefABCD"
		awsSecret  = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYCANARYKEY1"
		urlPass    = "hunter2canarypass"
	)
	var token string
	ms := newModelServerFunc(t, func(req chatRequest, n int) (string, []fakeCall) {
		switch n {
		case 1:
			return "Saving the deploy keys. My configured key is " + configured + ".", []fakeCall{{"write_file", map[string]any{
				"path": "notes.txt", "content": "deploy key " + github + "\nserver token " + token + "\n"}}}
		case 2:
			return "Reading them back.", []fakeCall{{"read_file", map[string]any{"path": "notes.txt"}}}
		case 3:
			return "Showing the environment.", []fakeCall{{"run_command", map[string]any{
				"command": "printf 'AWS_SECRET_ACCESS_KEY=%s\\n' '" + awsSecret + "'"}}}
		}
		return "Done. The dashboard is https://admin:" + urlPass + "@dash.example.com/x", nil
	})
	s := startServe(t, t.TempDir(), "OPENAI_BASE_URL="+ms.URL+"/v1", "OPENAI_API_KEY="+configured, "STEWARD_MODEL=fake")
	u, _ := url.Parse(s.url)
	token = u.Query().Get("token")
	canaries := map[string]string{"configured key": configured, "server token": token, "github token": github, "aws secret": awsSecret, "url password": urlPass}

	s.call(t, "POST", "/api/v1/agents", map[string]any{"name": "leaky", "provider": "openai", "model": "fake",
		"tools": []string{"write_file", "read_file", "run_command"}, "mode": "auto"}, http.StatusCreated, nil)
	var r struct{ ID string }
	s.call(t, "POST", "/api/v1/runs", map[string]any{"agent": "leaky", "instructions": "keep the keys", "workspace": t.TempDir()}, http.StatusCreated, &r)
	waitRunStatus(t, s, r.ID, "completed")
	var orig struct{ Events []wireEvent }
	s.get(t, "/api/v1/runs/"+r.ID+"/events?limit=1000", &orig)
	leaked := 0
	for _, ev := range orig.Events {
		for _, c := range canaries {
			if strings.Contains(string(ev.Data), c) {
				leaked++
			}
		}
	}
	if leaked < 5 {
		t.Fatalf("the run's log holds the canaries only %d times: the test no longer plants them", leaked)
	}

	// Every format, and every part of the recording, is free of them.
	exports := map[string][]byte{}
	for _, format := range []string{"steward", "html", "otlp"} {
		code, h, body := s.rawDo(t, "GET", "/api/v1/runs/"+r.ID+"/export?format="+format, nil)
		if code != 200 || !strings.Contains(h.Get("Content-Disposition"), r.ID) {
			t.Fatalf("export %s: %d %v %.300s", format, code, h, body)
		}
		exports[format] = body
	}
	zr, err := zip.NewReader(bytes.NewReader(exports["steward"]), int64(len(exports["steward"])))
	if err != nil {
		t.Fatal(err)
	}
	var manifest struct {
		Redactions []struct {
			Kind  string
			Count int
		}
	}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		exports["steward:"+f.Name] = b
		if f.Name == "manifest.json" {
			if err := json.Unmarshal(b, &manifest); err != nil {
				t.Fatal(err)
			}
		}
	}
	for where, b := range exports {
		for what, c := range canaries {
			if bytes.Contains(b, []byte(c)) {
				t.Errorf("the %s is in %s", what, where)
			}
		}
	}
	if len(manifest.Redactions) == 0 {
		t.Errorf("the manifest lists no redaction")
	}
	if !bytes.Contains(exports["html"], []byte("steward-recording")) || !bytes.Contains(exports["otlp"], []byte("resourceSpans")) {
		t.Errorf("the web page or the traces are not what they should be")
	}
	code, _, body := s.rawDo(t, "GET", "/api/v1/runs/"+r.ID+"/export?format=video", nil)
	if code != 400 || !strings.Contains(string(body), "no video") {
		t.Errorf("video export of a run without a browser: %d %s", code, body)
	}

	// The recording imports as a read-only run with the same log.
	code, _, body = s.rawDo(t, "POST", "/api/v1/recordings", exports["steward"])
	if code != 201 {
		t.Fatalf("import: %d %s", code, body)
	}
	var impID struct {
		ID, Status   string
		ImportedFrom string `json:"imported_from"`
		Capabilities []string
	}
	_ = json.Unmarshal(body, &impID)
	imp := impID
	if impID.ID == "" || impID.ID == r.ID || imp.ImportedFrom != r.ID || impID.Status != "completed" || fmt.Sprint(imp.Capabilities) != "[fork replay]" {
		t.Fatalf("imported run: %s", body)
	}
	var got struct{ Events []wireEvent }
	s.get(t, "/api/v1/runs/"+impID.ID+"/events?limit=1000", &got)
	if len(got.Events) != len(orig.Events) {
		t.Fatalf("imported %d events, the run had %d", len(got.Events), len(orig.Events))
	}
	for i, ev := range got.Events {
		o := orig.Events[i]
		secret := false
		for _, c := range canaries {
			secret = secret || strings.Contains(string(o.Data), c)
		}
		// A redacted file content is kept under its new sum, which its
		// file.changed names.
		secret = secret || o.Type == "file.changed"
		if ev.Seq != o.Seq || ev.Type != o.Type || ev.NodeID != o.NodeID || (!secret && string(ev.Data) != string(o.Data)) {
			t.Errorf("event %d: imported %+v, recorded %+v", i, ev, o)
		}
	}
	var g1, g2 json.RawMessage
	s.get(t, "/api/v1/runs/"+r.ID+"/graph", &g1)
	s.get(t, "/api/v1/runs/"+impID.ID+"/graph", &g2)
	if !bytes.Equal(g1, g2) {
		t.Errorf("graphs differ:\nrun      %s\nimported %s", g1, g2)
	}
	var f1, f2 struct {
		Files []struct{ Path, Status string }
	}
	s.get(t, "/api/v1/runs/"+r.ID+"/files", &f1)
	s.get(t, "/api/v1/runs/"+impID.ID+"/files", &f2)
	if fmt.Sprint(f1) != fmt.Sprint(f2) || len(f2.Files) != 1 {
		t.Errorf("files differ: %v, imported %v", f1, f2)
	}
	code, _, body = s.rawDo(t, "POST", "/api/v1/runs/"+impID.ID+"/commands", []byte(`{"command_id":"c1","type":"cancel"}`))
	if !strings.Contains(string(body), "read-only") {
		t.Errorf("a command on the imported run: %d %s", code, body)
	}

	// A tampered recording is refused and leaves no run.
	var before struct{ Runs []struct{ ID string } }
	s.get(t, "/api/v1/runs", &before)
	bad := bytes.Clone(exports["steward"])
	i := bytes.Index(bad, []byte("events.jsonl")) + 200 // inside the log's compressed bytes
	bad[i] ^= 0x5a
	code, _, body = s.rawDo(t, "POST", "/api/v1/recordings", bad)
	if code != 400 || !strings.Contains(string(body), "invalid") {
		t.Errorf("import of a tampered recording: %d %s", code, body)
	}
	code, _, body = s.rawDo(t, "POST", "/api/v1/recordings", bad[:len(bad)/2])
	if code != 400 {
		t.Errorf("import of a truncated recording: %d %s", code, body)
	}
	var after struct{ Runs []struct{ ID string } }
	s.get(t, "/api/v1/runs", &after)
	if len(after.Runs) != len(before.Runs) {
		t.Errorf("refused imports left runs: %d before, %d after", len(before.Runs), len(after.Runs))
	}

	// The UI shows the imported run as such, with export and no controls.
	ctx := browser(t)
	err = chromedp.Do(ctx,
		chromedp.Navigate(s.url),
		chromedp.WaitVisible(chromedp.CSS(`textarea[aria-label="Instructions"]`)),
		runJS(fmt.Sprintf(`(() => { location.hash = "run=%s"; return true })()`, impID.ID)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="imported-badge"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="export-button"]`)),
		pollTrue(`!document.querySelector('.run-header button[aria-label^="Pause"], .run-header [data-testid="cancel-run"]')`),
		pollTrue(`document.querySelectorAll('article[data-testid="tool-card"]').length === 3`),
	)
	screenshot(t, ctx, "e2e-imported-run")
	if err != nil {
		t.Fatalf("the imported run in the UI: %v\nserver output:\n%s", err, s.logs)
	}
}

// waitRunStatus polls the API until the run has status want (or ended
// otherwise, which fails the test).
func waitRunStatus(t *testing.T, s *served, id, want string) {
	t.Helper()
	for range 600 {
		var run struct{ Status string }
		s.get(t, "/api/v1/runs/"+id, &run)
		switch run.Status {
		case want:
			return
		case "completed", "failed", "cancelled":
			t.Fatalf("run %s is %s, want %s; server output:\n%s", id, run.Status, want, s.logs)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("run %s is not %s after 60 s; server output:\n%s", id, want, s.logs)
}
