package api_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

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

	e.call("PUT", "/api/v1/settings/prices", json.RawMessage(`{"prices": {"house-model": {"input_per_mtok": 1, "output_per_mtok": 2}}}`), http.StatusOK, &v)
	found := false
	for _, p := range v.Prices {
		found = found || (p.Model == "house-model" && p.Source == "config" && p.Output == 2)
	}
	if !found {
		t.Errorf("prices %+v", v.Prices)
	}
	wantError(t, e.do("PUT", "/api/v1/settings/prices", json.RawMessage(`{"prices": {"x": {"input_per_mtok": -1, "output_per_mtok": 1}}}`)), http.StatusBadRequest, "invalid")
}

// TestSetPricesRefusesWhatIsNoTable: a body without prices, with null, or
// with a price that lacks its rates is refused with 400 naming the field,
// and the configured prices stay as they were; {"prices": {}} clears them.
func TestSetPricesRefusesWhatIsNoTable(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const house = `{"prices": {"house-model": {"input_per_mtok": 1, "output_per_mtok": 2}}}`
	e.call("PUT", "/api/v1/settings/prices", json.RawMessage(house), http.StatusOK, nil)
	configured := func() map[string]config.PriceView {
		t.Helper()
		var v config.SettingsView
		e.call("GET", "/api/v1/settings", nil, http.StatusOK, &v)
		out := map[string]config.PriceView{}
		for _, p := range v.Prices {
			if p.Source == "config" {
				out[p.Model] = p
			}
		}
		return out
	}
	before := configured()
	if len(before) != 1 {
		t.Fatalf("configured prices %+v, want house-model", before)
	}
	tests := []struct {
		name, body, field string
	}{
		{"an empty object", `{}`, "prices is missing"},
		{"prices null", `{"prices": null}`, "prices is missing or null"},
		{"a price without numbers", `{"prices": {"m": {}}}`, "prices.m.input_per_mtok"},
		{"a price without its output rate", `{"prices": {"m": {"input_per_mtok": 1}}}`, "prices.m.output_per_mtok"},
		{"a price without its input rate", `{"prices": {"m": {"output_per_mtok": 1, "cached_input_per_mtok": 0.5}}}`, "prices.m.input_per_mtok"},
		{"a price that is null", `{"prices": {"m": null}}`, "prices.m.input_per_mtok"},
		{"a rate that is a string", `{"prices": {"m": {"input_per_mtok": "1", "output_per_mtok": 2}}}`, "input_per_mtok"},
		{"an unknown field in a price", `{"prices": {"m": {"input_per_mtok": 1, "output_per_mtok": 2, "per_call": 3}}}`, "per_call"},
		{"a negative rate", `{"prices": {"m": {"input_per_mtok": 1, "output_per_mtok": -2}}}`, "prices.m"},
		{"a price with no model name", `{"prices": {" ": {"input_per_mtok": 1, "output_per_mtok": 2}}}`, "no model name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg := wantError(t, e.with(t).do("PUT", "/api/v1/settings/prices", json.RawMessage(tt.body)), http.StatusBadRequest, "invalid")
			if !strings.Contains(msg, tt.field) {
				t.Errorf("message %q does not name %q", msg, tt.field)
			}
			if diff := cmp.Diff(before, configured()); diff != "" {
				t.Errorf("a refused body changed the configured prices (-before +after):\n%s", diff)
			}
		})
	}
	// Rates of 0 are rates; the cached one may be left out.
	e.call("PUT", "/api/v1/settings/prices", json.RawMessage(`{"prices": {"local": {"input_per_mtok": 0, "output_per_mtok": 0}}}`), http.StatusOK, nil)
	if got := configured(); len(got) != 1 || got["local"].Model != "local" {
		t.Errorf("configured prices %+v, want local only", got)
	}
	e.call("PUT", "/api/v1/settings/prices", json.RawMessage(`{"prices": {}}`), http.StatusOK, nil)
	if got := configured(); len(got) != 0 {
		t.Errorf("{\"prices\": {}} left %+v", got)
	}
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
