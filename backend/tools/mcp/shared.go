package mcp

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"steward/backend/tool"
)

// sharedRun holds the sessions of shared servers (Server.Shared) in
// Manager.runs, beside the runs' own: no run's id has a NUL in it.
const sharedRun = "\x00shared"

// sharedDir is the folder of shared server name, made if need be: the one
// it may write when the sandbox confines it.
func (m *Manager) sharedDir(name string) (string, error) {
	base := m.o.SharedDir
	if base == "" {
		base = filepath.Join(os.TempDir(), fmt.Sprintf("steward-mcp-shared-%d", os.Getuid()))
	}
	dir := filepath.Join(base, name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("MCP server %s is shared, and its folder cannot be made: %w", name, err)
	}
	// Under the system's temporary directory another user may have made
	// it first, or a link: the folder must be this user's own.
	fi, err := os.Lstat(dir)
	if err != nil {
		return "", fmt.Errorf("MCP server %s is shared: its folder: %w", name, err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || (ok && int(st.Uid) != os.Getuid()) || fi.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("MCP server %s is shared, and its folder %s is not a folder of this user's alone (%s): it is not started", name, dir, fi.Mode())
	}
	return dir, nil
}

// mayShare refuses a run the shared session ss with server name when the
// run's sandbox confines its commands and the server runs outside the
// sandbox (a run whose sandbox is off started it): the run would reach
// an unconfined program through it.
func (m *Manager) mayShare(env tool.Env, name string, ss *session) error {
	s, _ := m.server(name)
	if !s.Shared || ss.cmd == nil || ss.confined || m.o.Sandbox == nil || env.Workspace == "" {
		return nil
	}
	if st := m.o.Sandbox.State(env.Sandbox); st.Confined || st.Refused {
		return fmt.Errorf("MCP server %s is shared, and runs outside the sandbox (a run whose sandbox is off started it); "+
			"this run's sandbox confines its commands, so it cannot use it until the server is started again confined", name)
	}
	return nil
}
