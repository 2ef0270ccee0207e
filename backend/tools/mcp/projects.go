package mcp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"

	"steward/backend/event"
	"steward/backend/sandbox"
	"steward/backend/tool"
)

// Projects gives runs the servers of their workspace's .mcp.json, once the
// person approved the file as it is (ProjectFile). Each run has a Manager
// of its own for them, made when the run starts (or resumes) and ended
// with it, so a project's servers never outlive the run nor reach another
// workspace's.
type Projects struct {
	o Options
	// person returns config.json's servers in force; approved the digest
	// of a workspace's file the person approved ("" for none).
	person   func() map[string]Server
	approved func(workspace string) string

	mu   sync.Mutex
	runs map[string]projectRun // run ID → its project servers
}

// NewProjects returns the project servers of runs; o.Servers is unused
// (each run's come from its workspace).
func NewProjects(o Options, person func() map[string]Server, approved func(workspace string) string) *Projects {
	o.Servers = nil
	return &Projects{o: o, person: person, approved: approved, runs: map[string]projectRun{}}
}

// ForRun reads the .mcp.json of run runID's workspace and, when the person
// approved it as it is, returns a layer of base with its servers' tools,
// the patterns that name them for the run's agent, and what the run's log
// records. Otherwise base is returned as it is, and the record says why
// no server is offered. Nothing is started here: a server starts at the
// run's first call of it.
//
// box are the run's sandbox settings: the project's stdio servers run in
// the command sandbox as the run's commands do, their listing too.
func (p *Projects) ForRun(base *tool.Registry, runID, workspace string, box sandbox.Settings) (*tool.Registry, []string, event.ProjectServers) {
	rec := event.ProjectServers{File: filepath.Join(workspace, ProjectFile)}
	proj, found, err := ReadProject(workspace, p.person())
	rec.SHA256 = proj.SHA256
	switch {
	case !found:
		rec.State = event.ProjectNone
		return base, nil, rec
	case err != nil:
		rec.State, rec.Error = event.ProjectInvalid, err.Error()
		return base, nil, rec
	}
	if rec.State = proj.State(p.approved(workspace)); rec.State != event.ProjectApproved {
		return base, nil, rec
	}
	rec.Refused = proj.Refused
	offered := map[string]Server{}
	for name, s := range proj.Servers {
		if !s.Disabled {
			offered[name] = s
		}
	}
	o := p.o
	o.Servers = offered
	o.ListIn = &tool.Env{RunID: runID, Workspace: workspace, Sandbox: box}
	m := New(o)
	layer := base.Layer()
	var patterns []string
	for _, name := range sortedNames(offered) {
		if err := layer.AddSource(&source{m: m, name: name}); err != nil {
			rec.Refused = append(rec.Refused, event.ProjectRefusal{Name: name, Reason: err.Error()})
			continue
		}
		rec.Servers = append(rec.Servers, name)
		patterns = append(patterns, Pattern(name))
	}
	run := projectRun{p: p, m: m, layer: layer}
	layer.AddRunEnder(run)
	p.mu.Lock()
	old, had := p.runs[runID]
	p.runs[runID] = run
	p.mu.Unlock()
	if had {
		_ = old.m.Close() // the run resumed here: what it had is gone
	}
	return layer, patterns, rec
}

// Layer returns the tools of run runID when it has project servers (the
// layer ForRun made), or nil: the inbox checks an approval's edited
// arguments against the schema of the tool the run calls.
func (p *Projects) Layer(runID string) *tool.Registry {
	p.mu.Lock()
	defer p.mu.Unlock()
	if r, ok := p.runs[runID]; ok {
		return r.layer
	}
	return nil
}

// projectRun is a run's project servers, ended with the run.
type projectRun struct {
	p     *Projects
	m     *Manager
	layer *tool.Registry
}

func (r projectRun) EndRun(ctx context.Context, env tool.Env) ([]tool.Artifact, error) {
	r.p.mu.Lock()
	if cur, ok := r.p.runs[env.RunID]; ok && cur.m == r.m {
		delete(r.p.runs, env.RunID)
	}
	r.p.mu.Unlock()
	if _, err := r.m.EndRun(ctx, env); err != nil {
		return nil, fmt.Errorf("project servers: %w", err)
	}
	return nil, nil
}

// Secrets returns the secrets of the project servers of the runs under
// way (see Manager.Secrets), for the redactor.
func (p *Projects) Secrets() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, r := range p.runs {
		out = append(out, r.m.Secrets()...)
	}
	return out
}

// Close stops the project servers of every run, at shutdown.
func (p *Projects) Close() error {
	p.mu.Lock()
	runs := p.runs
	p.runs = map[string]projectRun{}
	p.mu.Unlock()
	var errs []error
	for _, id := range sortedNames(runs) {
		errs = append(errs, runs[id].m.Close())
	}
	return errors.Join(errs...)
}
