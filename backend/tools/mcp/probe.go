package mcp

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"steward/backend/event"
	"steward/backend/tool"
)

// ServerView is a configured server as the settings screen shows it: what
// it runs or reaches, and the names (never the values) of the environment
// variables and headers it is given, which may carry credentials.
type ServerView struct {
	Name string `json:"name"`
	// Prefix starts the name of each of its tools (mcp__<server>__); an
	// agent names them all with Prefix and "*".
	Prefix  string   `json:"prefix"`
	Type    string   `json:"type"` // stdio, http or sse
	Command string   `json:"command,omitempty"`
	Args    []string `json:"args,omitempty"`
	Cwd     string   `json:"cwd,omitempty"`
	URL     string   `json:"url,omitempty"`
	// Env and Headers are the names the configuration sets.
	Env            []string `json:"env,omitempty"`
	Headers        []string `json:"headers,omitempty"`
	BearerTokenEnv string   `json:"bearer_token_env,omitempty"`
	Protocol       string   `json:"protocol"` // auto, modern or legacy
	Trusted        bool     `json:"trusted"`
	// Disabled servers offer no tools.
	Disabled bool `json:"disabled"`
	// Keys are the declared key arguments, by tool (Server.Keys).
	Keys map[string]string `json:"keys,omitempty"`
	// SandboxNetwork says whether a stdio server has the network when the
	// command sandbox confines it.
	SandboxNetwork event.SandboxNetwork `json:"sandbox_network,omitempty"`
	// Legacy says a server of protocol auto was found to need initialize
	// (it exits on server/discover): its sessions start so.
	Legacy bool `json:"legacy"`
	// Shared: one session serves every run (Server.Shared).
	Shared bool `json:"shared,omitempty"`
	// Sessions is how many runs hold a session with it now (a shared
	// server's one session counts once).
	Sessions int `json:"sessions"`
	// Status is what last became of it in a run (none before its first
	// call since Steward started); Log the end of its stderr across its
	// sessions, secrets redacted.
	Status *ServerStatus `json:"status,omitempty"`
	Log    string        `json:"log,omitempty"`
}

// Servers describes the configured servers, by name.
func (m *Manager) Servers() []ServerView {
	m.mu.Lock()
	out := make([]ServerView, 0, len(m.servers))
	for _, name := range sortedNames(m.servers) {
		s := m.servers[name]
		v := ServerView{Name: name, Prefix: Prefix(name), Type: s.transport(), Command: s.Command, Args: s.Args, Cwd: s.Cwd, URL: s.URL,
			Env: sortedNames(s.Env), Headers: sortedNames(s.Headers), BearerTokenEnv: s.BearerTokenEnv,
			Protocol: s.protocol(), Trusted: s.Trusted, Disabled: s.Disabled, Keys: s.Keys, SandboxNetwork: s.SandboxNetwork, Shared: s.Shared, Legacy: m.legacy[name]}
		for _, byServer := range m.runs {
			if c := byServer[name]; c != nil && c.open() {
				v.Sessions++
			}
		}
		if st, ok := m.status[name]; ok {
			v.Status = &st
		}
		out = append(out, v)
	}
	m.mu.Unlock()
	for i := range out { // redacting asks m for its secrets
		out[i].Log = m.shownLog(out[i].Name)
	}
	return out
}

// open reports whether c holds a session now. It does not wait for a
// session being opened.
func (c *conn) open() bool {
	if !c.mu.TryLock() {
		return true // connecting: it holds one in a moment, or fails
	}
	defer c.mu.Unlock()
	return c.ss != nil
}

// ErrUnknownServer is returned by Test for a name no server has.
var ErrUnknownServer = errors.New("no such MCP server")

// ConnectionTest is what connecting to a server found: the era it speaks and
// its tools as Steward offers them, or the error that stopped it, with the
// end of a stdio server's stderr either way.
type ConnectionTest struct {
	Server string `json:"server"`
	OK     bool   `json:"ok"`
	// Error says why the server could not be reached or listed.
	Error string `json:"error,omitempty"`
	// Era is the protocol version of the session.
	Era    string     `json:"era,omitempty"`
	Tools  []ToolView `json:"tools"`
	Stderr string     `json:"stderr,omitempty"`
	Millis int64      `json:"millis"`
}

// ToolView is one tool of a server: Steward's name for it, the server's
// words and annotations (claims of the server), and the risk Steward
// gives it, which follows the annotations only for a trusted server.
type ToolView struct {
	Name        string       `json:"name"`
	Remote      string       `json:"remote"`
	Title       string       `json:"title,omitempty"`
	Description string       `json:"description,omitempty"`
	Annotations *Annotations `json:"annotations,omitempty"`
	Risk        tool.Risk    `json:"risk"`
	// Problem says why the tool is not offered (its name or its input
	// schema cannot be used); empty when it is.
	Problem string `json:"problem,omitempty"`
}

// Annotations are a tool's hints as its server gives them; an absent
// destructiveHint or openWorldHint means true, as the specification reads
// them.
type Annotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    bool   `json:"readOnlyHint"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  bool   `json:"idempotentHint"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

func annotations(a *sdk.ToolAnnotations) *Annotations {
	if a == nil {
		return nil
	}
	return &Annotations{Title: a.Title, ReadOnlyHint: a.ReadOnlyHint, DestructiveHint: a.DestructiveHint,
		IdempotentHint: a.IdempotentHint, OpenWorldHint: a.OpenWorldHint}
}

// Test connects to server name on a session of its own, as a run's first
// call would, lists its tools and closes the session. A server that cannot
// be reached is a result with its error, not an error: only an unknown name
// is.
func (m *Manager) Test(ctx context.Context, name string) (res ConnectionTest, err error) {
	s, ok := m.server(name)
	if !ok {
		return ConnectionTest{}, fmt.Errorf("%w: %q", ErrUnknownServer, name)
	}
	start := time.Now()
	res = ConnectionTest{Server: name, Tools: []ToolView{}}
	// The named result, so that every return carries the time taken.
	defer func() { res.Millis = time.Since(start).Milliseconds() }()
	cs, err := m.connect(ctx, name, m.o.ListIn)
	if err != nil {
		res.Error = err.Error()
		return res, nil
	}
	res.Era = cs.InitializeResult().ProtocolVersion
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			res.Error = fmt.Sprintf("MCP server %s: list tools: %v", name, err)
			break
		}
		v := ToolView{Remote: t.Name, Title: t.Title, Description: description(t), Annotations: annotations(t.Annotations),
			Risk: risk(s, t.Annotations)}
		if n, err := ToolName(name, t.Name); err != nil {
			v.Problem = err.Error()
		} else {
			v.Name = n
			if _, err := inputSchema(t); err != nil {
				v.Problem = "its input schema is not valid: " + err.Error()
			}
		}
		res.Tools = append(res.Tools, v)
	}
	sort.Slice(res.Tools, func(i, j int) bool { return res.Tools[i].Remote < res.Tools[j].Remote })
	res.Stderr = cs.tail.text()
	if err := cs.close(); err != nil && res.Error == "" {
		res.Error = fmt.Sprintf("MCP server %s: close: %v", name, err)
	}
	res.OK = res.Error == ""
	return res, nil
}

// text is what the tail holds, or "" for a nil one.
func (t *stderrTail) text() string {
	if t == nil {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
