package api_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"steward/backend/api"
	"steward/backend/config"
)

// The settings over the API: a key saved is never sent back in full, a
// bad base URL is refused with the reason, prices are replaced, and "auto"
// agents use the provider saved.
func TestSettingsOverTheAPI(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var v config.SettingsView
	e.call("GET", "/api/v1/settings", nil, http.StatusOK, &v)
	if len(v.Providers) != 2 || v.Providers[0].Name != "openai" || v.Providers[0].Key.Set || len(v.Prices) == 0 {
		t.Fatalf("settings %+v", v)
	}
	const key = "sk-live-abcdefghijklmnop"
	r := e.do("PUT", "/api/v1/settings/providers/openai", map[string]string{"api_key": key, "base_url": "http://127.0.0.1:1/v1"})
	if r.status != http.StatusOK || strings.Contains(string(r.body), key) || !strings.Contains(string(r.body), "sk-…mnop") {
		t.Fatalf("PUT provider = %d %s", r.status, r.body)
	}
	if msg := wantError(t, e.do("PUT", "/api/v1/settings/providers/openai", map[string]string{"base_url": "localhost:11434"}), http.StatusBadRequest, "invalid"); !strings.Contains(msg, "must start with http://") {
		t.Errorf("message %q", msg)
	}
	wantError(t, e.do("PUT", "/api/v1/settings/providers/gemini", map[string]string{}), http.StatusBadRequest, "invalid")
	wantError(t, e.do("PUT", "/api/v1/settings/providers/openai", json.RawMessage(`{"api_key": 3}`)), http.StatusBadRequest, "invalid")

	var res config.TestResult
	e.call("POST", "/api/v1/settings/providers/openai/test", nil, http.StatusOK, &res)
	if res.OK || !strings.Contains(res.Message, "connection refused") || strings.Contains(res.Message, key) {
		t.Errorf("test of a closed port: %+v", res)
	}
	var info api.Info
	e.call("GET", "/api/v1/info", nil, http.StatusOK, &info)
	if info.Provider != "openai" || info.Demo {
		t.Errorf("auto agents use %s (demo %v) after the key was saved", info.Provider, info.Demo)
	}

	e.call("PUT", "/api/v1/settings/prices", api.PricesInput{Prices: map[string]config.Price{"house-model": {Input: 1, Output: 2}}}, http.StatusOK, &v)
	found := false
	for _, p := range v.Prices {
		found = found || (p.Model == "house-model" && p.Source == "config" && p.Output == 2)
	}
	if !found {
		t.Errorf("prices %+v", v.Prices)
	}
	wantError(t, e.do("PUT", "/api/v1/settings/prices", api.PricesInput{Prices: map[string]config.Price{"x": {Input: -1}}}), http.StatusBadRequest, "invalid")
}

// An agent's approval timeout goes through the API and is validated there.
func TestAgentApprovalTimeout(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var a api.Agent
	e.call("POST", "/api/v1/agents", api.AgentInput{Name: "patient", Tools: []string{"write_file"}, ApprovalTimeout: "90s", ApprovalDefault: "deny"}, http.StatusCreated, &a)
	if a.ApprovalTimeout != "90s" || a.ApprovalDefault != "deny" {
		t.Fatalf("agent %+v", a.Agent)
	}
	msg := wantError(t, e.do("PUT", "/api/v1/agents/patient", api.AgentInput{Name: "patient", ApprovalTimeout: "soon"}), http.StatusBadRequest, "invalid")
	if !strings.Contains(msg, "approval_timeout") {
		t.Errorf("message %q", msg)
	}
	wantError(t, e.do("PUT", "/api/v1/agents/patient", api.AgentInput{Name: "patient", ApprovalDefault: "approve"}), http.StatusBadRequest, "invalid")
}
