package mcp

import (
	"io"
	"time"

	"steward/backend/event"
	"steward/backend/tool"
)

// maxServerLog is how much of each server's stderr the Manager keeps for
// Settings → MCP servers, across its sessions: the end of what it said.
const maxServerLog = 16 << 10

// maxShownLog is how much of it a view carries.
const maxShownLog = 4 << 10

// ServerStatus is what last became of a server in any run: connected,
// crashed, restarted or failed, when, and why.
type ServerStatus struct {
	State  event.MCPServerState `json:"state"`
	At     int64                `json:"at"` // unix ms
	Reason string               `json:"reason,omitempty"`
	// Run is the run whose call met it.
	Run string `json:"run,omitempty"`
}

// report reports d to env's run and keeps it as the server's status.
func (m *Manager) report(env tool.Env, d event.MCPServerData) {
	m.mu.Lock()
	m.status[d.Server] = ServerStatus{State: d.State, At: time.Now().UnixMilli(), Reason: d.Reason, Run: env.RunID}
	m.mu.Unlock()
	env.ReportServer(d)
}

// serverLog returns the log of server name's stderr, made when missing.
func (m *Manager) serverLog(name string) io.Writer {
	m.mu.Lock()
	defer m.mu.Unlock()
	l := m.logs[name]
	if l == nil {
		l = &stderrTail{max: maxServerLog}
		m.logs[name] = l
	}
	return l
}

// shownLog is the end of server name's log, secrets redacted, for its
// view. m.mu must not be held.
func (m *Manager) shownLog(name string) string {
	m.mu.Lock()
	l := m.logs[name]
	m.mu.Unlock()
	if l == nil {
		return ""
	}
	return m.scrub(l.last(maxShownLog))
}
