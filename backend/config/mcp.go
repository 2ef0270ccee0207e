package config

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"steward/backend/fault"
	"steward/backend/tools/mcp"
)

// ErrNoMCPServer is wrapped when a change names a server config.json lacks.
var ErrNoMCPServer = fault.New(fault.NotFound, "no such MCP server")

// MCPState is the part of a server's entry the settings screen toggles
// without seeing the rest (whose env and headers may hold secrets): absent
// fields stay as they are.
type MCPState struct {
	Disabled *bool `json:"disabled,omitempty"`
	Trusted  *bool `json:"trusted,omitempty"`
}

// OnMCPServers sets what is told config.json's servers after each change
// of them here, checked: the composition root applies them to the running
// MCP client, so that a change needs no restart.
func (s *Settings) OnMCPServers(f func(map[string]mcp.Server)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.onMCP = f
}

// PutMCPServer adds server name to config.json's mcpServers, or replaces
// it, with entry as pasted from another app ({"command": ..., "args": [...]}
// or {"type": "http", "url": ...}). Every entry is checked as at start-up
// first: a bad one changes nothing and the error names the field.
func (s *Settings) PutMCPServer(ctx context.Context, name string, entry json.RawMessage) error {
	return s.editMCP(func(entries map[string]json.RawMessage) error {
		if len(bytes.TrimSpace(entry)) == 0 || bytes.TrimSpace(entry)[0] != '{' {
			return fmt.Errorf("%w: mcpServers.%s must be an object: {\"command\": ..., \"args\": [...]} or {\"type\": \"http\", \"url\": ...}", ErrInvalid, name)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, entry); err != nil {
			return fmt.Errorf("%w: mcpServers.%s: %v", ErrInvalid, name, err)
		}
		kept, err := keepSaved(name, compact.Bytes(), entries[name])
		if err != nil {
			return err
		}
		entries[name] = kept
		return nil
	})
}

// keepSaved fills in the env and headers values an edit leaves null with
// the values saved in old: a surface shows the names of those values,
// never the values (they are often secrets), so an edit says "keep" for
// each it does not change. A null with no saved value is an error naming
// it.
func keepSaved(name string, entry, old json.RawMessage) (json.RawMessage, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(entry, &fields); err != nil {
		return nil, fmt.Errorf("%w: mcpServers.%s: %v", ErrInvalid, name, err)
	}
	var saved map[string]json.RawMessage
	if len(old) > 0 {
		_ = json.Unmarshal(old, &saved) // a saved entry was checked when it was saved
	}
	changed := false
	for _, key := range []string{"env", "headers"} {
		raw, ok := fields[key]
		if !ok {
			continue
		}
		var values map[string]*string
		if err := json.Unmarshal(raw, &values); err != nil {
			return nil, fmt.Errorf("%w: mcpServers.%s.%s must be an object of strings: %v", ErrInvalid, name, key, err)
		}
		var before map[string]string
		if b, ok := saved[key]; ok {
			_ = json.Unmarshal(b, &before)
		}
		for k, v := range values {
			if v != nil {
				continue
			}
			prev, ok := before[k]
			if !ok {
				return nil, fmt.Errorf("%w: mcpServers.%s.%s.%s is null, which keeps the saved value, and none is saved: give its value", ErrInvalid, name, key, k)
			}
			values[k], changed = &prev, true
		}
		b, err := json.Marshal(values)
		if err != nil {
			return nil, err
		}
		fields[key] = b
	}
	if !changed {
		return entry, nil
	}
	return json.Marshal(fields)
}

// RemoveMCPServer removes server name from config.json's mcpServers.
func (s *Settings) RemoveMCPServer(ctx context.Context, name string) error {
	return s.editMCP(func(entries map[string]json.RawMessage) error {
		if _, ok := entries[name]; !ok {
			return fmt.Errorf("%w: %q is not in config.json's mcpServers", ErrNoMCPServer, name)
		}
		delete(entries, name)
		return nil
	})
}

// SetMCPState sets the disabled and trusted flags of server name, keeping
// the rest of its entry as it is.
func (s *Settings) SetMCPState(ctx context.Context, name string, st MCPState) error {
	return s.editMCP(func(entries map[string]json.RawMessage) error {
		raw, ok := entries[name]
		if !ok {
			return fmt.Errorf("%w: %q is not in config.json's mcpServers", ErrNoMCPServer, name)
		}
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(raw, &fields); err != nil {
			return fmt.Errorf("%w: mcpServers.%s: %v", ErrInvalid, name, err)
		}
		set := func(key string, v *bool) {
			switch {
			case v == nil:
			case *v:
				fields[key] = json.RawMessage("true")
			default:
				delete(fields, key) // false is the default: the entry stays as pasted
			}
		}
		set("disabled", st.Disabled)
		set("trusted", st.Trusted)
		b, err := json.Marshal(fields)
		if err != nil {
			return err
		}
		entries[name] = b
		return nil
	})
}

// editMCP applies edit to config.json's mcpServers entries, checks them
// all, saves the file and tells onMCP; on any error nothing is written.
func (s *Settings) editMCP(edit func(map[string]json.RawMessage) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.read()
	if err != nil {
		return err
	}
	entries := map[string]json.RawMessage{}
	if t := bytes.TrimSpace(f.MCPServers); len(t) > 0 && string(t) != "null" {
		if err := json.Unmarshal(t, &entries); err != nil {
			return fmt.Errorf("config %s: mcpServers: %w", s.path, err)
		}
	}
	if err := edit(entries); err != nil {
		return err
	}
	raw, err := json.Marshal(entries)
	if err != nil {
		return err
	}
	servers, err := mcp.ParseServers(raw)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	f.MCPServers = raw
	if err := s.write(f); err != nil {
		return err
	}
	if s.onMCP != nil {
		s.onMCP(servers)
	}
	return nil
}
