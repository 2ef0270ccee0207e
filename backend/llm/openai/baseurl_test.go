package openai

import (
	"context"
	"net/http"
	"testing"
)

func TestBaseURLForms(t *testing.T) {
	t.Parallel()
	srv, seen := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		sse(w, chunk(`{"content":"ok"}`, "stop"))
	})
	for _, base := range []string{srv.URL + "/v1", srv.URL + "/v1/", " " + srv.URL + "/v1/ "} {
		p := New(Config{BaseURL: base, Model: "m", HTTPClient: srv.Client()})
		if _, err := p.Stream(context.Background(), simpleRequest(), nil); err != nil {
			t.Errorf("base %q: %v", base, err)
		}
	}
	for i, c := range seen() {
		if c.path != "/v1/chat/completions" {
			t.Errorf("request %d path = %q, want /v1/chat/completions", i, c.path)
		}
	}
}

func TestNormalizeBaseURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
		wantErr  bool
	}{
		{"", DefaultBaseURL, false},
		{"http://host:11434/v1", "http://host:11434/v1/", false},
		{"http://host:11434/v1/", "http://host:11434/v1/", false},
		{"https://openrouter.ai/api/v1", "https://openrouter.ai/api/v1/", false},
		{"host:11434/v1", "", true},
		{"ftp://host/v1", "", true},
		{"http://", "", true},
	}
	for _, tt := range tests {
		got, err := normalizeBaseURL(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("normalizeBaseURL(%q) = %q, %v; want %q, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

// TestEnvironmentIgnored checks that a developer's OPENAI_* variables do not
// reach the wire. Not parallel: it sets environment variables.
func TestEnvironmentIgnored(t *testing.T) {
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/bogus/")
	t.Setenv("OPENAI_API_KEY", "sk-from-env")
	t.Setenv("OPENAI_ORG_ID", "org-from-env")
	t.Setenv("OPENAI_PROJECT_ID", "proj-from-env")
	t.Setenv("OPENAI_CUSTOM_HEADERS", "X-From-Env: yes")

	srv, seen := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		sse(w, chunk(`{"content":"ok"}`, "stop"))
	})
	resp, err := newProvider(srv).Stream(context.Background(), simpleRequest(), nil)
	if err != nil {
		t.Fatalf("Stream: %v (the environment's base URL leaked in?)", err)
	}
	if resp.Text != "ok" {
		t.Errorf("Text = %q, want ok", resp.Text)
	}
	h := seen()[0].header
	if a := h.Get("Authorization"); a != "Bearer sk-test" {
		t.Errorf("Authorization = %q, want Bearer sk-test", a)
	}
	for _, k := range []string{"OpenAI-Organization", "OpenAI-Project", "X-From-Env"} {
		if v := h.Get(k); v != "" {
			t.Errorf("header %s = %q, want none", k, v)
		}
	}

	// Without an explicit base URL the default wins, not the environment's.
	p := New(Config{Model: "m"})
	if p.baseURLForMessages != DefaultBaseURL {
		t.Errorf("default base URL = %q, want %q", p.baseURLForMessages, DefaultBaseURL)
	}
}
