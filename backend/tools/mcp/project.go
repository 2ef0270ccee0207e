package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"steward/backend/event"
)

// ProjectFile is the project-scoped MCP configuration at a workspace's
// root, as Claude Code and Cursor read it: {"mcpServers": {...}}, entries
// in the shape of config.json's.
//
// A repository can ship a hostile one: a program to run, a URL to send the
// person's tokens to. So its servers are offered only once the person has
// approved the file as it is (its SHA-256, kept on this machine, never in
// the workspace), and again after every change; a project server never
// takes the name of one of the person's, is never trusted (its tools ask
// in every mode but auto, whatever their annotations say), and runs in the
// workspace.
const ProjectFile = ".mcp.json"

// maxProjectFile bounds what is read of a .mcp.json.
const maxProjectFile = 256 << 10

// Project is a workspace's .mcp.json, read and checked.
type Project struct {
	// Path is the file's absolute path; SHA256 the hex digest of its
	// bytes, which is what the person approves.
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	// Servers are the file's servers that may be offered, in its shape,
	// each one's cwd resolved in the workspace.
	Servers map[string]Server `json:"servers"`
	// Refused are the file's servers that never are, and why.
	Refused []event.ProjectRefusal `json:"refused,omitempty"`
	// Reads are the environment variables of this machine the file asks
	// for (${VAR}, bearer_token_env), sorted: the person sees them before
	// approving, since their values go to the servers.
	Reads []string `json:"reads,omitempty"`
}

// projectShape is the file: mcpServers, and whatever else another app
// keeps there, which Steward does not read.
type projectShape struct {
	MCPServers json.RawMessage `json:"mcpServers"`
}

// ReadProject reads the .mcp.json at workspace's root (found is false when
// there is none) and checks it: a file that cannot be used is an error
// naming it and what is wrong. A server named as one of person's (the
// servers of config.json) is refused, never shadowing theirs.
func ReadProject(workspace string, person map[string]Server) (p Project, found bool, err error) {
	p.Path = filepath.Join(workspace, ProjectFile)
	raw, err := readProjectFile(workspace)
	if errors.Is(err, fs.ErrNotExist) {
		return p, false, nil
	}
	if err != nil {
		return p, true, fmt.Errorf("%s: %w", p.Path, err)
	}
	sum := sha256.Sum256(raw)
	p.SHA256 = hex.EncodeToString(sum[:])
	var shape projectShape
	if err := json.Unmarshal(raw, &shape); err != nil {
		return p, true, fmt.Errorf("%s: %w (expected {\"mcpServers\": {\"name\": {\"command\": ..., \"args\": [...]}}})", p.Path, err)
	}
	servers, err := ParseServers(shape.MCPServers)
	if err != nil {
		return p, true, fmt.Errorf("%s: %w", p.Path, err)
	}
	p.Servers = map[string]Server{}
	reads := map[string]bool{}
	for _, name := range sortedNames(servers) {
		s := servers[name]
		if s.Trusted {
			return p, true, fmt.Errorf("%s: mcpServers.%s: trusted is this machine's setting, not a project's: a project server is never trusted", p.Path, name)
		}
		if len(s.Keys) > 0 {
			return p, true, fmt.Errorf("%s: mcpServers.%s: keys decide what your rules match, a setting of this machine's, not a project's", p.Path, name)
		}
		if s.Shared {
			return p, true, fmt.Errorf("%s: mcpServers.%s: shared lets one run's state reach another's, a setting of this machine's, not a project's", p.Path, name)
		}
		if mine, ok := personal(person, name); ok {
			p.Refused = append(p.Refused, event.ProjectRefusal{Name: name, Reason: fmt.Sprintf("your server %s (config.json) has this name: a project cannot take its place", mine)})
			continue
		}
		if s.transport() == TypeStdio {
			cwd, err := projectCwd(workspace, s.Cwd)
			if err != nil {
				return p, true, fmt.Errorf("%s: mcpServers.%s: %w", p.Path, name, err)
			}
			s.Cwd = cwd
		}
		for _, v := range s.reads() {
			reads[v] = true
		}
		p.Servers[name] = s
	}
	p.Reads = slices.Sorted(func(yield func(string) bool) {
		for v := range reads {
			if !yield(v) {
				return
			}
		}
	})
	return p, true, nil
}

// readProjectFile reads the file through an *os.Root of the workspace, so a
// link out of the workspace is refused; it must be a regular file of at
// most maxProjectFile bytes.
func readProjectFile(workspace string) ([]byte, error) {
	root, err := os.OpenRoot(workspace)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	f, err := root.Open(ProjectFile)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file")
	}
	b, err := io.ReadAll(io.LimitReader(f, maxProjectFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxProjectFile {
		return nil, fmt.Errorf("larger than %d KiB", maxProjectFile>>10)
	}
	return b, nil
}

// projectCwd is where a project's stdio server runs: the workspace, or a
// folder in it that the entry names relative to it.
func projectCwd(workspace, cwd string) (string, error) {
	if cwd == "" {
		return workspace, nil
	}
	if varRE.MatchString(cwd) || !filepath.IsLocal(filepath.FromSlash(cwd)) {
		return "", fmt.Errorf("cwd %q must be a folder of the workspace, relative to it", cwd)
	}
	return filepath.Join(workspace, filepath.FromSlash(cwd)), nil
}

// reads returns the environment variables s asks for.
func (s Server) reads() []string {
	var out []string
	add := func(v string) {
		for _, m := range varRE.FindAllStringSubmatch(v, -1) {
			out = append(out, m[1])
		}
	}
	add(s.Command)
	add(s.Cwd)
	add(s.URL)
	for _, a := range s.Args {
		add(a)
	}
	for _, v := range s.Env {
		add(v)
	}
	for _, v := range s.Headers {
		add(v)
	}
	if s.BearerTokenEnv != "" {
		out = append(out, s.BearerTokenEnv)
	}
	return out
}

// State says what the person's approval (the digest they approved in this
// workspace, "" for none) makes of p.
func (p Project) State(approved string) event.ProjectState {
	switch {
	case approved == "":
		return event.ProjectUnapproved
	case approved != p.SHA256:
		return event.ProjectChanged
	}
	return event.ProjectApproved
}

// personal returns the name of person's server that name is taken for, as
// a person reading a list (or a model) would take it: case aside.
func personal(person map[string]Server, name string) (string, bool) {
	for mine := range person {
		if strings.EqualFold(mine, name) {
			return mine, true
		}
	}
	return "", false
}

// ProjectView is a workspace's .mcp.json as the person reviews it before
// approving: every server as the file has it (what it would run or reach,
// and with what), what is refused, and what it reads of this machine.
type ProjectView struct {
	Workspace string             `json:"workspace"`
	File      string             `json:"file"`
	State     event.ProjectState `json:"state"`
	// SHA256 is the file's digest: an approval names it, so a file that
	// changed after the person read it is not approved.
	SHA256  string                 `json:"sha256,omitempty"`
	Servers []ProjectServer        `json:"servers"`
	Refused []event.ProjectRefusal `json:"refused,omitempty"`
	Reads   []string               `json:"reads,omitempty"`
	Error   string                 `json:"error,omitempty"`
}

// ProjectServer is one server of a project's file.
type ProjectServer struct {
	Name   string `json:"name"`
	Prefix string `json:"prefix"`
	Type   string `json:"type"` // stdio, http or sse
	// Entry is the server's entry as the file has it, its cwd resolved.
	Entry Server `json:"entry"`
}

// ViewProject describes workspace's .mcp.json for review, given the
// digest the person approved there ("" for none).
func ViewProject(workspace string, person map[string]Server, approved string) ProjectView {
	p, found, err := ReadProject(workspace, person)
	v := ProjectView{Workspace: workspace, File: p.Path, SHA256: p.SHA256, Servers: []ProjectServer{}, Refused: p.Refused, Reads: p.Reads}
	switch {
	case !found:
		v.State = event.ProjectNone
	case err != nil:
		v.State, v.Error = event.ProjectInvalid, err.Error()
	default:
		v.State = p.State(approved)
	}
	for _, name := range sortedNames(p.Servers) {
		s := p.Servers[name]
		v.Servers = append(v.Servers, ProjectServer{Name: name, Prefix: Prefix(name), Type: s.transport(), Entry: s})
	}
	return v
}
