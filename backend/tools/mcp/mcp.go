// Package mcp is Steward's client of MCP servers (the Model Context
// Protocol, through the official go-sdk): the servers of config.json's
// "mcpServers", reached over stdio (a program Steward starts), streamable
// HTTP or the deprecated HTTP+SSE transport, whose tools become Steward
// tools named mcp__<server>__<tool>. Sessions speak the 2026-07-28 era
// where the server does and 2025-11-25 (initialize) otherwise (connect.go).
//
// An MCP tool is not trusted more than a built-in one: it goes through the
// registry's argument validation (against the server's input schema),
// deadline and output cap, and through the engine's policy, approvals,
// grants and log. Its risk comes from the server's annotations only when
// the person marked the server trusted (risk.go).
//
// Lifecycle: nothing is started until a run's agent names a server's tools.
// The first look-up lists the server's tools on a short session of its own,
// closed at once, and the registry keeps the list for the process. Calls
// go through one session per run and server, opened at the run's first
// call of that server and closed when the run ends (EndRun), so one run's
// server state never leaks into another's. A call made in a run asks the
// server for progress, which becomes the call's tool.progress events
// (through tool.Env.Progress; progress.go). A server that cannot be started
// or stops during a call gives the model a tool error naming the server and
// what happened, and the next call of the run starts it again, after a
// backoff (lifecycle.go); a server that stopped between calls is started
// again at the next, and one that no longer answers after a call ran out
// of time is stopped and started again. The run's log says each of these
// (mcp.server events, through tool.Env.Server). A JSON-RPC error from a
// server (a protocol failure) is a tool error of its own code: a broken
// server never stops the run.
//
// The Manager's goroutines are the SDK's, one set per session; every
// session is closed by EndRun (or when its server stops), and the Manager
// waits for none of them after that.
package mcp

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"steward/backend/sandbox"
	"steward/backend/tool"
)

// Codes of model-visible failures of MCP tools.
const (
	// CodeToolError: the server's tool reported a failure (isError).
	CodeToolError = "mcp_tool_error"
	// CodeUnavailable: the server could not be started or reached, or it
	// stopped during the call.
	CodeUnavailable = "mcp_server_unavailable"
	// CodeProtocol: the server answered the call with a JSON-RPC error,
	// not a result: a fault of the server (or of Steward), never of the
	// model's arguments, which were checked against the schema first.
	CodeProtocol = "mcp_protocol_error"
)

// Options configure a Manager.
type Options struct {
	// Servers are config.json's mcpServers, checked by ParseServers.
	Servers map[string]Server
	// Getenv reads the environment variables a server's bearer_token_env
	// names; nil reads none.
	Getenv func(string) string
	// Logf logs what the model is not told (a listing that failed); nil
	// logs nothing. Bearer tokens are never passed to it.
	Logf func(format string, args ...any)
	// Version is Steward's, sent to servers as the client's.
	Version string
	// Sandbox confines the stdio servers started for a run whose sandbox
	// settings ask for it (confine.go); nil starts every one unconfined.
	Sandbox *sandbox.Sandbox
	// ListIn, when set, is the run the listing of the servers' tools is
	// for: a project's servers (Projects) are listed as confined as its
	// calls run. Unset, a listing starts the person's server unconfined,
	// as Test connection does.
	ListIn *tool.Env
	// SharedDir is where each shared stdio server has its folder
	// (SharedDir/<name>), the one it may write when the sandbox confines
	// it; empty: a folder under the system's temporary directory.
	SharedDir string
}

// Manager holds the configured servers and the sessions of the runs that
// use them. It is safe for concurrent use.
type Manager struct {
	o      Options
	client *sdk.Client

	mu sync.Mutex
	// servers are the configured servers, o.Servers at first, then what
	// SetServers was last given.
	servers map[string]Server
	reg     Registrar                   // where SetServers adds and removes sources; nil before Register
	runs    map[string]map[string]*conn // run ID → server → its session
	// legacy are the stdio servers of protocol auto found to exit on
	// server/discover: their sessions start with initialize.
	legacy map[string]bool
	// status is what last became of each server in a run, and logs the
	// end of each stdio server's stderr across its sessions (status.go).
	status map[string]ServerStatus
	logs   map[string]*stderrTail
	// watches are the calls in flight that asked for progress, by the
	// token they sent (progress.go); tokens counts the tokens given.
	watches map[string]*watch
	tokens  int64
	// asking are the calls in flight, for the questions their servers
	// ask (elicit.go).
	asking askings
}

var (
	_ tool.RunEnder = (*Manager)(nil)
	_ tool.Source   = (*source)(nil)
)

// New returns a Manager of o.Servers; it starts nothing.
func New(o Options) *Manager {
	if o.Getenv == nil {
		o.Getenv = func(string) string { return "" }
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	v := o.Version
	if v == "" {
		v = "dev"
	}
	// Elicitation, in both modes, is the one capability (elicit.go). Not
	// roots: the SDK's default claims them (with listChanged), Steward
	// keeps none, and servers act on the claim (the filesystem server asks
	// for them at start, server-everything offers a get-roots-list tool).
	// Not sampling: no handler is set. Progress is no capability: a call
	// asks for it with its token (progress.go).
	m := &Manager{o: o, servers: maps.Clone(o.Servers), runs: map[string]map[string]*conn{}, legacy: map[string]bool{},
		status: map[string]ServerStatus{}, logs: map[string]*stderrTail{}, watches: map[string]*watch{}}
	opts := &sdk.ClientOptions{
		Capabilities: &sdk.ClientCapabilities{Elicitation: &sdk.ElicitationCapabilities{
			Form: &sdk.FormElicitationCapabilities{}, URL: &sdk.URLElicitationCapabilities{}}},
		ProgressNotificationHandler: m.progress,
		ElicitationHandler:          m.elicit,
	}
	m.client = sdk.NewClient(&sdk.Implementation{Name: "steward", Version: v}, opts)
	return m
}

// Sources returns one tool source per server, for Registry.AddSource.
func (m *Manager) Sources() []tool.Source {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]tool.Source, 0, len(m.servers))
	for _, name := range sortedNames(m.servers) {
		if m.servers[name].Disabled {
			continue
		}
		out = append(out, &source{m: m, name: name})
	}
	return out
}

// Secrets returns the bearer tokens the servers are reached with, and the
// values of headers and env whose names say they carry one (Authorization,
// or a name with "token", "key" or "secret" in it), ${VAR}s expanded, for
// the redactor: none of them may reach an event or a log.
func (m *Manager) Secrets() []string {
	var out []string
	m.mu.Lock()
	servers := maps.Clone(m.servers)
	m.mu.Unlock()
	for name, s := range servers {
		if x, err := s.expanded(name, m.o.Getenv); err == nil {
			s = x // the values sent, once ${VAR}s are expanded
		}
		if s.BearerTokenEnv != "" {
			if v := m.o.Getenv(s.BearerTokenEnv); v != "" {
				out = append(out, v)
			}
		}
		for k, v := range s.Headers {
			if secretName(k) && v != "" {
				out = append(out, v)
				if tok, ok := strings.CutPrefix(v, "Bearer "); ok {
					out = append(out, tok)
				}
			}
		}
		for k, v := range s.Env {
			if secretName(k) && v != "" {
				out = append(out, v)
			}
		}
	}
	return out
}

// secretName reports whether a header's or an environment variable's name
// says its value is a credential.
func secretName(name string) bool {
	n := strings.ToLower(name)
	return n == "authorization" || strings.Contains(n, "token") || strings.Contains(n, "key") || strings.Contains(n, "secret")
}

// EndRun closes the sessions of env's run, stopping the servers it
// started. It implements tool.RunEnder.
func (m *Manager) EndRun(ctx context.Context, env tool.Env) ([]tool.Artifact, error) {
	m.mu.Lock()
	conns := m.runs[env.RunID]
	delete(m.runs, env.RunID)
	m.mu.Unlock()
	var errs []error
	for _, name := range sortedNames(conns) {
		if err := conns[name].close(); err != nil {
			errs = append(errs, fmt.Errorf("MCP server %s: close: %w", name, err))
		}
	}
	return nil, errors.Join(errs...)
}

// Close closes every run's sessions, stopping the servers they started:
// at shutdown, runs that stop without ending (to resume after a restart)
// leave theirs open.
func (m *Manager) Close() error {
	m.mu.Lock()
	runs := m.runs
	m.runs = map[string]map[string]*conn{}
	m.mu.Unlock()
	var errs []error
	for _, id := range sortedNames(runs) {
		for _, name := range sortedNames(runs[id]) {
			if err := runs[id][name].close(); err != nil {
				errs = append(errs, fmt.Errorf("MCP server %s: close: %w", name, err))
			}
		}
	}
	return errors.Join(errs...)
}
