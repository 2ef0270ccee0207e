package agent

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"steward/backend/policy"
)

func TestValidate(t *testing.T) {
	t.Parallel()
	known := func(n string) bool { return slices.Contains(Default().Tools, n) }
	tests := []struct {
		name   string
		change func(a *Agent)
		want   string // "" means valid
	}{
		{"default", func(a *Agent) {}, ""},
		{"empty name", func(a *Agent) { a.Name = "" }, "name"},
		{"name with space", func(a *Agent) { a.Name = "my agent" }, "name"},
		{"name too long", func(a *Agent) { a.Name = strings.Repeat("a", 65) }, "name"},
		{"unknown provider", func(a *Agent) { a.Provider = "gemini" }, `provider "gemini"`},
		{"unknown mode", func(a *Agent) { a.Mode = "yolo" }, `mode "yolo" is not one of ask, edits, plan, auto`},
		{"mode ask", func(a *Agent) { a.Mode = ModeAsk }, ""},
		{"mode edits", func(a *Agent) { a.Mode = ModeEdits }, ""},
		{"mode plan", func(a *Agent) { a.Mode = ModePlan }, ""},
		{"mode auto", func(a *Agent) { a.Mode = ModeAuto }, ""},
		{"empty mode is ask", func(a *Agent) { a.Mode = "" }, ""},
		{"rules ok", func(a *Agent) {
			a.Rules = []policy.Rule{{Effect: policy.Deny, Tool: "write_file", Match: "*.env"}, {Effect: policy.Allow, Tool: "*", Match: "src/**"}, {Effect: policy.Ask, Tool: "read_file"}}
		}, ""},
		{"rule bad effect", func(a *Agent) {
			a.Rules = []policy.Rule{{Effect: policy.Allow, Tool: "*"}, {Effect: "maybe", Tool: "read_file"}}
		}, `rules[1]: effect "maybe"`},
		{"rule empty tool", func(a *Agent) { a.Rules = []policy.Rule{{Effect: policy.Deny, Tool: " "}} }, "rules[0]: tool is empty"},
		{"rule bad glob", func(a *Agent) { a.Rules = []policy.Rule{{Effect: policy.Deny, Tool: "*", Match: "src/[a-"}} }, "rules[0]: match"},
		{"rule bad glob in a later segment", func(a *Agent) {
			a.Rules = []policy.Rule{{Effect: policy.Deny, Tool: "*", Match: "x/\\"}}
		}, "rules[0]: match"},
		{"too many rules", func(a *Agent) {
			a.Rules = make([]policy.Rule, policy.MaxRules+1)
			for i := range a.Rules {
				a.Rules[i] = policy.Rule{Effect: policy.Allow, Tool: "*"}
			}
		}, "201 rules, more than 200"},
		{"200 rules ok", func(a *Agent) {
			a.Rules = make([]policy.Rule, policy.MaxRules)
			for i := range a.Rules {
				a.Rules[i] = policy.Rule{Effect: policy.Allow, Tool: "*"}
			}
		}, ""},
		{"zero steps after normalize is default", func(a *Agent) { a.MaxSteps = 0 }, ""},
		{"negative steps", func(a *Agent) { a.MaxSteps = -1 }, "max_steps"},
		{"too many steps", func(a *Agent) { a.MaxSteps = MaxMaxSteps + 1 }, "max_steps"},
		{"unknown tool", func(a *Agent) { a.Tools = []string{"rm_rf"} }, `unknown tool "rm_rf"`},
		{"tool twice", func(a *Agent) { a.Tools = []string{"read_file", "read_file"} }, "listed twice"},
		{"bad base url", func(a *Agent) { a.BaseURL = "localhost:11434" }, "base_url"},
		{"browser domains", func(a *Agent) { a.Domains = []string{"example.com", "*.example.com", "127.0.0.1", "localhost"} }, ""},
		{"domain with scheme", func(a *Agent) { a.Domains = []string{"https://example.com"} }, `browser_domains: "https://example.com" is not a host name`},
		{"domain with port", func(a *Agent) { a.Domains = []string{"localhost:8080"} }, "no scheme, port or path"},
		{"domain with path", func(a *Agent) { a.Domains = []string{"example.com/docs"} }, "no scheme, port or path"},
		{"domain in capitals", func(a *Agent) { a.Domains = []string{"Example.com"} }, "lower case"},
		{"empty domain", func(a *Agent) { a.Domains = []string{""} }, "empty domain"},
		{"domain with space", func(a *Agent) { a.Domains = []string{"exa mple.com"} }, "not a host name"},
		{"send images", func(a *Agent) { a.SendImages = true }, ""},
		{"sandbox auto", func(a *Agent) { a.Sandbox = "auto" }, ""},
		{"sandbox on", func(a *Agent) { a.Sandbox = "on" }, ""},
		{"sandbox off", func(a *Agent) { a.Sandbox = "off" }, ""},
		{"sandbox unknown", func(a *Agent) { a.Sandbox = "maybe" }, `sandbox "maybe" is not one of auto, on, off`},
		{"sandbox in capitals", func(a *Agent) { a.Sandbox = "On" }, `sandbox "On" is not one of auto, on, off`},
		{"sandbox network on", func(a *Agent) { a.SandboxNetwork = "on" }, ""},
		{"sandbox network off", func(a *Agent) { a.SandboxNetwork = "off" }, ""},
		{"sandbox network unknown", func(a *Agent) { a.SandboxNetwork = "loopback" }, `sandbox_network "loopback" is not one of off, on`},
		{"negative budget", func(a *Agent) { a.MaxCostUSD = -1 }, "max_cost_usd"},
		{"bad wall time", func(a *Agent) { a.MaxWallTime = "forever" }, "max_wall_time"},
		{"wall time ok", func(a *Agent) { a.MaxWallTime = "90m"; a.MaxTokens = 1000; a.MaxCostUSD = 0.5 }, ""},
		{"huge prompt", func(a *Agent) { a.SystemPrompt = strings.Repeat("x", maxPromptBytes+1) }, "system_prompt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a := Default()
			tt.change(&a)
			a.Normalize()
			err := a.Validate(known)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Validate = %v, want valid", err)
			case tt.want != "" && (!errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("Validate = %v, want ErrInvalid naming %q", err, tt.want)
			}
		})
	}
}

func TestNormalizeFillsSandboxDefaults(t *testing.T) {
	t.Parallel()
	a := Agent{Name: "x"}
	a.Normalize()
	if a.Sandbox != "auto" || a.SandboxNetwork != "off" {
		t.Errorf("sandbox %q, sandbox_network %q; want auto and off", a.Sandbox, a.SandboxNetwork)
	}
	b := Agent{Name: "x", Sandbox: "off", SandboxNetwork: "on"}
	b.Normalize()
	if b.Sandbox != "off" || b.SandboxNetwork != "on" {
		t.Errorf("sandbox %q, sandbox_network %q were changed", b.Sandbox, b.SandboxNetwork)
	}
}
