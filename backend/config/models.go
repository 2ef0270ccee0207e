package config

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	"steward/backend/agent"
	"steward/backend/llm/anthropic"
	"steward/backend/llm/openai"
	"steward/backend/llm/script"
	"steward/backend/run"
)

// Default models when none is named.
const (
	DefaultOpenAIModel    = "gpt-4o-mini"
	DefaultAnthropicModel = "claude-sonnet-4-5"
)

// demoChunkDelay paces the demo script so a person sees text stream in.
const demoChunkDelay = 25 * time.Millisecond

// localServers are OpenAI-compatible servers that "auto" agents look for on
// loopback when no key is configured: Ollama and LM Studio, whose default
// ports are distinctive enough to probe without guessing wrong.
var localServers = []string{"http://127.0.0.1:11434/v1/", "http://127.0.0.1:1234/v1/"}

// Models resolves agents to providers. It implements run.Models.
type Models struct {
	cfg Config // its OpenAI and Anthropic are read under mu: the settings change them

	mu sync.RWMutex
	// ChunkDelay paces the demo script; tests set it to zero.
	ChunkDelay time.Duration

	servers []string // base URLs to probe, localServers outside tests
	once    sync.Once
	local   *localServer
}

type localServer struct{ baseURL, model string }

var _ run.Models = (*Models)(nil)

// NewModels returns a resolver for cfg.
func NewModels(cfg Config) *Models {
	return &Models{cfg: cfg, ChunkDelay: cfg.DemoDelay, servers: localServers}
}

// providers returns the provider settings in force.
func (m *Models) providers() (OpenAI, Anthropic) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.cfg.OpenAI, m.cfg.Anthropic
}

// SetProviders changes the provider settings for the runs started after.
func (m *Models) SetProviders(o OpenAI, a Anthropic) {
	m.mu.Lock()
	m.cfg.OpenAI, m.cfg.Anthropic = o, a
	m.mu.Unlock()
}

// Secrets returns the provider keys in force, for the redaction of what
// leaves the machine (exports).
func (m *Models) Secrets() []string {
	o, a := m.providers()
	var out []string
	for _, k := range []string{o.APIKey, a.APIKey} {
		if k != "" {
			out = append(out, k)
		}
	}
	return out
}

// Resolve picks the provider of a.
func (m *Models) Resolve(ctx context.Context, a agent.Agent) (run.Model, error) {
	oc, ac := m.providers()
	switch a.Provider {
	case agent.ProviderScript:
		return m.script(a)
	case agent.ProviderOpenAI:
		o := oc
		if a.BaseURL != "" {
			o.BaseURL = a.BaseURL
		}
		if !o.Configured() {
			return run.Model{}, fmt.Errorf("provider openai needs OPENAI_API_KEY or a base_url (for Ollama, llama.cpp, vLLM, LM Studio)")
		}
		return m.openai(o, a.Model), nil
	case agent.ProviderAnthropic:
		if !ac.Configured() {
			return run.Model{}, fmt.Errorf("provider anthropic needs ANTHROPIC_API_KEY")
		}
		return m.anthropic(ac, a), nil
	case agent.ProviderAuto:
		if a.BaseURL == "" && !oc.Configured() && ac.Configured() {
			return m.anthropic(ac, a), nil
		}
		if a.BaseURL != "" || oc.Configured() {
			o := oc
			if a.BaseURL != "" {
				o.BaseURL = a.BaseURL
			}
			return m.openai(o, a.Model), nil
		}
		if ls := m.discover(ctx); ls != nil {
			model := a.Model
			if model == "" {
				model = ls.model
			}
			return m.openai(OpenAI{BaseURL: ls.baseURL}, model), nil
		}
		return m.script(a)
	}
	return run.Model{}, fmt.Errorf("unknown provider %q", a.Provider)
}

// Describe says what "auto" resolves to, for the UI and `steward serve`.
func (m *Models) Describe(ctx context.Context) (provider string, demo bool, note string) {
	oc, ac := m.providers()
	switch {
	case !oc.Configured() && ac.Configured():
		return "anthropic", false, "Agents set to auto use Anthropic."
	case oc.Configured():
		base := oc.BaseURL
		if base == "" {
			base = openai.DefaultBaseURL
		}
		return "openai", false, "Agents set to auto use the OpenAI-compatible server at " + base + "."
	}
	if ls := m.discover(ctx); ls != nil {
		return "openai", false, "Agents set to auto use the local model server at " + ls.baseURL + " (model " + ls.model + ")."
	}
	return "script", true, "No model is configured (no OPENAI_API_KEY or OPENAI_BASE_URL, no local model server found): agents set to auto play the built-in demo script, which calls no model."
}

func (m *Models) openai(o OpenAI, model string) run.Model {
	if model == "" {
		model = o.Model
	}
	if model == "" {
		model = DefaultOpenAIModel
	}
	p := openai.New(openai.Config{APIKey: o.APIKey, BaseURL: o.BaseURL, Model: model})
	return run.Model{Provider: p, Name: agent.ProviderOpenAI, Model: model}
}

func (m *Models) anthropic(c Anthropic, a agent.Agent) run.Model {
	if a.BaseURL != "" {
		c.BaseURL = a.BaseURL
	}
	model := a.Model
	if model == "" {
		model = c.Model
	}
	if model == "" {
		model = DefaultAnthropicModel
	}
	p := anthropic.New(anthropic.Config{APIKey: c.APIKey, BaseURL: c.BaseURL, Model: model})
	return run.Model{Provider: p, Name: agent.ProviderAnthropic, Model: model}
}

func (m *Models) script(a agent.Agent) (run.Model, error) {
	name := a.Script
	if name == "" || name == "demo" {
		s := script.Demo()
		return run.Model{Provider: script.New(s, script.Options{ChunkDelay: m.ChunkDelay}), Name: agent.ProviderScript, Model: "demo-script", Demo: true}, nil
	}
	s, err := script.Load(name)
	if err != nil {
		return run.Model{}, err
	}
	model := s.Model
	if model == "" {
		model = "script"
	}
	return run.Model{Provider: script.New(s, script.Options{}), Name: agent.ProviderScript, Model: model}, nil
}

// discover probes the well-known local servers once per process.
func (m *Models) discover(ctx context.Context) *localServer {
	if !m.cfg.Discover {
		return nil
	}
	m.once.Do(func() {
		client := &http.Client{Timeout: 400 * time.Millisecond}
		for _, base := range m.servers {
			req, err := http.NewRequestWithContext(context.WithoutCancel(ctx), http.MethodGet, base+"models", nil)
			if err != nil {
				continue
			}
			resp, err := client.Do(req)
			if err != nil {
				continue
			}
			var body struct {
				Data []struct {
					ID string `json:"id"`
				} `json:"data"`
			}
			err = json.NewDecoder(resp.Body).Decode(&body)
			resp.Body.Close()
			if err == nil && resp.StatusCode == http.StatusOK && len(body.Data) > 0 {
				m.local = &localServer{baseURL: base, model: body.Data[0].ID}
				return
			}
		}
	})
	return m.local
}
