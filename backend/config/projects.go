package config

import (
	"context"
	"fmt"
	"regexp"

	"steward/backend/fault"
	"steward/backend/tools/mcp"
)

// ErrProjectChanged is wrapped when an approval names a digest that is no
// longer the file's: it changed after the person read it.
var ErrProjectChanged = fault.New(fault.Conflict, "the file changed")

// sha256RE is a digest as Project.SHA256 spells it.
var sha256RE = regexp.MustCompile(`^[0-9a-f]{64}$`)

// ProjectApproval returns the digest of workspace's .mcp.json the person
// approved, or "" when they approved none. workspace is the canonical
// absolute path (workspace.Root.Path).
func (s *Settings) ProjectApproval(workspace string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.read()
	if err != nil {
		return "" // an unreadable config approves nothing
	}
	return f.MCPProjects[workspace]
}

// ProjectView describes workspace's .mcp.json for the person's review.
func (s *Settings) ProjectView(workspace string) (mcp.ProjectView, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.read()
	if err != nil {
		return mcp.ProjectView{}, err
	}
	person, err := mcp.ParseServers(f.MCPServers)
	if err != nil {
		return mcp.ProjectView{}, fmt.Errorf("config %s: %w", s.path, err)
	}
	return mcp.ViewProject(workspace, person, f.MCPProjects[workspace]), nil
}

// ApproveProject records the person's approval of workspace's .mcp.json
// as its digest is now, which must be sha256, the digest they were shown:
// a file that changed since is not approved (ErrProjectChanged).
func (s *Settings) ApproveProject(ctx context.Context, workspace, sha256 string) (mcp.ProjectView, error) {
	if _, err := s.approveProject(workspace, sha256); err != nil {
		return mcp.ProjectView{}, err
	}
	return s.ProjectView(workspace)
}

func (s *Settings) approveProject(workspace, sha256 string) (mcp.Project, error) {
	if !sha256RE.MatchString(sha256) {
		return mcp.Project{}, fmt.Errorf("%w: sha256 %q is not the hex SHA-256 of a .mcp.json", ErrInvalid, sha256)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.read()
	if err != nil {
		return mcp.Project{}, err
	}
	person, err := mcp.ParseServers(f.MCPServers)
	if err != nil {
		return mcp.Project{}, fmt.Errorf("config %s: %w", s.path, err)
	}
	p, found, err := mcp.ReadProject(workspace, person)
	switch {
	case !found:
		return p, fmt.Errorf("%w: %s has no %s", ErrInvalid, workspace, mcp.ProjectFile)
	case err != nil:
		return p, fmt.Errorf("%w: %v", ErrInvalid, err)
	case p.SHA256 != sha256:
		return p, fmt.Errorf("%w: %s is not the file you were shown (its SHA-256 is now %s): read it again", ErrProjectChanged, p.Path, p.SHA256)
	}
	if f.MCPProjects == nil {
		f.MCPProjects = map[string]string{}
	}
	f.MCPProjects[workspace] = sha256
	return p, s.write(f)
}

// RevokeProject takes back the approval of workspace's .mcp.json: runs
// started after are offered none of its servers.
func (s *Settings) RevokeProject(ctx context.Context, workspace string) (mcp.ProjectView, error) {
	if err := s.revokeProject(workspace); err != nil {
		return mcp.ProjectView{}, err
	}
	return s.ProjectView(workspace)
}

func (s *Settings) revokeProject(workspace string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.read()
	if err != nil {
		return err
	}
	if _, ok := f.MCPProjects[workspace]; !ok {
		return nil
	}
	delete(f.MCPProjects, workspace)
	return s.write(f)
}
