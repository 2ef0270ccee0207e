package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
)

// Source offers tools that the registry cannot know at start-up: an MCP
// server's, which only the server itself can list. The registry lists a
// source the first time a name it owns is looked up, not before, so a
// process whose agents name no such tool never starts the server.
type Source interface {
	// Prefix starts the name of every tool of the source and of no other
	// tool ("mcp__github__").
	Prefix() string
	// Tools lists the source's tools; it may start a program or reach a
	// server. An error means none could be listed.
	Tools(ctx context.Context) ([]Tool, error)
}

// Pattern is the agent's name for every tool of the source whose prefix
// is prefix ("mcp__github__*").
func Pattern(prefix string) string { return prefix + "*" }

// Uses reports whether an agent whose tools are names (exact names, or a
// source's Pattern) may call the tool named name.
func Uses(names []string, name string) bool {
	for _, n := range names {
		if n == name || (strings.HasSuffix(n, "*") && strings.HasPrefix(name, strings.TrimSuffix(n, "*"))) {
			return true
		}
	}
	return false
}

// SourceTimeout bounds the listing of a source's tools.
const SourceTimeout = 30 * time.Second

// sourceRetry is how long a failed listing stands before a look-up tries
// again: a broken server is not started again at every model call.
const sourceRetry = 30 * time.Second

// source is a registered Source and what its listing found.
type source struct {
	src Source
	mu  sync.Mutex // held while listing: one listing at a time
	// tools is nil until a listing succeeds; then it stays (a server's
	// tools are fixed for the process: its configuration is).
	tools    map[string]entry
	failedAt time.Time
	err      error
}

// AddSource adds s. Its prefix must not start the name of a registered
// tool or overlap another source's.
func (r *Registry) AddSource(s Source) error {
	p := s.Prefix()
	if p == "" {
		return fmt.Errorf("add source: empty prefix")
	}
	for name := range r.tools {
		if strings.HasPrefix(name, p) {
			return fmt.Errorf("add source %s: %w: tool %s has its prefix", p, ErrDuplicate, name)
		}
	}
	if r.parent != nil {
		if op := r.parent.overlap(p); op != "" {
			return fmt.Errorf("add source %s: %w: source %s of the registry it layers overlaps it", p, ErrDuplicate, op)
		}
	}
	r.srcMu.Lock()
	defer r.srcMu.Unlock()
	if op := r.overlapLocked(p); op != "" {
		return fmt.Errorf("add source %s: %w: source %s overlaps it", p, ErrDuplicate, op)
	}
	r.sources = append(r.sources, &source{src: s})
	return nil
}

// overlap returns the prefix of a source of r (or of its parent's) that
// starts p or that p starts, or "" when none does.
func (r *Registry) overlap(p string) string {
	if r.parent != nil {
		if op := r.parent.overlap(p); op != "" {
			return op
		}
	}
	r.srcMu.RLock()
	defer r.srcMu.RUnlock()
	return r.overlapLocked(p)
}

func (r *Registry) overlapLocked(p string) string {
	for _, o := range r.sources {
		if op := o.src.Prefix(); strings.HasPrefix(op, p) || strings.HasPrefix(p, op) {
			return op
		}
	}
	return ""
}

// RemoveSource removes the source of prefix p, and with it what its
// listing found, reporting whether there was one. A call already under way
// on one of its tools goes on; later look-ups do not find them.
func (r *Registry) RemoveSource(p string) bool {
	r.srcMu.Lock()
	defer r.srcMu.Unlock()
	for i, o := range r.sources {
		if o.src.Prefix() == p {
			r.sources = append(r.sources[:i:i], r.sources[i+1:]...)
			return true
		}
	}
	return false
}

// Known reports whether name is a registered tool, a name a source owns or
// a source's Pattern, without listing any source: agent validation uses it,
// and saving an agent must not start a server.
func (r *Registry) Known(name string) bool {
	if _, ok := r.tools[name]; ok {
		return true
	}
	return r.owner(strings.TrimSuffix(name, "*")) != nil
}

func (r *Registry) owner(name string) *source {
	if r.parent != nil {
		// The parent's sources first: one it gained after the layer was
		// made hides the layer's of the same prefix.
		if s := r.parent.owner(name); s != nil {
			return s
		}
	}
	r.srcMu.RLock()
	defer r.srcMu.RUnlock()
	for _, s := range r.sources {
		if strings.HasPrefix(name, s.src.Prefix()) {
			return s
		}
	}
	return nil
}

// lookup finds the named tool among the registered ones and, listing it
// if need be, in the source that owns the name.
func (r *Registry) lookup(name string) (entry, bool) {
	if e, ok := r.tools[name]; ok {
		return e, true
	}
	s := r.owner(name)
	if s == nil {
		return entry{}, false
	}
	tools, _ := s.list()
	e, ok := tools[name]
	return e, ok
}

// list returns the source's tools, listing them the first time and again
// after a failure once sourceRetry has passed.
func (s *source) list() (map[string]entry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tools != nil {
		return s.tools, nil
	}
	if s.err != nil && time.Since(s.failedAt) < sourceRetry {
		return nil, s.err
	}
	ctx, cancel := context.WithTimeout(context.Background(), SourceTimeout)
	defer cancel()
	tools, err := s.src.Tools(ctx)
	if err == nil {
		s.tools, err = entries(s.src.Prefix(), tools)
	}
	if err != nil {
		s.tools, s.err, s.failedAt = nil, err, time.Now()
		return nil, err
	}
	return s.tools, nil
}

// entries resolves the schemas of a source's tools, as Register does.
func entries(prefix string, tools []Tool) (map[string]entry, error) {
	out := make(map[string]entry, len(tools))
	for _, t := range tools {
		spec := t.Spec()
		if !strings.HasPrefix(spec.Name, prefix) {
			return nil, fmt.Errorf("source %s: tool %s lacks its prefix", prefix, spec.Name)
		}
		if _, dup := out[spec.Name]; dup {
			return nil, fmt.Errorf("source %s: tool %s: %w", prefix, spec.Name, ErrDuplicate)
		}
		rs, err := resolve(spec)
		if err != nil {
			return nil, err
		}
		out[spec.Name] = entry{tool: t, schema: rs}
	}
	return out, nil
}

func resolve(spec Spec) (*jsonschema.Resolved, error) {
	rs, err := resolveSchema(spec.Schema)
	if err != nil {
		return nil, fmt.Errorf("register %s: %w", spec.Name, err)
	}
	return rs, nil
}

// CheckSchema returns the error the registry would refuse schema with, as
// a tool's arguments schema: a source leaves such a tool out, saying why.
func CheckSchema(schema json.RawMessage) error {
	_, err := resolveSchema(schema)
	return err
}

func resolveSchema(schema json.RawMessage) (*jsonschema.Resolved, error) {
	var s jsonschema.Schema
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("resolve schema: %w", err)
	}
	return rs, nil
}

// expand returns the names a pattern stands for (a source's tools, listed
// if need be), or name itself when it is not a pattern.
func (r *Registry) expand(name string) []string {
	if !strings.HasSuffix(name, "*") {
		return []string{name}
	}
	s := r.owner(strings.TrimSuffix(name, "*"))
	if s == nil || Pattern(s.src.Prefix()) != name {
		return nil
	}
	tools, _ := s.list()
	out := make([]string, 0, len(tools))
	for n := range tools {
		out = append(out, n)
	}
	return out
}
