package config

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"steward/backend/tools/mcp"
)

// A server changed in Settings is in config.json as pasted, next to the
// providers (a provider's change keeps it), is read back by Load, and is
// told to OnMCPServers; a refused change writes nothing.
func TestMCPServersEditedInConfigJSON(t *testing.T) {
	t.Parallel()
	s, _, _ := newSettings(t, nil)
	var told []map[string]mcp.Server
	s.OnMCPServers(func(m map[string]mcp.Server) { told = append(told, m) })
	ctx := context.Background()
	if err := s.PutMCPServer(ctx, "fs", json.RawMessage(`{"command": "npx", "args": ["-y", "server-fs", "${HOME}/notes"]}`)); err != nil {
		t.Fatal(err)
	}
	if err := s.SetProvider(ctx, "openai", ProviderInput{APIKey: "sk-test-0123456789abcdef"}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetMCPState(ctx, "fs", MCPState{Disabled: ptr(true)}); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(s.path)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []struct{ name, entry, want string }{
		{"web", `{"type": "ftp", "url": "ftp://x"}`, `mcpServers.web: type "ftp"`},
		{"web", `{"type": "http"}`, "url is missing"},
		{"web", `{"command": "x", "autoApprove": ["*"]}`, `unknown field "autoApprove"`},
		{"a__b", `{"command": "x"}`, "becomes part of tool names"},
		{"web", `"npx"`, "must be an object"},
	} {
		err := s.PutMCPServer(ctx, bad.name, json.RawMessage(bad.entry))
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("put %s %s: %v, want an invalid error saying %q", bad.name, bad.entry, err, bad.want)
		}
	}
	if err := s.RemoveMCPServer(ctx, "nope"); !errors.Is(err, ErrNoMCPServer) {
		t.Errorf("remove of an unknown server: %v", err)
	}
	after, _ := os.ReadFile(s.path)
	if string(after) != string(before) {
		t.Errorf("a refused change wrote config.json:\n%s", after)
	}
	cfg, err := Load(func(k string) string {
		if k == "STEWARD_HOME" {
			return strings.TrimSuffix(s.path, "/"+FileName)
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	fs := cfg.MCPServers["fs"]
	if fs.Command != "npx" || fs.Args[2] != "${HOME}/notes" || !fs.Disabled || cfg.OpenAI.APIKey == "" {
		t.Errorf("loaded back: %+v, openai key set %v", fs, cfg.OpenAI.APIKey != "")
	}
	if len(told) != 2 || !told[1]["fs"].Disabled {
		t.Errorf("OnMCPServers was told %+v", told)
	}
	if err := s.RemoveMCPServer(ctx, "fs"); err != nil || len(told) != 3 || len(told[2]) != 0 {
		t.Errorf("remove: %v, told %+v", err, told)
	}
}

func ptr[T any](v T) *T { return &v }

// An edit from a surface that never saw the secret values leaves them null,
// and the saved values stay; a null with no saved value is refused.
func TestMCPServerEditKeepsTheValuesItLeavesNull(t *testing.T) {
	t.Parallel()
	s, _, _ := newSettings(t, nil)
	ctx := context.Background()
	const token = "ghp_secret0123456789abcdef"
	if err := s.PutMCPServer(ctx, "gh", json.RawMessage(`{"command": "gh-mcp", "env": {"GITHUB_TOKEN": "`+token+`", "MODE": "a"}}`)); err != nil {
		t.Fatal(err)
	}
	if err := s.PutMCPServer(ctx, "gh", json.RawMessage(`{"command": "gh-mcp", "args": ["--read-only"], "env": {"GITHUB_TOKEN": null, "MODE": "b"}}`)); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(s.path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"GITHUB_TOKEN": "`+token+`"`) || !strings.Contains(string(b), `"MODE": "b"`) || !strings.Contains(string(b), "--read-only") {
		t.Errorf("config.json after the edit:\n%s", b)
	}
	for _, bad := range []struct{ name, entry, want string }{
		{"gh", `{"command": "gh-mcp", "env": {"OTHER": null}}`, "mcpServers.gh.env.OTHER is null"},
		{"new", `{"type": "http", "url": "https://x.example/mcp", "headers": {"Authorization": null}}`, "mcpServers.new.headers.Authorization is null"},
		{"gh", `{"command": "gh-mcp", "env": {"N": 1}}`, "must be an object of strings"},
	} {
		if err := s.PutMCPServer(ctx, bad.name, json.RawMessage(bad.entry)); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("put %s %s: %v, want %q", bad.name, bad.entry, err, bad.want)
		}
	}
}
