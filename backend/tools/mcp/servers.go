package mcp

import (
	"errors"
	"fmt"
	"maps"
	"reflect"

	"steward/backend/tool"
)

// Registrar is where a Manager's sources go: the tool registry.
type Registrar interface {
	AddSource(tool.Source) error
	RemoveSource(prefix string) bool
}

// Register adds a source per enabled server to reg, and keeps reg for
// SetServers.
func (m *Manager) Register(reg Registrar) error {
	for _, src := range m.Sources() {
		if err := reg.AddSource(src); err != nil {
			return err
		}
	}
	m.mu.Lock()
	m.reg = reg
	m.mu.Unlock()
	return nil
}

// server is the configuration of server name in force.
func (m *Manager) server(name string) (Server, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.servers[name]
	return s, ok
}

// Configured returns the configured servers (config.json's, as last set),
// by name.
func (m *Manager) Configured() map[string]Server {
	m.mu.Lock()
	defer m.mu.Unlock()
	return maps.Clone(m.servers)
}

// SetServers makes servers the configured ones, as config.json says after
// a person's change: the tools of a server added or enabled are offered
// (listed when next named), those of one removed or disabled are not, and
// a changed server is listed again. A run's session with a server stays
// until the run ends: a change reaches a run's calls when the run opens
// its next session with the server; a shared server's session is closed. Errors name the servers whose sources
// could not be added; the others are in force.
func (m *Manager) SetServers(servers map[string]Server) error {
	var stale []*conn
	defer func() {
		// Closed once mu is free: a call starting the server holds the
		// conn's lock and reads the configuration.
		for _, c := range stale {
			if err := c.close(); err != nil {
				m.o.Logf("MCP server: close a shared session: %v", err)
			}
		}
	}()
	m.mu.Lock()
	defer m.mu.Unlock()
	var errs []error
	for _, name := range sortedNames(m.servers) {
		old := m.servers[name]
		now, ok := servers[name]
		if ok && reflect.DeepEqual(old, now) {
			continue
		}
		delete(m.legacy, name) // what was found is of the old configuration
		// A shared session is no run's, and no run's end closes it: it
		// ends with its entry, and the next call starts the server anew.
		if c := m.runs[sharedRun][name]; c != nil {
			stale = append(stale, c)
			delete(m.runs[sharedRun], name)
		}
		if m.reg != nil && !old.Disabled {
			m.reg.RemoveSource(Prefix(name))
		}
	}
	for _, name := range sortedNames(servers) {
		old, had := m.servers[name]
		now := servers[name]
		if had && reflect.DeepEqual(old, now) {
			continue
		}
		if m.reg != nil && !now.Disabled {
			if err := m.reg.AddSource(&source{m: m, name: name}); err != nil {
				errs = append(errs, fmt.Errorf("MCP server %s: %w", name, err))
			}
		}
	}
	m.servers = make(map[string]Server, len(servers))
	for k, v := range servers {
		m.servers[k] = v
	}
	return errors.Join(errs...)
}
