// Package config reads Steward's configuration from the environment and the
// optional config file, finds the data directory and the API token, and
// discovers which model provider an agent set to "auto" uses on this machine.
package config

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"steward/backend/osext"
	"steward/backend/policy"
	"steward/backend/tools/mcp"
)

// Config is the resolved configuration.
type Config struct {
	// Home is the data directory: database, token, blobs.
	Home      string
	OpenAI    OpenAI
	Anthropic Anthropic
	// Prices overrides and extends DefaultPrices, by model name.
	Prices map[string]Price
	// ToolTimeouts sets the deadline of a tool's calls, by tool name (the
	// default is 2 minutes).
	ToolTimeouts map[string]time.Duration
	// Discover lets "auto" agents probe for a local model server.
	Discover bool
	// DemoDelay paces the demo script's words (STEWARD_DEMO_DELAY, 25ms
	// when unset): slower to watch it, or to act on it while it streams.
	DemoDelay time.Duration
	// Rules are the global permission rules, applied to every run together
	// with its agent's and its own.
	Rules []policy.Rule
	// Browser configures the browser tools.
	Browser Browser
	// Git configures the git tools.
	Git Git
	// MCPServers are the MCP servers whose tools agents may use, by name
	// (config.json "mcpServers", in the shape Claude Desktop, Claude Code
	// and Cursor use).
	MCPServers map[string]mcp.Server
}

// Git configures the git tools (config.json "git").
type Git struct {
	// UserConfig lets the git tools read the person's own git
	// configuration (~/.gitconfig: their identity for commits). Off by
	// default: a user configuration can name programs and include other
	// files, and the tools run git with an empty HOME. Programs it names
	// are neutralised either way.
	UserConfig bool `json:"user_config,omitempty"`
}

// Browser configures the browser tools (config.json "browser").
type Browser struct {
	// Chromium is the browser to start; empty looks for chromium or
	// google-chrome on PATH (STEWARD_CHROMIUM wins over both).
	Chromium string `json:"chromium,omitempty"`
	// Record (default true) keeps a run's browser screencast and makes a
	// video of it when the run ends.
	Record *bool `json:"record,omitempty"`
	// Downloads lets pages download files (off by default).
	Downloads bool `json:"downloads,omitempty"`
}

// Recording reports whether browser sessions are recorded.
func (b Browser) Recording() bool { return b.Record == nil || *b.Record }

// OpenAI configures the OpenAI-compatible provider.
type OpenAI struct {
	APIKey  string `json:"api_key,omitempty"`
	BaseURL string `json:"base_url,omitempty"`
	Model   string `json:"model,omitempty"`
}

// Configured reports whether a key or a server was given.
func (o OpenAI) Configured() bool { return o.APIKey != "" || o.BaseURL != "" }

// Anthropic configures the Anthropic provider.
type Anthropic struct {
	APIKey  string `json:"api_key,omitempty"`
	BaseURL string `json:"base_url,omitempty"`
	Model   string `json:"model,omitempty"`
}

// Configured reports whether a key was given.
func (a Anthropic) Configured() bool { return a.APIKey != "" }

// file is the shape of config.json in the data directory.
type file struct {
	OpenAI       OpenAI            `json:"openai"`
	Anthropic    Anthropic         `json:"anthropic"`
	Prices       map[string]Price  `json:"prices"`
	ToolTimeouts map[string]string `json:"tool_timeouts"` // "read_file": "30s"
	Rules        []policy.Rule     `json:"rules"`
	Browser      Browser           `json:"browser,omitzero"`
	Git          Git               `json:"git,omitzero"`
	// MCPServers is kept raw, as pasted: package mcp reads it, and a save
	// of the settings writes it back untouched.
	MCPServers json.RawMessage `json:"mcpServers,omitempty"`
	// MCPProjects are the person's approvals of workspaces' .mcp.json
	// files: the absolute path of the workspace → the SHA-256 (hex) of the
	// file as approved. Only this file holds them, never the workspace.
	MCPProjects map[string]string `json:"mcpProjects,omitempty"`
}

// FileName is the config file inside the data directory.
const FileName = "config.json"

// Load resolves the configuration. getenv is os.Getenv outside tests.
// Environment variables win over the config file.
func Load(getenv func(string) string) (Config, error) {
	home, err := dataDir(getenv)
	if err != nil {
		return Config{}, err
	}
	c := Config{Home: home, Discover: getenv("STEWARD_DISCOVER") != "0", DemoDelay: demoChunkDelay}
	if v := getenv("STEWARD_DEMO_DELAY"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 || d > 5*time.Second {
			return Config{}, fmt.Errorf("STEWARD_DEMO_DELAY %q must be a duration from 0 to 5s, such as 60ms", v)
		}
		c.DemoDelay = d
	}
	path := filepath.Join(home, FileName)
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return Config{}, fmt.Errorf("read config %s: %w", path, err)
	default:
		var f file
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&f); err != nil {
			return Config{}, fmt.Errorf("config %s: %w (expected {\"openai\": {...}, \"anthropic\": {...}} with api_key, base_url, model)", path, err)
		}
		c.OpenAI, c.Anthropic, c.Prices, c.Browser, c.Git = f.OpenAI, f.Anthropic, f.Prices, f.Browser, f.Git
		if err := policy.ValidateRules(f.Rules); err != nil {
			return Config{}, fmt.Errorf("config %s: %w", path, err)
		}
		c.Rules = policy.WithSource(f.Rules, policy.SourceConfig)
		if len(f.Rules) == 0 {
			c.Rules = nil
		}
		for name, v := range f.ToolTimeouts {
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return Config{}, fmt.Errorf("config %s: tool_timeouts.%s: %q is not a positive duration such as 30s or 5m", path, name, v)
			}
			if c.ToolTimeouts == nil {
				c.ToolTimeouts = map[string]time.Duration{}
			}
			c.ToolTimeouts[name] = d
		}
		if err := checkPrices(f.Prices); err != nil {
			return Config{}, fmt.Errorf("config %s: %w", path, err)
		}
		if c.MCPServers, err = mcp.ParseServers(f.MCPServers); err != nil {
			return Config{}, fmt.Errorf("config %s: %w", path, err)
		}
	}
	if v := getenv("STEWARD_CHROMIUM"); v != "" {
		c.Browser.Chromium = v
	}
	if v := getenv("ANTHROPIC_API_KEY"); v != "" {
		c.Anthropic.APIKey = v
	}
	if v := getenv("ANTHROPIC_BASE_URL"); v != "" {
		c.Anthropic.BaseURL = v
	}
	if v := getenv("ANTHROPIC_MODEL"); v != "" {
		c.Anthropic.Model = v
	}
	if v := getenv("OPENAI_API_KEY"); v != "" {
		c.OpenAI.APIKey = v
	}
	if v := getenv("OPENAI_BASE_URL"); v != "" {
		c.OpenAI.BaseURL = v
	}
	for _, k := range []string{"STEWARD_MODEL", "OPENAI_MODEL"} {
		if v := getenv(k); v != "" {
			c.OpenAI.Model = v
			break
		}
	}
	for name, u := range map[string]string{"OpenAI": c.OpenAI.BaseURL, "Anthropic": c.Anthropic.BaseURL} {
		if u != "" && !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
			return Config{}, fmt.Errorf("%s base URL %q must start with http:// or https://", name, u)
		}
	}
	return c, nil
}

func dataDir(getenv func(string) string) (string, error) {
	if h := getenv("STEWARD_HOME"); h != "" {
		return filepath.Abs(h)
	}
	if x := getenv("XDG_DATA_HOME"); x != "" {
		return filepath.Join(x, "steward"), nil
	}
	h := getenv("HOME")
	if h == "" {
		return "", errors.New("no data directory: set STEWARD_HOME (or HOME or XDG_DATA_HOME)")
	}
	return filepath.Join(h, ".local", "share", "steward"), nil
}

// DBPath is the SQLite database in the data directory.
func (c Config) DBPath() string { return filepath.Join(c.Home, "steward.db") }

// ArtifactsDir holds what runs produce (screenshots, recordings), one folder
// per run.
func (c Config) ArtifactsDir() string { return filepath.Join(c.Home, "artifacts") }

// ReplaysDir holds the workspaces made for replays, one folder per replay.
func (c Config) ReplaysDir() string { return filepath.Join(c.Home, "replays") }

// SandboxCachesDir holds the caches of sandboxed commands, one folder per
// workspace.
func (c Config) SandboxCachesDir() string { return filepath.Join(c.Home, "sandbox-cache") }

// tokenFile keeps the generated API token, readable by its owner only.
const tokenFile = "token"

// Token returns the API token: STEWARD_TOKEN when set, else the token kept in
// the data directory, generated (mode 0600) on first use.
func (c Config) Token(getenv func(string) string) (string, error) {
	if t := getenv(tokenEnv); t != "" {
		if len(t) < 16 {
			return "", errors.New("STEWARD_TOKEN must be at least 16 characters")
		}
		return t, nil
	}
	path := filepath.Join(c.Home, tokenFile)
	b, err := os.ReadFile(path)
	if err == nil {
		if t := strings.TrimSpace(string(b)); len(t) >= 16 {
			return t, nil
		}
		return "", fmt.Errorf("token file %s is damaged: delete it to make a new token", path)
	}
	if !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("read token: %w", err)
	}
	if err := osext.MkdirPrivate(c.Home); err != nil {
		return "", fmt.Errorf("create data directory: %w", err)
	}
	raw := make([]byte, 24)
	if _, err := rand.Read(raw); err != nil {
		return "", fmt.Errorf("generate token: %w", err)
	}
	t := hex.EncodeToString(raw)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) { // another process made it first
		return c.Token(getenv)
	}
	if err != nil {
		return "", fmt.Errorf("write token: %w", err)
	}
	if _, err := f.WriteString(t + "\n"); err != nil {
		f.Close()
		return "", fmt.Errorf("write token: %w", err)
	}
	return t, f.Close()
}
