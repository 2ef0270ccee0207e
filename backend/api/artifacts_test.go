package api_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"steward/backend/api"
	"steward/backend/tool"
)

// frames is a live browser with one picture for one run.
type frames struct {
	run  string
	jpeg []byte
	at   time.Time
}

func (f frames) RecordingSoFar(_ context.Context, runID, dir string) (tool.Artifact, error) {
	if runID != f.run {
		return tool.Artifact{}, errors.New("no recording browser")
	}
	return tool.Artifact{Name: "browser-so-far.mp4", Kind: "video", Mime: "video/mp4", Size: 3, Description: "so far, in " + filepath.Base(dir)}, nil
}

func (f frames) LatestFrame(runID string) ([]byte, time.Time, bool) {
	if runID != f.run {
		return nil, time.Time{}, false
	}
	return f.jpeg, f.at, true
}

func TestArtifacts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var live frames
	e := newEnvWith(t, func(c *api.Config) { c.Artifacts = dir; c.Frames = &live })
	r, _ := e.startRun("hello")
	png := []byte("\x89PNG\r\n\x1a\n fake picture")
	for name, body := range map[string][]byte{
		"shots/n_4.png": png,
		"browser.mp4":   bytes.Repeat([]byte("v"), 1000),
		"page.html":     []byte("<script>alert(1)</script>"),
	} {
		p := filepath.Join(dir, r.ID, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "secret.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}

	got := e.do("GET", "/api/v1/runs/"+r.ID+"/artifacts/shots/n_4.png", nil)
	if got.status != 200 || !bytes.Equal(got.body, png) || got.header.Get("Content-Type") != "image/png" ||
		got.header.Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("screenshot: %d %v %q", got.status, got.header, got.body)
	}
	// A video seeks: ranges are served.
	got = e.do("GET", "/api/v1/runs/"+r.ID+"/artifacts/browser.mp4", nil, func(r *http.Request) { r.Header.Set("Range", "bytes=10-19") })
	if got.status != http.StatusPartialContent || len(got.body) != 10 || got.header.Get("Content-Type") != "video/mp4" {
		t.Fatalf("range: %d %v", got.status, got.header)
	}
	// The session cookie is enough, as for <img src>.
	got = e.do("GET", "/api/v1/runs/"+r.ID+"/artifacts/shots/n_4.png", nil, withCookie(e.session()))
	if got.status != 200 {
		t.Fatalf("with the cookie: %d %s", got.status, got.body)
	}

	for _, c := range []struct{ name, path, code string }{
		{"not a picture or video", "/api/v1/runs/" + r.ID + "/artifacts/page.html", "not_found"},
		{"missing", "/api/v1/runs/" + r.ID + "/artifacts/shots/n_9.png", "not_found"},
		{"escapes the run", "/api/v1/runs/" + r.ID + "/artifacts/..%2fsecret.png", "invalid"},
		{"unknown run", "/api/v1/runs/run_nope/artifacts/shots/n_4.png", "not_found"},
		{"no frame for this run", "/api/v1/runs/" + r.ID + "/browser/frame", "not_found"},
	} {
		wantError(t, e.do("GET", c.path, nil), map[string]int{"not_found": 404, "invalid": 400}[c.code], c.code)
	}
	unauth := e.do("GET", "/api/v1/runs/"+r.ID+"/artifacts/shots/n_4.png", nil, func(r *http.Request) { r.Header.Del("Authorization") })
	if unauth.status != http.StatusUnauthorized {
		t.Errorf("without a token: %d", unauth.status)
	}

	live = frames{run: r.ID, jpeg: []byte("\xff\xd8 jpeg"), at: time.UnixMilli(1700000000123)}
	got = e.do("GET", "/api/v1/runs/"+r.ID+"/browser/frame", nil)
	if got.status != 200 || got.header.Get("Content-Type") != "image/jpeg" || got.header.Get("X-Frame-Time") != "1700000000123" ||
		got.header.Get("Cache-Control") != "no-store" || !bytes.Equal(got.body, live.jpeg) {
		t.Fatalf("frame: %d %v %q", got.status, got.header, got.body)
	}
	var so tool.Artifact
	e.call("POST", "/api/v1/runs/"+r.ID+"/browser/recording", nil, http.StatusOK, &so)
	if so.Name != "browser-so-far.mp4" || so.Description != "so far, in "+r.ID {
		t.Errorf("recording so far = %+v", so)
	}
	live.run = "another"
	wantError(t, e.do("POST", "/api/v1/runs/"+r.ID+"/browser/recording", nil), http.StatusConflict, "conflict")
}
