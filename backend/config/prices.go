package config

import (
	"bytes"
	"encoding/json"
	"fmt"
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

// PricesInput replaces the configured prices, as a person sends it: every
// model named with both of its rates. {"prices": {}} clears the configured
// prices; a body without prices, or with null, is a mistake and clears
// nothing.
type PricesInput struct {
	Prices map[string]PriceInput `json:"prices"`
}

// PriceInput is one price as a person sends it. Both rates must be given (0
// is a rate; a missing one is a mistake, never taken for 0); the cached rate
// may be left out.
type PriceInput struct {
	Price
	missing []string // the required fields the JSON lacked (or all, for null)
}

// UnmarshalJSON reads a price, noting the rates it lacks; unknown fields are
// refused, as everywhere in a request.
func (p *PriceInput) UnmarshalJSON(b []byte) error {
	var raw struct {
		Input       *float64 `json:"input_per_mtok"`
		Output      *float64 `json:"output_per_mtok"`
		CachedInput *float64 `json:"cached_input_per_mtok"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return err
	}
	*p = PriceInput{}
	for _, f := range []struct {
		name string
		v    *float64
		to   *float64
	}{{"input_per_mtok", raw.Input, &p.Input}, {"output_per_mtok", raw.Output, &p.Output}, {"cached_input_per_mtok", raw.CachedInput, &p.CachedInput}} {
		switch {
		case f.v != nil:
			*f.to = *f.v
		case f.name != "cached_input_per_mtok":
			p.missing = append(p.missing, f.name)
		}
	}
	return nil
}

// Table returns the prices in checks them: errors wrap ErrInvalid and name
// the field (prices.MODEL.output_per_mtok).
func (in PricesInput) Table() (map[string]Price, error) {
	if in.Prices == nil {
		return nil, fmt.Errorf(`%w: prices is missing or null: send {"prices": {MODEL: {"input_per_mtok": N, "output_per_mtok": N}}}, or {"prices": {}} to clear the configured prices`, ErrInvalid)
	}
	out := make(map[string]Price, len(in.Prices))
	for model, p := range in.Prices {
		if len(p.missing) > 0 {
			return nil, fmt.Errorf("%w: prices.%s.%s is required: a number of US dollars per million tokens, 0 or more", ErrInvalid, model, p.missing[0])
		}
		out[model] = p.Price
	}
	return out, checkPrices(out)
}

// checkPrices checks a table of prices, from a request or config.json.
func checkPrices(prices map[string]Price) error {
	for model, p := range prices {
		switch {
		case strings.TrimSpace(model) == "":
			return fmt.Errorf("%w: a price has no model name", ErrInvalid)
		case p.Input < 0 || p.Output < 0 || p.CachedInput < 0:
			return fmt.Errorf("%w: prices.%s: prices cannot be negative", ErrInvalid, model)
		}
	}
	return nil
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
