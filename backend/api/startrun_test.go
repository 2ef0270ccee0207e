package api_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"steward/backend/agent"
	"steward/backend/api"
	"steward/backend/event"
)

// created reads the run.created of run id.
func (e *env) created(id string) event.RunCreatedData {
	e.t.Helper()
	for _, ev := range e.events(id) {
		if ev.Type == event.RunCreated {
			var d event.RunCreatedData
			if err := ev.Decode(&d); err != nil {
				e.t.Fatal(err)
			}
			return d
		}
	}
	e.t.Fatalf("run %s has no run.created", id)
	return event.RunCreatedData{}
}

// TestStartOverrides: what the New run form overrides of its agent (model,
// budgets, mode, breakpoints) is taken as asked and recorded in
// run.created, where a restart or a fork reads it.
func TestStartOverrides(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// An OpenAI-compatible server that refuses every request: the runs fail
	// at their first step, after their start was recorded.
	refuse := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, `{"error":{"message":"no"}}`, http.StatusBadRequest)
	}))
	t.Cleanup(refuse.Close)
	e.call("POST", "/api/v1/agents", api.AgentInput{Name: "remote", Provider: agent.ProviderOpenAI, Model: "base-model", BaseURL: refuse.URL + "/v1",
		Tools: []string{"read_file", "write_file"}}, http.StatusCreated, nil)

	t.Run("model", func(t *testing.T) {
		var r api.Run
		e.with(t).call("POST", "/api/v1/runs", api.StartRun{Agent: "remote", Instructions: "x", Workspace: t.TempDir(), Model: "other-model:7b"}, http.StatusCreated, &r)
		d := e.with(t).created(r.ID)
		if d.Agent.Model != "other-model:7b" {
			t.Errorf("run.created agent model %q, want the override", d.Agent.Model)
		}
		// The recorded definition holds it too: a restart resolves the same model.
		var spec agent.Agent
		if err := json.Unmarshal(d.Spec, &spec); err != nil {
			t.Fatal(err)
		}
		if spec.Model != "other-model:7b" || spec.Provider != agent.ProviderOpenAI {
			t.Errorf("recorded spec has %s/%s, want openai/other-model:7b", spec.Provider, spec.Model)
		}
	})
	t.Run("no model keeps the agent's", func(t *testing.T) {
		var r api.Run
		e.with(t).call("POST", "/api/v1/runs", api.StartRun{Agent: "remote", Instructions: "x", Workspace: t.TempDir()}, http.StatusCreated, &r)
		if got := e.with(t).created(r.ID).Agent.Model; got != "base-model" {
			t.Errorf("run.created agent model %q, want the agent's base-model", got)
		}
	})
	t.Run("budgets, mode and breakpoints", func(t *testing.T) {
		var r api.Run
		limits := &event.Limits{MaxSteps: 3, MaxTokens: 5000, MaxCostUSD: 0.25, MaxWallTimeMS: 60_000}
		e.with(t).call("POST", "/api/v1/runs", api.StartRun{Agent: agent.DefaultName, Instructions: "x", Workspace: t.TempDir(),
			Limits: limits, Mode: "plan", BreakBefore: []string{"write_file"}}, http.StatusCreated, &r)
		d := e.with(t).created(r.ID)
		if diff := cmp.Diff(limits, d.Limits); diff != "" {
			t.Errorf("run.created limits (-want +got):\n%s", diff)
		}
		if d.Mode != "plan" {
			t.Errorf("run.created mode %q, want plan", d.Mode)
		}
		if diff := cmp.Diff([]string{"write_file"}, d.BreakBefore); diff != "" {
			t.Errorf("run.created break_before (-want +got):\n%s", diff)
		}
	})

	ws := t.TempDir()
	bad := []struct {
		name    string
		in      api.StartRun
		mention string
	}{
		{"model of a script agent", api.StartRun{Agent: agent.DefaultName, Model: "gpt-4o"}, "model"},
		{"model with a space", api.StartRun{Agent: "remote", Model: "gpt 4o"}, "model"},
		{"model with a newline", api.StartRun{Agent: "remote", Model: "gpt-4o\nHost: evil"}, "model"},
		{"model too long", api.StartRun{Agent: "remote", Model: strings.Repeat("m", 201)}, "model"},
		{"negative steps", api.StartRun{Agent: "remote", Limits: &event.Limits{MaxSteps: -1}}, "limits"},
		{"negative cost", api.StartRun{Agent: "remote", Limits: &event.Limits{MaxCostUSD: -0.5}}, "limits"},
		{"negative wall time", api.StartRun{Agent: "remote", Limits: &event.Limits{MaxWallTimeMS: -1}}, "limits"},
		{"breakpoint on an unknown tool", api.StartRun{Agent: "remote", BreakBefore: []string{"rm_rf"}}, `break_before: unknown tool "rm_rf"`},
		{"unknown mode", api.StartRun{Agent: "remote", Mode: "yolo"}, `mode "yolo"`},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			tt.in.Instructions, tt.in.Workspace = "x", ws
			msg := wantError(t, e.with(t).do("POST", "/api/v1/runs", tt.in), http.StatusBadRequest, "invalid")
			if !strings.Contains(msg, tt.mention) {
				t.Errorf("message %q does not mention %q", msg, tt.mention)
			}
		})
	}
	// Three good starts above; none of the bad ones made a run.
	var runs struct{ Runs []api.Run }
	e.call("GET", "/api/v1/runs", nil, http.StatusOK, &runs)
	if len(runs.Runs) != 3 {
		t.Errorf("%d runs, want the 3 good starts", len(runs.Runs))
	}
}
