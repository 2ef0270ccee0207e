package api_test

import (
	"net/http"
	"strings"
	"testing"

	"steward/backend/api"
	"steward/backend/event"
	"steward/backend/policy"
)

func TestNodeDetail(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.completedRun()
	var g api.Graph
	e.call("GET", "/api/v1/runs/"+r.ID+"/graph", nil, http.StatusOK, &g)
	var llm, tool *api.GraphNode
	for i, n := range g.Nodes {
		switch {
		case n.Kind == "llm" && llm == nil:
			llm = &g.Nodes[i]
		case n.Kind == "tool" && tool == nil:
			tool = &g.Nodes[i]
		}
	}
	if llm == nil || tool == nil {
		t.Fatalf("graph lacks a model call or a tool call: %+v", g.Nodes)
	}
	// The demo script calls no model: it reports no tokens, never invented ones.
	if llm.FinishedAt == nil || (llm.Usage != nil && (llm.Usage.InputTokens != 0 || llm.Usage.OutputTokens != 0)) {
		t.Errorf("model node without an end, or with invented usage: %+v", llm)
	}

	var d api.NodeDetail
	e.call("GET", "/api/v1/runs/"+r.ID+"/nodes/"+llm.ID, nil, http.StatusOK, &d)
	if d.Node.ID != llm.ID || len(d.Input) == 0 || d.Input[0].Role != "user" || d.Input[0].Text != r.Instructions {
		t.Errorf("model node detail: node %+v, input %+v", d.Node, d.Input)
	}
	if first, last := d.Events[0], d.Events[len(d.Events)-1]; first.Type != event.NodeStarted || last.Type != event.NodeFinished {
		t.Errorf("model node events run from %s to %s", first.Type, last.Type)
	}

	d = api.NodeDetail{}
	e.call("GET", "/api/v1/runs/"+r.ID+"/nodes/"+tool.ID, nil, http.StatusOK, &d)
	var types []string
	for _, ev := range d.Events {
		types = append(types, string(ev.Type))
	}
	if got := strings.Join(types, " "); !strings.Contains(got, "node.started") || !strings.Contains(got, "tool.executing") || !strings.HasSuffix(got, "node.finished") || d.Input != nil {
		t.Errorf("tool node events: %s (input %v)", got, d.Input)
	}

	wantError(t, e.do("GET", "/api/v1/runs/"+r.ID+"/nodes/n999", nil), http.StatusNotFound, "not_found")
	wantError(t, e.do("GET", "/api/v1/runs/nope/nodes/n1", nil), http.StatusNotFound, "not_found")
}

func TestModesAndRulesOverTheAPI(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// An agent in mode edits writes without asking; a run-level deny rule
	// on the demo's file still stops it.
	var a api.Agent
	e.call("POST", "/api/v1/agents", api.AgentInput{Name: "editor", Mode: "edits", Tools: []string{"list_dir", "read_file", "write_file"}, Script: "demo", Provider: "script"}, http.StatusCreated, &a)
	ws := t.TempDir()
	var r api.Run
	e.call("POST", "/api/v1/runs", api.StartRun{Agent: "editor", Instructions: "write freely", Workspace: ws}, http.StatusCreated, &r)
	if done := e.waitStatus(r.ID, "completed"); done.PendingApprovals != 0 {
		t.Errorf("edits run = %+v", done)
	}
	e.call("POST", "/api/v1/runs", api.StartRun{Agent: "editor", Instructions: "no writes", Workspace: t.TempDir(),
		Rules: []policy.Rule{{Effect: policy.Deny, Tool: "write_file", Match: "*.md"}}}, http.StatusCreated, &r)
	e.waitStatus(r.ID, "completed")
	var evs struct{ Events []event.Event }
	e.call("GET", "/api/v1/runs/"+r.ID+"/events?limit=1000", nil, http.StatusOK, &evs)
	denied := false
	for _, ev := range evs.Events {
		if ev.Type == event.PolicyDecided && strings.Contains(string(ev.Data), "rule deny write_file *.md (run)") {
			denied = true
		}
	}
	if !denied {
		t.Errorf("no policy decision naming the run's deny rule")
	}
	msg := wantError(t, e.do("POST", "/api/v1/agents", api.AgentInput{Name: "bad", Mode: "yolo"}), http.StatusBadRequest, "invalid")
	if !strings.Contains(msg, "yolo") {
		t.Errorf("bad mode message %q", msg)
	}
	wantError(t, e.do("POST", "/api/v1/runs", api.StartRun{Agent: "editor", Instructions: "x", Workspace: ws,
		Rules: []policy.Rule{{Effect: "maybe", Tool: "write_file"}}}), http.StatusBadRequest, "invalid")
}
