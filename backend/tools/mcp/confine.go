package mcp

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"

	"steward/backend/event"
	"steward/backend/sandbox"
	"steward/backend/tool"
)

// confine makes cmd, server name's program (s, its variables expanded),
// run in the command sandbox when the run it is started for (in) has
// sandbox settings that confine its commands on this machine: in
// bubblewrap, as run_command's commands run, with the run's workspace
// writable and the rest of the machine read-only, the person's credentials
// and Steward's data hidden, a PID namespace of its own, and no network
// unless the server's sandbox_network is on. It runs in its cwd, or in the
// workspace. A sandbox on for the agent that cannot work here refuses to
// start the server; mode off, or auto where the sandbox cannot work, or no
// run (a listing or a test of the person's own server), leaves it as the
// person's configuration says.
//
// Where the program lives in /tmp (or /var/tmp), which the sandbox gives
// a private, empty one of, its top folder there is seen read-only, and so
// is that of any absolute path among its arguments: a server installed in
// a checkout under /tmp, or a test's binary, still starts. A secret stays
// hidden whoever names it (sandbox.Command.ReadOnly).
func (m *Manager) confine(name string, s Server, cmd *exec.Cmd, in *tool.Env) (bool, error) {
	if m.o.Sandbox == nil || in == nil || in.Workspace == "" {
		return false, nil
	}
	if cmd.Err != nil {
		return false, nil // the program is not there: it fails to start, as it would unconfined
	}
	st := m.o.Sandbox.State(in.Sandbox)
	switch {
	case st.Refused:
		return false, fmt.Errorf("MCP server %s was not started: the sandbox is on for this agent, and it cannot work on this machine: %s", name, st.Reason)
	case !st.Confined:
		return false, nil
	}
	dir := cmd.Dir
	if dir == "" {
		dir = in.Workspace
	}
	program := cmd.Path // exec.Command looked it up on PATH
	if !filepath.IsAbs(program) {
		program = filepath.Join(dir, program) // relative to the folder it runs in
	}
	var shown []string
	for _, p := range append([]string{program, dir}, s.Args...) {
		if top := tmpTop(p); top != "" {
			shown = append(shown, top)
		}
	}
	boxed, err := m.o.Sandbox.Wrap(sandbox.Command{Path: program, Args: s.Args, Dir: dir, Env: cmd.Env, Workspace: in.Workspace,
		Network: s.SandboxNetwork == event.NetworkOn, ReadOnly: shown, DieWithParent: true})
	if err != nil {
		return false, fmt.Errorf("MCP server %s was not started in the sandbox: %w", name, err)
	}
	cmd.Path, cmd.Args, cmd.Env, cmd.Dir = boxed.Path, append([]string{boxed.Path}, boxed.Args...), boxed.Env, ""
	cmd.Err = nil // the lookup of the program was exec.Command's; bwrap is found
	return true, nil
}

// tmpTop is the top folder of p in /tmp or /var/tmp ("/tmp/ci-clone" for
// "/tmp/ci-clone/node_modules/x/index.js"), or "" for a path elsewhere or
// none at all.
func tmpTop(p string) string {
	if !filepath.IsAbs(p) {
		return ""
	}
	p = filepath.Clean(p)
	for _, root := range []string{"/tmp/", "/var/tmp/"} {
		if rest, ok := strings.CutPrefix(p, root); ok && rest != "" {
			first, _, _ := strings.Cut(rest, "/")
			return root + first
		}
	}
	return ""
}
