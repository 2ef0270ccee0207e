// Package agent holds agent definitions (provider and model, system prompt,
// tools, permission mode, limits) and their validation.
package agent

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"steward/backend/event"
	"steward/backend/fault"
	"steward/backend/policy"
	"steward/backend/sandbox"
)

// Provider is the provider an agent names.
type Provider string

// Providers lists the providers an agent can name.
var Providers = []Provider{ProviderAuto, ProviderOpenAI, ProviderAnthropic, ProviderScript}

// Providers an agent can name. Auto picks OpenAI (or a compatible server)
// when one is configured, else Anthropic when its key is set, else a local
// server it finds, else the built-in demo script.
const (
	ProviderAuto      = "auto"
	ProviderOpenAI    = "openai"
	ProviderAnthropic = "anthropic"
	ProviderScript    = "script"
)

// Permission modes (see package policy): ask runs read tools and asks for
// everything else; edits also runs workspace writes; plan offers read tools
// only; auto runs everything, still confined to the workspace.
const (
	ModeAsk   = policy.ModeAsk
	ModeEdits = policy.ModeEdits
	ModePlan  = policy.ModePlan
	ModeAuto  = policy.ModeAuto
)

// Limits on what a definition may ask for.
const (
	DefaultMaxSteps = 50
	MaxMaxSteps     = 10000
	maxPromptBytes  = 64 << 10
)

// DefaultName is the agent created on first start.
const DefaultName = "default"

// ErrInvalid is wrapped by every validation failure.
var ErrInvalid = fault.New(fault.Invalid, "invalid agent")

// Agent is a saved definition.
type Agent struct {
	ID           string      `json:"id"`
	Name         string      `json:"name"`
	Description  string      `json:"description"`
	Provider     Provider    `json:"provider"`
	Model        string      `json:"model"`
	BaseURL      string      `json:"base_url,omitempty"`
	SystemPrompt string      `json:"system_prompt"`
	Tools        []string    `json:"tools"`
	Mode         policy.Mode `json:"mode"`
	// Rules refine the mode for the calls they match; deny beats ask beats
	// allow, and a matching rule decides over the mode.
	Rules    []policy.Rule `json:"rules,omitempty"`
	MaxSteps int           `json:"max_steps"`
	// Budgets; zero means no limit. Reaching one pauses the run with the
	// reason, and the person raises it or stops the run.
	MaxTokens   int64   `json:"max_tokens,omitempty"`    // input + output tokens of the run
	MaxCostUSD  float64 `json:"max_cost_usd,omitempty"`  // from the price table
	MaxWallTime string  `json:"max_wall_time,omitempty"` // a Go duration: "30m", "2h"
	// ApprovalTimeout (a Go duration; empty waits for ever) is how long an
	// approval or question waits for a person before ApprovalDefault (deny
	// when empty, or approve) is taken for them.
	ApprovalTimeout string                `json:"approval_timeout,omitempty"`
	ApprovalDefault event.DefaultDecision `json:"approval_default,omitempty"`
	// BreakBefore lists tools whose calls pause the run first, like a
	// debugger's breakpoints.
	BreakBefore []string `json:"break_before,omitempty"`
	// Domains limits the browser to these hosts (globs: "example.com",
	// "*.example.com", "127.0.0.1"); navigation elsewhere, by a redirect or
	// a click too, is refused. Empty allows any host.
	Domains []string `json:"browser_domains,omitempty"`
	// SendImages sends the screenshots the agent's tools take to the model as
	// images, with their description; off, the model gets the description and
	// a reference only. Turn it on only for a model that accepts images
	// (GPT-4o and later, Claude 3 and later, llava...): others reject the call.
	SendImages bool `json:"send_images,omitempty"`
	// ProjectServers offers the agent, in each run, the tools of the MCP
	// servers its workspace's .mcp.json declares, once the person approved
	// that file there (package mcp's ProjectFile); without it a workspace
	// adds no server.
	ProjectServers bool `json:"project_servers,omitempty"`
	// Sandbox confines the agent's commands (see package sandbox): auto (the
	// default) runs them in the OS sandbox wherever it works, and elsewhere
	// asks the person about each one, whatever the mode; on refuses the
	// commands it cannot sandbox; off runs them as the server's user, able
	// to read and change whatever that user can (a risk).
	Sandbox event.SandboxMode `json:"sandbox,omitempty"`
	// SandboxNetwork (off, the default, or on) gives sandboxed commands
	// the network, loopback included.
	SandboxNetwork event.SandboxNetwork `json:"sandbox_network,omitempty"`
	// Script is "demo" or a path to a script file, for the script provider.
	Script    string `json:"script,omitempty"`
	CreatedAt int64  `json:"created_at"`
	UpdatedAt int64  `json:"updated_at"`
}

var nameRE = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9._-]{0,63}$`)

// Normalize fills defaults for fields left empty.
func (a *Agent) Normalize() {
	a.Name = strings.TrimSpace(a.Name)
	if a.Provider == "" {
		a.Provider = ProviderAuto
	}
	if a.Mode == "" {
		a.Mode = ModeAsk
	}
	if a.MaxSteps == 0 {
		a.MaxSteps = DefaultMaxSteps
	}
	if a.Tools == nil {
		a.Tools = []string{}
	}
	set := a.SandboxSettings()
	a.Sandbox, a.SandboxNetwork = event.SandboxMode(set.EffectiveMode()), event.SandboxNetwork(set.EffectiveNetwork())
}

// SandboxSettings are the agent's sandbox settings.
func (a Agent) SandboxSettings() sandbox.Settings {
	return sandbox.Settings{Mode: string(a.Sandbox), Network: string(a.SandboxNetwork)}
}

// Validate checks a normalised definition. toolExists reports whether a tool
// name is registered. The error names the field that is wrong.
func (a *Agent) Validate(toolExists func(string) bool) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
	}
	if !nameRE.MatchString(a.Name) {
		return bad("name %q must be 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit", a.Name)
	}
	switch a.Provider {
	case ProviderAuto, ProviderOpenAI, ProviderAnthropic, ProviderScript:
	default:
		return bad("provider %q is not one of auto, openai, anthropic, script", a.Provider)
	}
	if !policy.ValidMode(a.Mode) {
		return bad("mode %q is not one of %s", a.Mode, strings.Join(policy.Modes, ", "))
	}
	if err := a.SandboxSettings().Validate(); err != nil {
		return bad("%v", strings.TrimPrefix(err.Error(), sandbox.ErrInvalid.Error()+": "))
	}
	if err := policy.ValidateRules(a.Rules); err != nil {
		return bad("%v", strings.TrimPrefix(err.Error(), policy.ErrInvalidRule.Error()+": "))
	}
	if a.MaxSteps < 1 || a.MaxSteps > MaxMaxSteps {
		return bad("max_steps %d must be between 1 and %d", a.MaxSteps, MaxMaxSteps)
	}
	if a.MaxTokens < 0 || a.MaxCostUSD < 0 {
		return bad("max_tokens and max_cost_usd cannot be negative")
	}
	if a.MaxWallTime != "" {
		if d, err := time.ParseDuration(a.MaxWallTime); err != nil || d <= 0 {
			return bad("max_wall_time %q must be a positive duration such as 30m or 2h", a.MaxWallTime)
		}
	}
	if a.ApprovalTimeout != "" {
		if d, err := time.ParseDuration(a.ApprovalTimeout); err != nil || d < time.Second {
			return bad("approval_timeout %q must be a duration of at least 1s, such as 90s or 10m", a.ApprovalTimeout)
		}
	}
	switch a.ApprovalDefault {
	case "", "deny", "approve":
	default:
		return bad("approval_default %q is not one of deny, approve", a.ApprovalDefault)
	}
	if a.ApprovalDefault != "" && a.ApprovalTimeout == "" {
		return bad("approval_default needs approval_timeout: without a timeout nothing is decided by default")
	}
	if len(a.SystemPrompt) > maxPromptBytes {
		return bad("system_prompt is %d bytes, more than %d", len(a.SystemPrompt), maxPromptBytes)
	}
	if a.BaseURL != "" && !strings.HasPrefix(a.BaseURL, "http://") && !strings.HasPrefix(a.BaseURL, "https://") {
		return bad("base_url %q must start with http:// or https://", a.BaseURL)
	}
	for _, t := range a.BreakBefore {
		if !toolExists(t) {
			return bad("break_before: unknown tool %q", t)
		}
	}
	for _, d := range a.Domains {
		if err := checkDomain(d); err != nil {
			return bad("browser_domains: %v", err)
		}
	}
	seen := map[string]bool{}
	for _, t := range a.Tools {
		if !toolExists(t) {
			return bad("tools: unknown tool %q", t)
		}
		if seen[t] {
			return bad("tools: %q listed twice", t)
		}
		seen[t] = true
	}
	return nil
}

// Default returns the definition of the agent created on first start.
func Default() Agent {
	return Agent{
		Name:        DefaultName,
		Description: "General workspace assistant. Uses OpenAI or a compatible server when configured, else the built-in demo script.",
		Provider:    ProviderAuto,
		SystemPrompt: "You are Steward's workspace assistant. You work inside the user's workspace folder through tools. " +
			"Paths are relative to the workspace. Read before you change things, explain what you do in a sentence, " +
			"and stop when the task is done.",
		Tools: []string{"list_dir", "read_file", "glob", "grep", "write_file", "edit_file", "apply_patch",
			"run_command", "git_status", "git_diff", "git_log", "git_commit", "ask_user", "update_plan"},
		Mode:     ModeAsk,
		MaxSteps: DefaultMaxSteps,
		Script:   "demo",
	}
}

// domainRE is a host name or IP address, where a label may be the glob *
// (a port is not part of a domain: the browser rules match hosts).
var domainRE = regexp.MustCompile(`^(\*|[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.(\*|[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?))*$`)

// checkDomain says what is wrong with an allowed browser domain.
func checkDomain(d string) error {
	switch {
	case d == "":
		return fmt.Errorf("an empty domain")
	case strings.Contains(d, "://") || strings.ContainsAny(d, "/:@"):
		return fmt.Errorf("%q is not a host name: give the host alone, like example.com or *.example.com (no scheme, port or path)", d)
	case d != strings.ToLower(d):
		return fmt.Errorf("%q must be lower case", d)
	case !domainRE.MatchString(d):
		return fmt.Errorf("%q is not a host name or a glob of one, like example.com or *.example.com", d)
	}
	return nil
}
