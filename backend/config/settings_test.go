package config

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"steward/backend/llm"
)

func newSettings(t *testing.T, env map[string]string) (*Settings, *Models, *Prices) {
	t.Helper()
	home := t.TempDir()
	getenv := func(k string) string {
		if k == "STEWARD_HOME" {
			return home
		}
		return env[k]
	}
	cfg, err := Load(getenv)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Discover = false
	m, p := NewModels(cfg), NewPrices(cfg.Prices)
	s := NewSettings(cfg, getenv, m, p)
	s.servers = nil
	return s, m, p
}

func providerOf(t *testing.T, v SettingsView, name string) ProviderView {
	t.Helper()
	for _, p := range v.Providers {
		if string(p.Name) == name {
			return p
		}
	}
	t.Fatalf("no provider %s in %+v", name, v.Providers)
	return ProviderView{}
}

func TestSettingsProviders(t *testing.T) {
	t.Parallel()
	s, m, _ := newSettings(t, map[string]string{"ANTHROPIC_BASE_URL": "http://127.0.0.1:9/anthropic"})
	ctx := context.Background()
	base, model, key := "http://127.0.0.1:11434/v1", "llama3.2", "sk-test-0123456789abcdef"
	if err := s.SetProvider(ctx, "openai", ProviderInput{BaseURL: &base, Model: &model, APIKey: key}); err != nil {
		t.Fatal(err)
	}
	v, err := s.View(ctx)
	if err != nil {
		t.Fatal(err)
	}
	o := providerOf(t, v, "openai")
	if o.BaseURL != base || o.Model != model || !o.Key.Set || o.Key.Source != "stored" || o.Key.Hint != "sk-…cdef" || !o.Active {
		t.Errorf("openai %+v", o)
	}
	b, _ := json.Marshal(v)
	if strings.Contains(string(b), key) || strings.Contains(string(b), "0123456789") {
		t.Fatalf("the view holds the key: %s", b)
	}
	fi, err := os.Stat(v.ConfigFile)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("config file mode %v, %v; want 0600", fi.Mode().Perm(), err)
	}
	// In force for the next run.
	if p, demo, _ := m.Describe(ctx); p != "openai" || demo {
		t.Errorf("auto resolves to %s (demo %v)", p, demo)
	}
	// And read back at the next start.
	cfg, err := Load(func(k string) string {
		if k == "STEWARD_HOME" {
			return filepath.Dir(v.ConfigFile)
		}
		return ""
	})
	if err != nil || cfg.OpenAI.APIKey != key || cfg.OpenAI.BaseURL != base {
		t.Fatalf("Load after SetProvider: %+v, %v", cfg.OpenAI, err)
	}
	// Clearing the key and the base URL.
	empty := ""
	if err := s.SetProvider(ctx, "openai", ProviderInput{BaseURL: &empty, ClearKey: true}); err != nil {
		t.Fatal(err)
	}
	v, _ = s.View(ctx)
	if o := providerOf(t, v, "openai"); o.Key.Set || o.BaseURL != "" || o.Model != model || o.Active {
		t.Errorf("after clearing: %+v", o)
	}
	// The environment wins, and says so.
	a := providerOf(t, v, "anthropic")
	if a.BaseURLEnv != "ANTHROPIC_BASE_URL" || a.BaseURL != "http://127.0.0.1:9/anthropic" || a.Key.EnvVar != "ANTHROPIC_API_KEY" {
		t.Errorf("anthropic %+v", a)
	}
	bad := "ftp://x"
	for name, in := range map[string]ProviderInput{
		"fixed by env": {BaseURL: &base},
		"both":         {APIKey: "k", ClearKey: true},
		"bad url":      {BaseURL: &bad},
		"space in key": {APIKey: "sk abc"},
	} {
		target := "openai"
		if name == "fixed by env" {
			target = "anthropic"
		}
		if err := s.SetProvider(ctx, target, in); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: SetProvider = %v, want ErrInvalid", name, err)
		}
	}
	if err := s.SetProvider(ctx, "gemini", ProviderInput{}); !errors.Is(err, ErrInvalid) {
		t.Errorf("unknown provider: %v", err)
	}
}

func TestSettingsPrices(t *testing.T) {
	t.Parallel()
	s, _, p := newSettings(t, nil)
	ctx := context.Background()
	if err := s.SetPrices(ctx, map[string]Price{"my-model": {Input: 1, Output: 2}, "gpt-4o": {Input: 9, Output: 9}}); err != nil {
		t.Fatal(err)
	}
	if c, ok := p.Cost("my-model", llm.Usage{InputTokens: 1e6, OutputTokens: 1e6}); !ok || c != 3 {
		t.Errorf("cost of my-model = %v, %v", c, ok)
	}
	v, _ := s.View(ctx)
	got := map[string]PriceView{}
	for _, r := range v.Prices {
		got[r.Model] = r
	}
	if got["my-model"].Source != "config" || got["gpt-4o"].Input != 9 || got["gpt-4o"].Source != "config" || got["gpt-4o-mini"].Source != "default" {
		t.Errorf("prices %+v", v.Prices)
	}
	if err := s.SetPrices(ctx, map[string]Price{"x": {Input: -1}}); !errors.Is(err, ErrInvalid) {
		t.Errorf("negative price: %v", err)
	}
	if err := s.SetPrices(ctx, map[string]Price{" ": {}}); !errors.Is(err, ErrInvalid) {
		t.Errorf("no model name: %v", err)
	}
}

func TestSettingsTestConnection(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" {
			http.NotFound(w, r)
			return
		}
		if r.Header.Get("Authorization") != "Bearer good-key-0123456789" {
			http.Error(w, `{"error":{"message":"bad key"}}`, http.StatusUnauthorized)
			return
		}
		w.Write([]byte(`{"object":"list","data":[{"id":"m1"},{"id":"m2"}]}`))
	}))
	defer srv.Close()
	s, _, _ := newSettings(t, nil)
	ctx := context.Background()
	base := srv.URL + "/v1"
	if err := s.SetProvider(ctx, "openai", ProviderInput{BaseURL: &base, APIKey: "good-key-0123456789"}); err != nil {
		t.Fatal(err)
	}
	res, err := s.Test(ctx, "openai")
	if err != nil || !res.OK || len(res.Models) != 2 || !strings.Contains(res.Message, "2 models") {
		t.Fatalf("good key: %+v, %v", res, err)
	}
	if err := s.SetProvider(ctx, "openai", ProviderInput{APIKey: "bad-key-0123456789"}); err != nil {
		t.Fatal(err)
	}
	if res, _ := s.Test(ctx, "openai"); res.OK || !strings.Contains(res.Message, "key was refused") || strings.Contains(res.Message, "bad-key") {
		t.Errorf("bad key: %+v", res)
	}
	wrong := srv.URL + "/nope"
	_ = s.SetProvider(ctx, "openai", ProviderInput{BaseURL: &wrong})
	if res, _ := s.Test(ctx, "openai"); res.OK || !strings.Contains(res.Message, "404") {
		t.Errorf("wrong path: %+v", res)
	}
	closed := "http://127.0.0.1:1/v1"
	_ = s.SetProvider(ctx, "openai", ProviderInput{BaseURL: &closed})
	if res, _ := s.Test(ctx, "openai"); res.OK || !strings.Contains(res.Message, "connection refused") {
		t.Errorf("nothing listening: %+v", res)
	}
	// Local servers: one found, one not.
	s.servers = []string{srv.URL + "/nope/", "http://127.0.0.1:1/v1/"}
	open := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"data":[{"id":"llama3.2"}]}`))
	}))
	defer open.Close()
	s.servers[0] = open.URL + "/v1/"
	v, _ := s.View(ctx)
	if len(v.LocalServers) != 2 || !v.LocalServers[0].Found || v.LocalServers[0].Models[0] != "llama3.2" || v.LocalServers[1].Found {
		t.Errorf("local servers %+v", v.LocalServers)
	}
}
