package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strings"

	"steward/backend/event"
)

// Transports a server's "type" may name. A server without a type is stdio
// when it has a command and http when it has a url, as Claude Desktop,
// Claude Code and Cursor read their files.
const (
	TypeStdio = "stdio"
	TypeHTTP  = "http"
	// TypeSSE is the deprecated HTTP+SSE transport (protocol 2024-11-05),
	// which old servers still speak: "type": "sse", as Claude Code names it.
	TypeSSE = "sse"
)

// Server is one entry of config.json's "mcpServers", in the shape Claude
// Desktop, Claude Code and Cursor use, so that a person can paste theirs.
// Only this machine's person writes it: it names programs to run.
type Server struct {
	Type string `json:"type,omitempty"`
	// stdio: the program, its arguments, what it adds to the environment
	// and the directory it runs in (empty: Steward's).
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Cwd     string            `json:"cwd,omitempty"`
	// http (and sse): the endpoint and the headers sent with every
	// request.
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// BearerTokenEnv names the environment variable whose value is sent as
	// "Authorization: Bearer ..." (http and sse only). The token is read when the
	// server is reached, and never written to an event or a log.
	BearerTokenEnv string `json:"bearer_token_env,omitempty"`
	// Protocol is the era the server is asked in: auto (the default:
	// 2026-07-28's server/discover first, then initialize), modern
	// (2026-07-28 only) or legacy (initialize, 2025-11-25 and before).
	Protocol string `json:"protocol,omitempty"`
	// Trusted lets the server's tool annotations decide their risk; an
	// untrusted server's tools ask in every mode but auto (risk.go).
	Trusted bool `json:"trusted,omitempty"`
	// Disabled keeps the server configured but offers none of its tools
	// (as Cline and Cursor read "disabled").
	Disabled bool `json:"disabled,omitempty"`
	// Keys declares, by the server's name of a tool ("*" for every tool),
	// the argument whose value is the call's key: rules match their
	// "match" against it, and "approve always" is granted for it, as the
	// browser tools' page host ({"create_issue": "repo"}: a rule
	// {"tool": "mcp__github__*", "match": "myorg/*"} holds for myorg's
	// repositories only). Without one, rules match the arguments' JSON.
	Keys map[string]string `json:"keys,omitempty"`
	// SandboxNetwork (stdio) gives the server the network when it runs in
	// the command sandbox (a run whose agent's sandbox confines it): off,
	// the default, leaves it its own loopback only.
	SandboxNetwork event.SandboxNetwork `json:"sandbox_network,omitempty"`
	// Shared makes one session with the server serve every run, kept
	// until Steward stops or the entry changes, for a server that is safe
	// to share (one run's state may reach another's through it): by
	// default each run has its own. A shared stdio server is no run's: it
	// is confined in a folder of its own (Options.SharedDir), not in a
	// run's workspace (confine.go).
	Shared bool `json:"shared,omitempty"`
}

// Protocol settings (Server.Protocol).
const (
	ProtocolAuto   = "auto"
	ProtocolModern = "modern"
	ProtocolLegacy = "legacy"
)

func (s Server) protocol() string {
	if s.Protocol == "" {
		return ProtocolAuto
	}
	return s.Protocol
}

// transport is the server's transport, its type or the one its fields
// imply.
func (s Server) transport() string {
	switch {
	case s.Type != "":
		return s.Type
	case s.URL != "" && s.Command == "":
		return TypeHTTP
	}
	return TypeStdio
}

// nameRE is what a server's name may be: it becomes part of tool names,
// which providers take as ^[a-zA-Z0-9_-]{1,64}$. A double underscore is
// the separator of mcp__<server>__<tool>, so a name may not hold one, nor
// start or end with an underscore, or two servers' tools could share
// names.
var nameRE = regexp.MustCompile(`^[A-Za-z0-9-]+(_[A-Za-z0-9-]+)*$`)

// maxServerName leaves room in a 64-character tool name for the tool's own
// name of at least 24 characters.
const maxServerName = 64 - len(namePrefix) - len(nameSep) - 24

// ParseServers reads config.json's "mcpServers" object (raw empty: none)
// and checks every entry, so a bad one fails at load with an error naming
// the server and the field.
func ParseServers(raw json.RawMessage) (map[string]Server, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil, nil
	}
	var entries map[string]json.RawMessage
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, fmt.Errorf("mcpServers: %w (expected {\"name\": {\"command\": ..., \"args\": [...]}} or {\"name\": {\"type\": \"http\", \"url\": ...}})", err)
	}
	names := make([]string, 0, len(entries))
	for n := range entries {
		names = append(names, n)
	}
	sort.Strings(names) // the first bad entry is the same one every time
	out := make(map[string]Server, len(entries))
	for _, name := range names {
		var s Server
		dec := json.NewDecoder(bytes.NewReader(entries[name]))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&s); err != nil {
			return nil, fmt.Errorf("mcpServers.%s: %w", name, err)
		}
		if err := s.check(name); err != nil {
			return nil, fmt.Errorf("mcpServers.%s: %w", name, err)
		}
		out[name] = s
	}
	return out, nil
}

// checkURL checks an http or sse server's url (a stdio server has none).
func (s Server) checkURL() error {
	if s.transport() == TypeStdio {
		return nil
	}
	u, err := url.Parse(s.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("url %q must be an http:// or https:// address", s.URL)
	}
	return nil
}

func (s Server) check(name string) error {
	if !nameRE.MatchString(name) || len(name) > maxServerName {
		return fmt.Errorf("the name %q must be 1 to %d letters, digits, '-' or single '_' between them: it becomes part of tool names (mcp__<server>__<tool>)", name, maxServerName)
	}
	switch s.protocol() {
	case ProtocolAuto, ProtocolModern, ProtocolLegacy:
	default:
		return fmt.Errorf("protocol %q is not one of %q, %q, %q", s.Protocol, ProtocolAuto, ProtocolModern, ProtocolLegacy)
	}
	for tool, arg := range s.Keys {
		if tool == "" || strings.TrimSpace(arg) == "" {
			return fmt.Errorf("keys: %q: %q must name a tool (or \"*\") and one of its arguments", tool, arg)
		}
	}
	switch s.transport() {
	case TypeStdio:
		if strings.TrimSpace(s.Command) == "" {
			return fmt.Errorf("command is missing: a stdio server needs the program to run")
		}
		if s.URL != "" || len(s.Headers) > 0 || s.BearerTokenEnv != "" {
			return fmt.Errorf("url, headers and bearer_token_env are for http servers, and this one is stdio")
		}
	case TypeHTTP, TypeSSE:
		if s.URL == "" {
			return fmt.Errorf("url is missing: an %s server needs its endpoint", s.transport())
		}
		if !varRE.MatchString(s.URL) { // else checked once expanded
			if err := s.checkURL(); err != nil {
				return err
			}
		}
		if s.Command != "" || len(s.Args) > 0 || len(s.Env) > 0 || s.Cwd != "" {
			return fmt.Errorf("command, args, env and cwd are for stdio servers, and this one is %s", s.transport())
		}
		for k := range s.Headers {
			if strings.EqualFold(k, "Authorization") && s.BearerTokenEnv != "" {
				return fmt.Errorf("headers.Authorization and bearer_token_env both set the Authorization header")
			}
		}
	default:
		return fmt.Errorf("type %q is not one of %q, %q, %q", s.Type, TypeStdio, TypeHTTP, TypeSSE)
	}
	switch s.SandboxNetwork {
	case "", event.NetworkOff, event.NetworkOn:
	default:
		return fmt.Errorf("sandbox_network %q is not %q or %q", s.SandboxNetwork, event.NetworkOff, event.NetworkOn)
	}
	if s.SandboxNetwork != "" && s.transport() != TypeStdio {
		return fmt.Errorf("sandbox_network is for stdio servers, which the sandbox confines; this one is %s", s.transport())
	}
	return nil
}
