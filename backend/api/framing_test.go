package api_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"steward/backend/api"
)

// TestNoAnswerCanBeFramed: every answer of the UI (the app, its assets, the
// client-side routes' fallback, the token's redirect, a wrong token, a
// binary without the UI) forbids framing both ways browsers read, so that
// a page on another port of this machine cannot show the logged-in UI in a
// frame and have the person click Approve in it; so do the API's answers.
func TestNoAnswerCanBeFramed(t *testing.T) {
	t.Parallel()
	artifacts := t.TempDir()
	ui := fstest.MapFS{
		"index.html":          {Data: []byte("<!doctype html><title>Steward</title>")},
		"assets/index-abc.js": {Data: []byte("console.log(1)")},
		"favicon.svg":         {Data: []byte("<svg/>")},
	}
	e := newEnvWith(t, func(c *api.Config) { c.UI = ui; c.Artifacts = artifacts })
	bare := newEnvWith(t, func(c *api.Config) { c.UI = nil })
	tests := []struct {
		name   string
		env    *env
		path   string
		opts   []reqOpt
		status int
		ui     bool // the UI's own policy, not only the frame rule
	}{
		{"the app", e, "/", []reqOpt{noAuth}, http.StatusOK, true},
		{"index.html", e, "/index.html", []reqOpt{noAuth}, http.StatusMovedPermanently, true},
		{"an asset", e, "/assets/index-abc.js", []reqOpt{noAuth}, http.StatusOK, true},
		{"a file at the root", e, "/favicon.svg", []reqOpt{noAuth}, http.StatusOK, true},
		{"a client-side route", e, "/runs/run_1", []reqOpt{noAuth}, http.StatusOK, true},
		{"a missing asset", e, "/assets/gone.js", []reqOpt{noAuth}, http.StatusOK, true},
		{"the token's redirect", e, "/?token=" + token, []reqOpt{noAuth}, http.StatusSeeOther, false},
		{"a wrong token", e, "/?token=wrong-token-0123456789", []reqOpt{noAuth}, http.StatusUnauthorized, false},
		{"no UI built in", bare, "/", []reqOpt{noAuth}, http.StatusServiceUnavailable, false},
		{"an API answer", e, "/api/v1/runs", nil, http.StatusOK, false},
		{"an API error", e, "/api/v1/runs", []reqOpt{noAuth}, http.StatusUnauthorized, false},
		{"a refused host", e, "/", []reqOpt{noAuth, withHost("evil.example")}, http.StatusForbidden, false},
	}
	// An artifact keeps its own stricter policy, and may not be framed either.
	run, _ := e.startRun("take a picture")
	shot := filepath.Join(artifacts, run.ID, "shots", "n1.png")
	if err := os.MkdirAll(filepath.Dir(shot), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(shot, []byte("\x89PNG\r\n\x1a\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := e.do("GET", "/api/v1/runs/"+run.ID+"/artifacts/shots/n1.png", nil)
	if csp := r.header.Get("Content-Security-Policy"); r.status != http.StatusOK || csp != "sandbox; default-src 'none'" || r.header.Get("X-Frame-Options") != "DENY" {
		t.Errorf("artifact: status %d, Content-Security-Policy %q, X-Frame-Options %q", r.status, csp, r.header.Get("X-Frame-Options"))
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := tt.env.with(t).do("GET", tt.path, nil, tt.opts...)
			if r.status != tt.status {
				t.Fatalf("status %d, want %d; body %s", r.status, tt.status, r.body)
			}
			if got := r.header.Values("X-Frame-Options"); len(got) != 1 || got[0] != "DENY" {
				t.Errorf("X-Frame-Options %q, want DENY", got)
			}
			csp := r.header.Values("Content-Security-Policy")
			if len(csp) != 1 || !strings.Contains(csp[0], "frame-ancestors 'none'") {
				t.Errorf("Content-Security-Policy %q, want one with frame-ancestors 'none'", csp)
			}
			if tt.ui && (len(csp) != 1 || !strings.Contains(csp[0], "default-src 'self'")) {
				t.Errorf("Content-Security-Policy %q lost the UI's own rules", csp)
			}
		})
	}
}
