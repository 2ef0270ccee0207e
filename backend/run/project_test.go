package run_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"steward/backend/event"
	"steward/backend/inbox"
	"steward/backend/run"
	"steward/backend/sandbox"
	"steward/backend/tool"
	"steward/backend/tools/mcp"
	"steward/backend/tools/mcp/mcptest"
)

// A run of an agent with project servers is offered the servers of its
// workspace's .mcp.json once the person approved the file as it is, and
// its run.created says so; a run after the file changed gets none, and
// says why. An agent without project servers never reads the file.
func TestProjectServersOfAnApprovedWorkspace(t *testing.T) {
	t.Parallel()
	rec := &recording{next: scripted(t, `{"turns": [
		{"tool_calls": [{"name": "mcp__proj__echo", "arguments": {"text": "from the project"}}]},
		{"text": "Done."}
	]}`)}
	h := newHarness(t, fixed(rec))
	fx := mcptest.Stdio(nil)
	file, err := json.Marshal(map[string]any{"mcpServers": map[string]mcp.Server{"proj": fx}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(h.ws, mcp.ProjectFile), file, 0o644); err != nil {
		t.Fatal(err)
	}
	p, _, err := mcp.ReadProject(h.ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	approved := p.SHA256
	projects := mcp.NewProjects(mcp.Options{Logf: t.Logf}, func() map[string]mcp.Server { return nil }, func(string) string { return approved })
	t.Cleanup(func() { _ = projects.Close() })
	// The inbox checks edited arguments against the run's own tools.
	var n atomic.Int64
	in := inbox.New(h.st, runTools{h.reg, projects}, func() string { return fmt.Sprintf("ia_p%d", n.Add(1)) })
	h.in = in
	h.svc = h.service(t, func(c *run.Config) {
		c.Approver = in
		c.Project = func(runID, ws string, box sandbox.Settings) (run.Tools, []string, event.ProjectServers) {
			return projects.ForRun(h.reg, runID, ws, box)
		}
	})
	ag := testAgent("read_file")
	ag.ProjectServers = true
	r := h.start(t, ag, "use the project's server")
	its := h.pendingN(t, r.ID, 1)
	if its[0].Tool != "mcp__proj__echo" {
		t.Fatalf("approval for %s", its[0].Tool)
	}
	if _, err := h.in.Answer(context.Background(), its[0].ID, inbox.Decision{Decision: "approve", Source: "web", Arguments: json.RawMessage(`{"txt": 1}`)}); err == nil || !strings.Contains(err.Error(), "do not match its schema") {
		t.Fatalf("edited arguments that fail the project tool's schema: %v", err)
	}
	if _, err := h.in.Answer(context.Background(), its[0].ID, inbox.Decision{Decision: "approve", Source: "web", Arguments: json.RawMessage(`{"text": "edited by the person"}`)}); err != nil {
		t.Fatal(err)
	}
	if end := h.waitEnd(t, r.ID, 10*time.Second); end.Status != string(run.Completed) {
		t.Fatalf("run ended %s (%s)", end.Status, end.Reason)
	}
	evs := h.events(t, r.ID)
	checkLog(t, evs)
	created := decode[event.RunCreatedData](t, evs[0])
	if pj := created.Project; pj == nil || pj.State != event.ProjectApproved || !slices.Equal(pj.Servers, []string{"proj"}) || pj.SHA256 != approved {
		t.Fatalf("run.created project servers %+v", created.Project)
	}
	var spec struct{ Tools []string }
	if err := json.Unmarshal(created.Spec, &spec); err != nil || !slices.Contains(spec.Tools, mcp.Pattern("proj")) {
		t.Errorf("the recorded agent's tools %v do not name the project's: a resumed run would lose them", spec.Tools)
	}
	var out string
	for _, ev := range evs {
		if ev.Type == event.NodeFinished {
			if d := decode[event.NodeFinishedData](t, ev); d.Output != "" {
				out = d.Output
			}
		}
	}
	if !strings.HasSuffix(out, "echo: edited by the person") {
		t.Errorf("the project tool's output %q", out)
	}

	// The file changes after the approval: the next run is offered nothing.
	if err := os.WriteFile(filepath.Join(h.ws, mcp.ProjectFile), append(file, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	rec.next = scripted(t, `{"turns": [{"text": "Nothing to call."}]}`)
	r2 := h.start(t, ag, "again")
	h.waitEnd(t, r2.ID, 10*time.Second)
	created = decode[event.RunCreatedData](t, h.events(t, r2.ID)[0])
	if pj := created.Project; pj == nil || pj.State != event.ProjectChanged || len(pj.Servers) != 0 {
		t.Errorf("after a change: %+v", created.Project)
	}
	reqs := rec.requests()
	for _, s := range reqs[len(reqs)-1].Tools {
		if s.Name == "mcp__proj__echo" {
			t.Error("a changed file's server was offered")
		}
	}

	// An agent without project servers: nothing recorded, nothing read.
	rec.next = scripted(t, `{"turns": [{"text": "ok"}]}`)
	r3 := h.start(t, testAgent("read_file"), "plain")
	h.waitEnd(t, r3.ID, 10*time.Second)
	if created := decode[event.RunCreatedData](t, h.events(t, r3.ID)[0]); created.Project != nil {
		t.Errorf("an agent without project servers recorded %+v", created.Project)
	}
}

// runTools serves the inbox each run's own tools, as the composition root
// does.
type runTools struct {
	*tool.Registry
	projects *mcp.Projects
}

func (r runTools) RunTools(runID string) inbox.Tools {
	if l := r.projects.Layer(runID); l != nil {
		return l
	}
	return nil
}
