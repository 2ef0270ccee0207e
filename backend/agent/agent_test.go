package agent

import (
	"errors"
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	t.Parallel()
	known := func(n string) bool { return n == "read_file" || n == "write_file" || n == "list_dir" }
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
		{"unsupported mode", func(a *Agent) { a.Mode = "auto" }, `mode "auto"`},
		{"zero steps after normalize is default", func(a *Agent) { a.MaxSteps = 0 }, ""},
		{"negative steps", func(a *Agent) { a.MaxSteps = -1 }, "max_steps"},
		{"too many steps", func(a *Agent) { a.MaxSteps = MaxMaxSteps + 1 }, "max_steps"},
		{"unknown tool", func(a *Agent) { a.Tools = []string{"rm_rf"} }, `unknown tool "rm_rf"`},
		{"tool twice", func(a *Agent) { a.Tools = []string{"read_file", "read_file"} }, "listed twice"},
		{"bad base url", func(a *Agent) { a.BaseURL = "localhost:11434" }, "base_url"},
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
