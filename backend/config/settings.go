package config

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"steward/backend/fault"
	"steward/backend/llm/anthropic"
	"steward/backend/llm/openai"
	"steward/backend/tools/mcp"
)

// ErrInvalid is wrapped by every refused settings change.
var ErrInvalid = fault.New(fault.Invalid, "invalid settings")

// Settings reads and changes what the settings screens show: the model
// providers (base URL, model, API key) and the price table, saved in
// config.json in the data directory (mode 0600: it may hold keys). A
// change applies to the runs started after it. Environment variables win
// over the file, as at start-up; a value one of them fixes cannot be
// changed here.
type Settings struct {
	path    string
	getenv  func(string) string
	models  *Models
	prices  *Prices
	servers []string // local servers to probe

	mu    sync.Mutex // one read-modify-write of the file at a time
	onMCP func(map[string]mcp.Server)
}

// NewSettings returns the settings of cfg's data directory, applying
// changes to models and prices.
func NewSettings(cfg Config, getenv func(string) string, models *Models, prices *Prices) *Settings {
	return &Settings{path: filepath.Join(cfg.Home, FileName), getenv: getenv, models: models, prices: prices, servers: localServers}
}

// SettingsView is the settings as the screens show them.
type SettingsView struct {
	ConfigFile   string         `json:"config_file"`
	Providers    []ProviderView `json:"providers"`
	LocalServers []LocalServer  `json:"local_servers"`
	Prices       []PriceView    `json:"prices"`
}

// ProviderName names a provider whose settings can be changed.
type ProviderName string

// ProviderNames lists them, from the table of providers.
func ProviderNames() []ProviderName {
	out := make([]ProviderName, len(providers))
	for i, p := range providers {
		out[i] = ProviderName(p.name)
	}
	return out
}

// KeySource says where a provider's key comes from: the environment, the
// config file, or nowhere ("").
type KeySource string

// Key sources.
const (
	KeyFromEnv KeySource = "env"
	KeyStored  KeySource = "stored"
	KeyNone    KeySource = ""
)

// KeySources lists the key sources.
var KeySources = []KeySource{KeyFromEnv, KeyStored, KeyNone}

// PriceSource says where a price comes from: the defaults or the config file.
type PriceSource string

// Price sources.
const (
	PriceDefault PriceSource = "default"
	PriceConfig  PriceSource = "config"
)

// PriceSources lists the price sources.
var PriceSources = []PriceSource{PriceDefault, PriceConfig}

// ProviderView is one provider's settings; the key is never included.
type ProviderView struct {
	Name           ProviderName `json:"name"`
	Label          string       `json:"label"`
	BaseURL        string       `json:"base_url"`
	Model          string       `json:"model"`
	DefaultBaseURL string       `json:"default_base_url"`
	DefaultModel   string       `json:"default_model"`
	BaseURLEnv     string       `json:"base_url_env,omitempty"`
	ModelEnv       string       `json:"model_env,omitempty"`
	Key            KeyView      `json:"key"`
	Active         bool         `json:"active"`
}

// KeyView says whether a key is set and where from, with a hint of it.
type KeyView struct {
	Set    bool      `json:"set"`
	Source KeySource `json:"source"`
	EnvVar string    `json:"env_var"`
	Hint   string    `json:"hint,omitempty"`
}

// LocalServer is a well-known local model server, probed.
type LocalServer struct {
	BaseURL string   `json:"base_url"`
	Found   bool     `json:"found"`
	Models  []string `json:"models"`
}

// PriceView is one row of the price table.
type PriceView struct {
	Model string `json:"model"`
	Price
	Source PriceSource `json:"source"`
}

// ProviderInput changes a provider: nil fields stay, "" clears.
type ProviderInput struct {
	BaseURL  *string `json:"base_url,omitempty"`
	Model    *string `json:"model,omitempty"`
	APIKey   string  `json:"api_key,omitempty"`
	ClearKey bool    `json:"clear_key,omitempty"`
}

// provider describes one provider's place in the file and the environment.
type provider struct {
	name, label, keyEnv, baseEnv string
	modelEnvs                    []string
	defaultBase, defaultModel    string
	fields                       func(f *file) (key, base, model *string)
}

var providers = []provider{
	{name: "openai", label: "OpenAI and compatible servers (Ollama, llama.cpp, vLLM, LM Studio, OpenRouter)",
		keyEnv: "OPENAI_API_KEY", baseEnv: "OPENAI_BASE_URL", modelEnvs: []string{"STEWARD_MODEL", "OPENAI_MODEL"},
		defaultBase: openai.DefaultBaseURL, defaultModel: DefaultOpenAIModel,
		fields: func(f *file) (*string, *string, *string) { return &f.OpenAI.APIKey, &f.OpenAI.BaseURL, &f.OpenAI.Model }},
	{name: "anthropic", label: "Anthropic", keyEnv: "ANTHROPIC_API_KEY", baseEnv: "ANTHROPIC_BASE_URL", modelEnvs: []string{"ANTHROPIC_MODEL"},
		defaultBase: anthropic.DefaultBaseURL, defaultModel: DefaultAnthropicModel,
		fields: func(f *file) (*string, *string, *string) {
			return &f.Anthropic.APIKey, &f.Anthropic.BaseURL, &f.Anthropic.Model
		}},
}

func lookup(name string) (provider, error) {
	for _, p := range providers {
		if p.name == name {
			return p, nil
		}
	}
	return provider{}, fmt.Errorf("%w: provider %q is not one of openai, anthropic", ErrInvalid, name)
}

// read returns the file's content; a missing file is empty.
func (s *Settings) read() (file, error) {
	var f file
	b, err := os.ReadFile(s.path)
	if errors.Is(err, os.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return f, fmt.Errorf("read %s: %w", s.path, err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return f, fmt.Errorf("config %s: %w", s.path, err)
	}
	return f, nil
}

// write saves f whole, mode 0600, through a temporary file renamed over
// the old one: a crash leaves the old settings or the new, never half.
func (s *Settings) write(f file) error {
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fmt.Errorf("save settings: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(s.path), ".config-*.json")
	if err != nil {
		return fmt.Errorf("save settings: %w", err)
	}
	_, err = tmp.Write(append(b, '\n'))
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), s.path) // CreateTemp made it 0600
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("save settings: %w", err)
	}
	return nil
}

// effective returns a provider's key, base URL and model: the file's,
// where the environment sets none.
func (s *Settings) effective(p provider, f file) (key, base, model string, keyEnv, baseEnv, modelEnv bool) {
	k, b, m := p.fields(&f)
	key, base, model = *k, *b, *m
	if v := s.getenv(p.keyEnv); v != "" {
		key, keyEnv = v, true
	}
	if v := s.getenv(p.baseEnv); v != "" {
		base, baseEnv = v, true
	}
	for _, e := range p.modelEnvs {
		if v := s.getenv(e); v != "" {
			model, modelEnv = v, true
			break
		}
	}
	return
}

// modelEnv names the variable that sets p's model, if one does.
func (s *Settings) modelEnv(p provider) string {
	for _, e := range p.modelEnvs {
		if s.getenv(e) != "" {
			return e
		}
	}
	return ""
}

// View returns the settings, probing the local servers.
func (s *Settings) View(ctx context.Context) (SettingsView, error) {
	s.mu.Lock()
	f, err := s.read()
	s.mu.Unlock()
	if err != nil {
		return SettingsView{}, err
	}
	active, _, _ := s.models.Describe(ctx)
	v := SettingsView{ConfigFile: s.path}
	for _, p := range providers {
		key, base, model, keyEnv, baseEnv, _ := s.effective(p, f)
		pv := ProviderView{Name: ProviderName(p.name), Label: p.label, BaseURL: base, Model: model, DefaultBaseURL: p.defaultBase,
			DefaultModel: p.defaultModel, ModelEnv: s.modelEnv(p), Key: KeyView{EnvVar: p.keyEnv}, Active: active == p.name}
		if baseEnv {
			pv.BaseURLEnv = p.baseEnv
		}
		if key != "" {
			pv.Key.Set, pv.Key.Source, pv.Key.Hint = true, KeyStored, hint(key)
			if keyEnv {
				pv.Key.Source = KeyFromEnv
			}
		}
		v.Providers = append(v.Providers, pv)
	}
	v.LocalServers = probe(ctx, s.servers)
	for model, price := range DefaultPrices {
		if _, ok := f.Prices[model]; !ok {
			v.Prices = append(v.Prices, PriceView{Model: model, Price: price, Source: PriceDefault})
		}
	}
	for model, price := range f.Prices {
		v.Prices = append(v.Prices, PriceView{Model: model, Price: price, Source: PriceConfig})
	}
	slices.SortFunc(v.Prices, func(a, b PriceView) int { return strings.Compare(a.Model, b.Model) })
	return v, nil
}

// hint shows enough of a key to recognise it, never enough to use it.
func hint(key string) string {
	if len(key) < 12 {
		return "…" + key[max(len(key)-2, 0):]
	}
	prefix := ""
	if i := strings.IndexByte(key, '-'); i > 0 && i <= 6 {
		prefix = key[:i+1]
	}
	return prefix + "…" + key[len(key)-4:]
}

// SetProvider changes a provider's saved settings.
func (s *Settings) SetProvider(ctx context.Context, name string, in ProviderInput) error {
	p, err := lookup(name)
	if err != nil {
		return err
	}
	switch {
	case in.APIKey != "" && in.ClearKey:
		return fmt.Errorf("%w: give api_key or clear_key, not both", ErrInvalid)
	case in.BaseURL != nil && s.getenv(p.baseEnv) != "":
		return fmt.Errorf("%w: %s is set in Steward's environment, which wins over the settings: unset it to change the base URL here", ErrInvalid, p.baseEnv)
	case in.Model != nil && s.modelEnv(p) != "":
		return fmt.Errorf("%w: %s is set in Steward's environment, which wins over the settings: unset it to change the model here", ErrInvalid, s.modelEnv(p))
	case (in.APIKey != "" || in.ClearKey) && s.getenv(p.keyEnv) != "":
		return fmt.Errorf("%w: %s is set in Steward's environment, which wins over the settings: unset it to change the key here", ErrInvalid, p.keyEnv)
	case in.BaseURL != nil && *in.BaseURL != "" && !strings.HasPrefix(*in.BaseURL, "http://") && !strings.HasPrefix(*in.BaseURL, "https://"):
		return fmt.Errorf("%w: base_url %q must start with http:// or https://", ErrInvalid, *in.BaseURL)
	case strings.ContainsAny(in.APIKey, " \t\r\n"):
		return fmt.Errorf("%w: api_key holds white space: paste the key alone", ErrInvalid)
	case in.Model != nil && strings.ContainsAny(*in.Model, " \t\r\n"):
		return fmt.Errorf("%w: model %q holds white space", ErrInvalid, *in.Model)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.read()
	if err != nil {
		return err
	}
	key, base, model := p.fields(&f)
	if in.BaseURL != nil {
		*base = strings.TrimSpace(*in.BaseURL)
	}
	if in.Model != nil {
		*model = *in.Model
	}
	switch {
	case in.APIKey != "":
		*key = in.APIKey
	case in.ClearKey:
		*key = ""
	}
	if err := s.write(f); err != nil {
		return err
	}
	s.apply(f)
	return nil
}

// apply puts the file's providers, under the environment, into force.
func (s *Settings) apply(f file) {
	var o OpenAI
	var a Anthropic
	o.APIKey, o.BaseURL, o.Model, _, _, _ = s.effective(providers[0], f)
	a.APIKey, a.BaseURL, a.Model, _, _, _ = s.effective(providers[1], f)
	s.models.SetProviders(o, a)
}

// SetPrices replaces the configured prices.
func (s *Settings) SetPrices(ctx context.Context, prices map[string]Price) error {
	if err := checkPrices(prices); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.read()
	if err != nil {
		return err
	}
	f.Prices = prices
	if len(prices) == 0 {
		f.Prices = nil
	}
	if err := s.write(f); err != nil {
		return err
	}
	s.prices.Set(prices)
	return nil
}
