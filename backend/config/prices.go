package config

import (
	"strings"
	"sync"

	"steward/backend/llm"
)

// Price is what a model costs, in US dollars per million tokens.
type Price struct {
	Input       float64 `json:"input_per_mtok"`
	Output      float64 `json:"output_per_mtok"`
	CachedInput float64 `json:"cached_input_per_mtok,omitempty"`
}

// DefaultPrices are list prices of common models, used when config.json names
// none for a model. They change: set "prices" in config.json to correct them.
var DefaultPrices = map[string]Price{
	"gpt-4o-mini":       {Input: 0.15, Output: 0.60, CachedInput: 0.075},
	"gpt-4o":            {Input: 2.50, Output: 10.00, CachedInput: 1.25},
	"gpt-4.1":           {Input: 2.00, Output: 8.00, CachedInput: 0.50},
	"gpt-4.1-mini":      {Input: 0.40, Output: 1.60, CachedInput: 0.10},
	"gpt-4.1-nano":      {Input: 0.10, Output: 0.40, CachedInput: 0.025},
	"o4-mini":           {Input: 1.10, Output: 4.40, CachedInput: 0.275},
	"claude-sonnet-4-5": {Input: 3.00, Output: 15.00, CachedInput: 0.30},
	"claude-sonnet-4":   {Input: 3.00, Output: 15.00, CachedInput: 0.30},
	"claude-haiku-4-5":  {Input: 1.00, Output: 5.00, CachedInput: 0.10},
	"claude-opus-4-1":   {Input: 15.00, Output: 75.00, CachedInput: 1.50},
	"demo-script":       {},
}

// Prices prices model calls from the configured table, falling back to
// DefaultPrices. A model matches its own name or the longest name that is a
// prefix of it ("gpt-4o-mini-2024-07-18" is priced as "gpt-4o-mini").
type Prices struct {
	mu    sync.RWMutex
	table map[string]Price
}

// NewPrices merges the configured table over the defaults.
func NewPrices(configured map[string]Price) *Prices {
	p := &Prices{}
	p.Set(configured)
	return p
}

// Set replaces the configured table (the defaults stay underneath).
func (p *Prices) Set(configured map[string]Price) {
	t := make(map[string]Price, len(DefaultPrices)+len(configured))
	for k, v := range DefaultPrices {
		t[k] = v
	}
	for k, v := range configured {
		t[k] = v
	}
	p.mu.Lock()
	p.table = t
	p.mu.Unlock()
}

// Cost returns the price in US dollars of one call's usage, and whether the
// model has a price. Cached input tokens are part of the input tokens and
// cost the cached rate (the input rate when none is set).
func (p *Prices) Cost(model string, u llm.Usage) (float64, bool) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	price, ok := p.table[model]
	if !ok {
		best := ""
		for name := range p.table {
			if strings.HasPrefix(model, name) && len(name) > len(best) {
				best = name
			}
		}
		if best == "" {
			return 0, false
		}
		price = p.table[best]
	}
	cachedRate := price.CachedInput
	if cachedRate == 0 {
		cachedRate = price.Input
	}
	uncached := max(u.InputTokens-u.CachedTokens, 0)
	return (float64(uncached)*price.Input + float64(u.CachedTokens)*cachedRate + float64(u.OutputTokens)*price.Output) / 1e6, true
}
