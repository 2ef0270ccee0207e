package config

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"steward/backend/agent"
	"steward/backend/llm"
	"steward/backend/policy"
	"steward/backend/tools/mcp"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestLoadDataDirAndPrecedence(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, FileName), []byte(`{"openai": {"base_url": "http://127.0.0.1:9/v1", "model": "file-model"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(env(map[string]string{"STEWARD_HOME": home, "STEWARD_MODEL": "env-model"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Home != home || c.OpenAI.BaseURL != "http://127.0.0.1:9/v1" || c.OpenAI.Model != "env-model" || !c.Discover {
		t.Errorf("config = %+v", c)
	}
	c, err = Load(env(map[string]string{"XDG_DATA_HOME": "/x", "HOME": "/h", "STEWARD_DISCOVER": "0"}))
	if err != nil || c.Home != "/x/steward" || c.Discover {
		t.Errorf("XDG: %+v %v", c, err)
	}
	c, err = Load(env(map[string]string{"HOME": "/h"}))
	if err != nil || c.Home != "/h/.local/share/steward" {
		t.Errorf("HOME: %+v %v", c, err)
	}
	if _, err := Load(env(map[string]string{})); err == nil {
		t.Errorf("no home: want an error")
	}
}

func TestLoadBrowser(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	c, err := Load(env(map[string]string{"STEWARD_HOME": home}))
	if err != nil || c.Browser.Chromium != "" || !c.Browser.Recording() || c.Browser.Downloads {
		t.Fatalf("defaults: %+v %v", c.Browser, err)
	}
	if err := os.WriteFile(filepath.Join(home, FileName), []byte(`{"browser": {"chromium": "/opt/chrome", "record": false, "downloads": true}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err = Load(env(map[string]string{"STEWARD_HOME": home}))
	if err != nil || c.Browser.Chromium != "/opt/chrome" || c.Browser.Recording() || !c.Browser.Downloads {
		t.Fatalf("from the file: %+v %v", c.Browser, err)
	}
	c, err = Load(env(map[string]string{"STEWARD_HOME": home, "STEWARD_CHROMIUM": "/usr/bin/chromium"}))
	if err != nil || c.Browser.Chromium != "/usr/bin/chromium" {
		t.Fatalf("the environment wins: %+v %v", c.Browser, err)
	}
}

func TestLoadGit(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	c, err := Load(env(map[string]string{"STEWARD_HOME": home}))
	if err != nil || c.Git.UserConfig {
		t.Fatalf("defaults: %+v %v", c.Git, err)
	}
	if err := os.WriteFile(filepath.Join(home, FileName), []byte(`{"git": {"user_config": true}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if c, err = Load(env(map[string]string{"STEWARD_HOME": home})); err != nil || !c.Git.UserConfig {
		t.Fatalf("from the file: %+v %v", c.Git, err)
	}
}

func TestLoadRejectsBadConfig(t *testing.T) {
	t.Parallel()
	for name, body := range map[string]string{
		"unknown field": `{"openai": {"base_ur": "x"}}`,
		"not json":      `{"openai":`,
		"bad url":       `{"openai": {"base_url": "localhost:11434"}}`,
		"browser typo":  `{"browser": {"chromum": "/x"}}`,
		"git typo":      `{"git": {"user_conf": true}}`,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			if err := os.WriteFile(filepath.Join(home, FileName), []byte(body), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := Load(env(map[string]string{"STEWARD_HOME": home}))
			if err == nil || !(strings.Contains(err.Error(), "config") || strings.Contains(err.Error(), "base URL")) {
				t.Errorf("Load = %v, want a clear error", err)
			}
		})
	}
}

func TestTokenGeneratedOnceWithMode0600(t *testing.T) {
	t.Parallel()
	c := Config{Home: filepath.Join(t.TempDir(), "new")}
	get := env(map[string]string{})
	t1, err := c.Token(get)
	if err != nil || len(t1) < 32 {
		t.Fatalf("token %q, %v", t1, err)
	}
	fi, err := os.Stat(filepath.Join(c.Home, "token"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file mode %v, %v", fi.Mode(), err)
	}
	t2, _ := c.Token(get)
	if t1 != t2 {
		t.Errorf("token changed between calls")
	}
	t3, err := c.Token(env(map[string]string{"STEWARD_TOKEN": "from-the-environment-1234"}))
	if err != nil || t3 != "from-the-environment-1234" {
		t.Errorf("STEWARD_TOKEN ignored: %q %v", t3, err)
	}
	if _, err := c.Token(env(map[string]string{"STEWARD_TOKEN": "short"})); err == nil {
		t.Errorf("a short STEWARD_TOKEN was accepted")
	}
}

func TestModelsResolve(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	demo := NewModels(Config{})
	m, err := demo.Resolve(ctx, agent.Default())
	if err != nil || !m.Demo || m.Name != "script" {
		t.Errorf("auto without a provider: %+v %v, want the demo script", m, err)
	}
	if _, demoFlag, note := demo.Describe(ctx); !demoFlag || !strings.Contains(note, "demo script") {
		t.Errorf("Describe = %v %q", demoFlag, note)
	}
	withKey := NewModels(Config{OpenAI: OpenAI{APIKey: "k"}})
	m, err = withKey.Resolve(ctx, agent.Default())
	if err != nil || m.Demo || m.Name != "openai" || m.Model != DefaultOpenAIModel {
		t.Errorf("auto with a key: %+v %v", m, err)
	}
	a := agent.Default()
	a.Provider = agent.ProviderOpenAI
	if _, err := demo.Resolve(ctx, a); err == nil || !strings.Contains(err.Error(), "OPENAI_API_KEY") {
		t.Errorf("openai without key: %v", err)
	}
	a.Provider, a.Script = agent.ProviderScript, filepath.Join(t.TempDir(), "missing.json")
	if _, err := demo.Resolve(ctx, a); err == nil {
		t.Errorf("a missing script file resolved")
	}
}

func TestDiscoverLocalServer(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(`{"object":"list","data":[{"id":"llama3.2","object":"model"}]}`))
	}))
	defer srv.Close()
	m := NewModels(Config{Discover: true})
	m.servers = []string{"http://127.0.0.1:1/v1/", srv.URL + "/v1/"}
	got, err := m.Resolve(context.Background(), agent.Default())
	if err != nil || got.Name != "openai" || got.Model != "llama3.2" || got.Demo {
		t.Fatalf("discovered: %+v %v", got, err)
	}
	off := NewModels(Config{Discover: false})
	off.servers = m.servers
	if got, _ := off.Resolve(context.Background(), agent.Default()); !got.Demo {
		t.Errorf("discovery off still found a server")
	}
}

func TestAnthropicConfigured(t *testing.T) {
	t.Parallel()
	c, err := Load(env(map[string]string{"STEWARD_HOME": t.TempDir(), "ANTHROPIC_API_KEY": "sk-ant-x", "ANTHROPIC_MODEL": "claude-x"}))
	if err != nil {
		t.Fatal(err)
	}
	m := NewModels(c)
	got, err := m.Resolve(context.Background(), agent.Default())
	if err != nil || got.Name != "anthropic" || got.Model != "claude-x" || got.Demo {
		t.Errorf("auto with an Anthropic key: %+v %v", got, err)
	}
	a := agent.Default()
	a.Provider = agent.ProviderAnthropic
	if _, err := NewModels(Config{}).Resolve(context.Background(), a); err == nil || !strings.Contains(err.Error(), "ANTHROPIC_API_KEY") {
		t.Errorf("anthropic without key: %v", err)
	}
}

func TestPrices(t *testing.T) {
	t.Parallel()
	p := NewPrices(map[string]Price{"my-model": {Input: 1, Output: 2}, "gpt-4o": {Input: 5, Output: 20}})
	tests := []struct {
		model string
		u     llm.Usage
		want  float64
		known bool
	}{
		{"gpt-4o-mini", llm.Usage{InputTokens: 1_000_000, OutputTokens: 1_000_000}, 0.75, true},
		{"gpt-4o-mini-2024-07-18", llm.Usage{InputTokens: 1_000_000, CachedTokens: 1_000_000}, 0.075, true},
		{"gpt-4o", llm.Usage{InputTokens: 1_000_000}, 5, true}, // configured beats default
		{"my-model", llm.Usage{InputTokens: 500_000, CachedTokens: 500_000, OutputTokens: 0}, 0.5, true},
		{"unknown-model", llm.Usage{InputTokens: 10}, 0, false},
		{"demo-script", llm.Usage{InputTokens: 10, OutputTokens: 10}, 0, true},
	}
	for _, tt := range tests {
		got, known := p.Cost(tt.model, tt.u)
		if known != tt.known || got < tt.want-1e-9 || got > tt.want+1e-9 {
			t.Errorf("Cost(%s, %+v) = %v, %v; want %v, %v", tt.model, tt.u, got, known, tt.want, tt.known)
		}
	}
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, FileName), []byte(`{"prices": {"x": {"input_per_mtok": -1, "output_per_mtok": 1}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(env(map[string]string{"STEWARD_HOME": home})); err == nil || !strings.Contains(err.Error(), "prices.x") {
		t.Errorf("negative price: %v", err)
	}
}

func TestToolTimeouts(t *testing.T) {
	t.Parallel()
	for body, wantErr := range map[string]string{
		`{"tool_timeouts": {"read_file": "30s"}}`:  "",
		`{"tool_timeouts": {"read_file": "soon"}}`: "tool_timeouts.read_file",
		`{"tool_timeouts": {"read_file": "-5s"}}`:  "tool_timeouts.read_file",
	} {
		home := t.TempDir()
		if err := os.WriteFile(filepath.Join(home, FileName), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := Load(env(map[string]string{"STEWARD_HOME": home}))
		switch {
		case wantErr == "" && (err != nil || c.ToolTimeouts["read_file"] != 30*time.Second):
			t.Errorf("%s: %v, %v", body, c.ToolTimeouts, err)
		case wantErr != "" && (err == nil || !strings.Contains(err.Error(), wantErr)):
			t.Errorf("%s: error %v, want one naming %s", body, err, wantErr)
		}
	}
}

func TestRules(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body, wantErr string
		want                []policy.Rule
	}{
		{"none", `{}`, "", nil},
		{"two", `{"rules": [{"effect": "deny", "tool": "write_file", "match": "**/*.env"}, {"effect": "allow", "tool": "*"}]}`, "", []policy.Rule{
			{Effect: policy.Deny, Tool: "write_file", Match: "**/*.env", Source: policy.SourceConfig},
			{Effect: policy.Allow, Tool: "*", Source: policy.SourceConfig},
		}},
		{"bad effect", `{"rules": [{"effect": "allow", "tool": "*"}, {"effect": "never", "tool": "*"}]}`, "rules[1]: effect", nil},
		{"bad glob", `{"rules": [{"effect": "deny", "tool": "*", "match": "[x"}]}`, "rules[0]: match", nil},
		{"unknown field", `{"rules": [{"effect": "deny", "tool": "*", "glob": "x"}]}`, "glob", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			if err := os.WriteFile(filepath.Join(home, FileName), []byte(tt.body), 0o600); err != nil {
				t.Fatal(err)
			}
			c, err := Load(env(map[string]string{"STEWARD_HOME": home}))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Load = %v, want an error naming %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, c.Rules); diff != "" {
				t.Errorf("Rules (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDemoDelay(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	for v, want := range map[string]time.Duration{"": 25 * time.Millisecond, "60ms": 60 * time.Millisecond, "0": 0} {
		c, err := Load(env(map[string]string{"STEWARD_HOME": home, "STEWARD_DEMO_DELAY": v}))
		if err != nil || c.DemoDelay != want || NewModels(c).ChunkDelay != want {
			t.Errorf("STEWARD_DEMO_DELAY=%q: %v, %v; want %v", v, c.DemoDelay, err, want)
		}
	}
	for _, bad := range []string{"fast", "-1s", "1m"} {
		if _, err := Load(env(map[string]string{"STEWARD_HOME": home, "STEWARD_DEMO_DELAY": bad})); err == nil || !strings.Contains(err.Error(), "STEWARD_DEMO_DELAY") {
			t.Errorf("STEWARD_DEMO_DELAY=%q: %v", bad, err)
		}
	}
}

func TestLoadMCPServers(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	// As pasted from Claude Desktop, Claude Code or Cursor, plus trust.
	body := `{"mcpServers": {
		"github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"], "env": {"GITHUB_TOKEN_FILE": "/x"}, "cwd": "/tmp"},
		"linear": {"type": "http", "url": "https://mcp.linear.app/mcp", "headers": {"X-Team": "a"}, "bearer_token_env": "LINEAR_TOKEN"},
		"docs":   {"url": "http://127.0.0.1:8080/mcp", "trusted": true},
		"later":  {"type": "http", "url": "${LATER_URL}/mcp"}
	}}`
	if err := os.WriteFile(filepath.Join(home, FileName), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(env(map[string]string{"STEWARD_HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]mcp.Server{
		"github": {Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-github"}, Env: map[string]string{"GITHUB_TOKEN_FILE": "/x"}, Cwd: "/tmp"},
		"linear": {Type: "http", URL: "https://mcp.linear.app/mcp", Headers: map[string]string{"X-Team": "a"}, BearerTokenEnv: "LINEAR_TOKEN"},
		"docs":   {URL: "http://127.0.0.1:8080/mcp", Trusted: true},
		"later":  {Type: "http", URL: "${LATER_URL}/mcp"}, // checked once expanded, when reached
	}
	if d := cmp.Diff(want, c.MCPServers); d != "" {
		t.Errorf("servers (-want +got):\n%s", d)
	}
	// A save of the settings keeps the servers as they were written.
	s := NewSettings(c, env(map[string]string{"STEWARD_HOME": home}), NewModels(c), NewPrices(nil))
	f, err := s.read()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.write(f); err != nil {
		t.Fatal(err)
	}
	c2, err := Load(env(map[string]string{"STEWARD_HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, c2.MCPServers); d != "" {
		t.Errorf("after a save (-want +got):\n%s", d)
	}
}

func TestLoadRejectsBadMCPServers(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, servers, want string }{
		{"unknown type", `{"gh": {"type": "grpc", "command": "x"}}`, `mcpServers.gh: type "grpc" is not one of "stdio", "http", "sse"`},
		{"sse without url", `{"gh": {"type": "sse"}}`, `mcpServers.gh: url is missing: an sse server`},
		{"missing command", `{"gh": {"args": ["x"]}}`, "mcpServers.gh: command is missing"},
		{"missing url", `{"gh": {"type": "http"}}`, "mcpServers.gh: url is missing"},
		{"bad url", `{"gh": {"type": "http", "url": "file:///etc/passwd"}}`, `mcpServers.gh: url "file:///etc/passwd" must be`},
		{"bad name", `{"git hub": {"command": "x"}}`, `mcpServers.git hub: the name "git hub" must be`},
		{"double underscore", `{"a__b": {"command": "x"}}`, `mcpServers.a__b: the name`},
		{"name too long", `{"` + strings.Repeat("a", 40) + `": {"command": "x"}}`, "must be 1 to 33"},
		{"unknown protocol", `{"gh": {"command": "x", "protocol": "2026"}}`, `mcpServers.gh: protocol "2026" is not one of "auto", "modern", "legacy"`},
		{"unknown field", `{"gh": {"command": "x", "autoApprove": []}}`, `mcpServers.gh: json: unknown field "autoApprove"`},
		{"stdio with a url", `{"gh": {"command": "x", "url": "http://127.0.0.1/"}}`, "mcpServers.gh: url, headers and bearer_token_env are for http servers"},
		{"two authorizations", `{"gh": {"url": "http://127.0.0.1/", "headers": {"authorization": "Bearer x"}, "bearer_token_env": "T"}}`, "both set the Authorization header"},
		{"not an object", `["gh"]`, "mcpServers: json: cannot unmarshal"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			if err := os.WriteFile(filepath.Join(home, FileName), []byte(`{"mcpServers": `+c.servers+`}`), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := Load(env(map[string]string{"STEWARD_HOME": home}))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Load = %v, want an error saying %q", err, c.want)
			}
		})
	}
}
