package api_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"steward/backend/api"
	"steward/backend/event"
)

func TestBadInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	done := e.completedRun()
	ws := t.TempDir()
	missing := filepath.Join(ws, "no-such-dir")
	huge := `{"agent":"default","workspace":"` + ws + `","instructions":"` + strings.Repeat("x", 1<<20) + `"}`

	tests := []struct {
		name         string
		method, path string
		body         any
		status       int
		code         string
		mention      string // the message must contain this
	}{
		{"malformed JSON", "POST", "/api/v1/runs", `{"agent": `, 400, "invalid", "invalid JSON body"},
		{"not an object", "POST", "/api/v1/runs", `[1,2]`, 400, "invalid", "invalid JSON body"},
		{"empty body", "POST", "/api/v1/runs", ``, 400, "invalid", "invalid JSON body"},
		{"unknown field in a run", "POST", "/api/v1/runs", `{"agent":"default","instructions":"x","workspace":"` + ws + `","speed":"fast"}`, 400, "invalid", `"speed"`},
		{"unknown field in an agent", "POST", "/api/v1/agents", `{"name":"a1","colour":"red"}`, 400, "invalid", `"colour"`},
		{"unknown field in an agent update", "PUT", "/api/v1/agents/default", `{"name":"default","colour":"red"}`, 400, "invalid", `"colour"`},
		{"unknown field in an answer", "POST", "/api/v1/interactions/ia_x/answer", `{"decision":"approve","why":"x"}`, 400, "invalid", `"why"`},
		{"unknown field in a command", "POST", "/api/v1/runs/" + done.ID + "/commands", `{"command_id":"c","type":"cancel","force":true}`, 400, "invalid", `"force"`},
		{"two JSON values", "POST", "/api/v1/runs", `{"agent":"default"} {"agent":"default"}`, 400, "invalid", "more than one JSON value"},
		{"body over 1 MiB", "POST", "/api/v1/runs", huge, 413, "too_large", "1 MiB"},
		{"unknown run", "GET", "/api/v1/runs/run_nope", nil, 404, "not_found", "run_nope"},
		{"events of an unknown run", "GET", "/api/v1/runs/run_nope/events", nil, 404, "not_found", "run_nope"},
		{"graph of an unknown run", "GET", "/api/v1/runs/run_nope/graph", nil, 404, "not_found", "run_nope"},
		{"command to an unknown run", "POST", "/api/v1/runs/run_nope/commands", api.Command{CommandID: "c1", Type: "cancel"}, 404, "not_found", "run_nope"},
		{"unknown agent", "GET", "/api/v1/agents/nobody", nil, 404, "not_found", "nobody"},
		{"update of an unknown agent", "PUT", "/api/v1/agents/nobody", api.AgentInput{Name: "nobody"}, 404, "not_found", "nobody"},
		{"delete of an unknown agent", "DELETE", "/api/v1/agents/nobody", nil, 404, "not_found", "nobody"},
		{"answer to an unknown interaction", "POST", "/api/v1/interactions/ia_nope/answer", api.Answer{Decision: "approve"}, 404, "not_found", "ia_nope"},
		{"bad decision", "POST", "/api/v1/interactions/ia_nope/answer", api.Answer{Decision: "maybe"}, 400, "invalid", `"maybe"`},
		{"bad source", "POST", "/api/v1/interactions/ia_nope/answer", api.Answer{Decision: "deny", Source: "pigeon"}, 400, "invalid", `"pigeon"`},
		{"feedback with approve", "POST", "/api/v1/interactions/ia_nope/answer", api.Answer{Decision: "approve", Feedback: "go"}, 400, "invalid", "feedback"},
		{"limit zero", "GET", "/api/v1/runs?limit=0", nil, 400, "invalid", "limit"},
		{"limit too big", "GET", "/api/v1/runs?limit=1001", nil, 400, "invalid", "limit"},
		{"limit not a number", "GET", "/api/v1/runs?limit=ten", nil, 400, "invalid", "limit"},
		{"unknown run status", "GET", "/api/v1/runs?status=sleeping", nil, 400, "invalid", `"sleeping"`},
		{"one bad status of several", "GET", "/api/v1/runs?status=running,sleeping", nil, 400, "invalid", `"sleeping"`},
		{"cursor not base64", "GET", "/api/v1/runs?before=%21%21", nil, 400, "invalid", "before"},
		{"attention not a boolean", "GET", "/api/v1/runs?attention=yes", nil, 400, "invalid", "attention"},
		{"cursor of no list", "GET", "/api/v1/runs?before=" + "aGVsbG8", nil, 400, "invalid", "next_before"},
		{"events after negative", "GET", "/api/v1/runs/" + done.ID + "/events?after=-1", nil, 400, "invalid", "after"},
		{"events after not a number", "GET", "/api/v1/runs/" + done.ID + "/events?after=x", nil, 400, "invalid", "after"},
		{"events limit zero", "GET", "/api/v1/runs/" + done.ID + "/events?limit=0", nil, 400, "invalid", "limit"},
		{"events limit too big", "GET", "/api/v1/runs/" + done.ID + "/events?limit=5001", nil, 400, "invalid", "limit"},
		{"unknown interaction status", "GET", "/api/v1/interactions?status=open", nil, 400, "invalid", `"open"`},
		{"start with an unknown agent", "POST", "/api/v1/runs", api.StartRun{Agent: "ghost", Instructions: "x", Workspace: ws}, 400, "invalid", `"ghost"`},
		{"start with no agent", "POST", "/api/v1/runs", api.StartRun{Instructions: "x", Workspace: ws}, 400, "invalid", "agent"},
		{"empty instructions", "POST", "/api/v1/runs", api.StartRun{Agent: "default", Instructions: " \n ", Workspace: ws}, 400, "invalid", "instructions"},
		{"empty workspace", "POST", "/api/v1/runs", api.StartRun{Agent: "default", Instructions: "x"}, 400, "invalid", "workspace"},
		{"missing workspace", "POST", "/api/v1/runs", api.StartRun{Agent: "default", Instructions: "x", Workspace: missing}, 400, "invalid", missing},
		{"command without command_id", "POST", "/api/v1/runs/" + done.ID + "/commands", api.Command{Type: "cancel"}, 400, "invalid", "command_id"},
		{"unknown command type", "POST", "/api/v1/runs/" + done.ID + "/commands", api.Command{CommandID: "c9", Type: "explode"}, 400, "invalid", `"explode"`},
		{"invalid agent name", "POST", "/api/v1/agents", api.AgentInput{Name: "no spaces"}, 400, "invalid", "name"},
		{"agent with an unknown tool", "POST", "/api/v1/agents", api.AgentInput{Name: "a2", Tools: []string{"rm_rf"}}, 400, "invalid", `"rm_rf"`},
		{"agent with an unknown provider", "POST", "/api/v1/agents", api.AgentInput{Name: "a3", Provider: "oracle"}, 400, "invalid", `"oracle"`},
		{"unknown API route", "GET", "/api/v1/nope", nil, 404, "not_found", "no route"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.with(t).do(tt.method, tt.path, tt.body)
			msg := wantError(t, r, tt.status, tt.code)
			if !strings.Contains(msg, tt.mention) {
				t.Errorf("message %q does not mention %q", msg, tt.mention)
			}
		})
	}

	// Nothing above started a run or made an agent.
	var runs struct{ Runs []api.Run }
	e.call("GET", "/api/v1/runs", nil, http.StatusOK, &runs)
	if len(runs.Runs) != 1 {
		t.Errorf("%d runs after the bad requests, want 1", len(runs.Runs))
	}
	var agents struct{ Agents []api.Agent }
	e.call("GET", "/api/v1/agents", nil, http.StatusOK, &agents)
	if len(agents.Agents) != 1 {
		t.Errorf("%d agents after the bad requests, want 1", len(agents.Agents))
	}
}

func TestCommands(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	done := e.completedRun()
	live, _ := e.startRun("wait for me")
	e.pending(live.ID)
	// The approval opens before the run says it waits on it.
	e.waitStatus(live.ID, "waiting")
	cmd := func(t *testing.T, runID string, c api.Command) api.CommandResult {
		t.Helper()
		var res api.CommandResult
		e.with(t).call("POST", "/api/v1/runs/"+runID+"/commands", c, http.StatusOK, &res)
		return res
	}

	tests := []struct {
		name  string
		runID string
		cmd   api.Command
		want  api.CommandResult
	}{
		{"continue of a waiting run", live.ID, api.Command{CommandID: "p1", Type: "continue"},
			api.CommandResult{CommandID: "p1", Status: "rejected", Code: "invalid_state", Message: "continue needs a paused run; this one is waiting"}},
		{"cancel of a completed run", done.ID, api.Command{CommandID: "c1", Type: "cancel"},
			api.CommandResult{CommandID: "c1", Status: "rejected", Code: "terminal", Message: "the run is already completed"}},
		// The same id again returns the first answer and does nothing, even
		// as another command: the live run is not cancelled.
		{"repeated id on a live run", live.ID, api.Command{CommandID: "p1", Type: "cancel"},
			api.CommandResult{CommandID: "p1", Status: "rejected", Code: "invalid_state", Message: "continue needs a paused run; this one is waiting"}},
		{"repeated id on a completed run", done.ID, api.Command{CommandID: "c1", Type: "cancel"},
			api.CommandResult{CommandID: "c1", Status: "rejected", Code: "terminal", Message: "the run is already completed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, cmd(t, tt.runID, tt.cmd)); diff != "" {
				t.Errorf("command result (-want +got):\n%s", diff)
			}
		})
	}
	if got := e.getRun(live.ID); got.Status != "waiting" || !slices.Equal(got.Capabilities, []string{"pause", "steer", "cancel", "fork", "break", "unbreak"}) {
		t.Fatalf("live run is %s with capabilities %v, want waiting with [pause steer cancel fork break unbreak]", got.Status, got.Capabilities)
	}

	// A cancel is accepted once; its repeat returns the same answer.
	want := api.CommandResult{CommandID: "k1", Status: "accepted"}
	for range 2 {
		if diff := cmp.Diff(want, cmd(t, live.ID, api.Command{CommandID: "k1", Type: "cancel"})); diff != "" {
			t.Errorf("cancel (-want +got):\n%s", diff)
		}
	}
	got := e.waitStatus(live.ID, "cancelled")
	if !slices.Equal(got.Capabilities, []string{"fork", "follow_up", "replay"}) || got.PendingApprovals != 0 {
		t.Errorf("cancelled run has capabilities %v and %d pending approvals, want only fork, follow_up, replay and none", got.Capabilities, got.PendingApprovals)
	}
	var inbox struct{ Interactions []api.Interaction }
	e.call("GET", "/api/v1/interactions?run_id="+live.ID, nil, http.StatusOK, &inbox)
	if len(inbox.Interactions) != 1 || inbox.Interactions[0].Status != "cancelled" {
		t.Errorf("interactions of the cancelled run: %+v, want one cancelled", inbox.Interactions)
	}
}

func TestAgentsCRUD(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	in := api.AgentInput{Name: "reader", Description: "reads", Provider: "script", Tools: []string{"read_file"}, MaxSteps: 3}
	var created api.Agent
	e.call("POST", "/api/v1/agents", in, http.StatusCreated, &created)
	if created.ID == "" || created.Name != "reader" || created.Mode != "ask" || created.EffectiveProvider != "script" || !created.Demo {
		t.Errorf("created %+v", created)
	}
	var byName api.Agent
	e.call("GET", "/api/v1/agents/reader", nil, http.StatusOK, &byName)
	if diff := cmp.Diff(created, byName); diff != "" {
		t.Errorf("GET by name (-created +got):\n%s", diff)
	}
	wantError(t, e.do("POST", "/api/v1/agents", in), http.StatusConflict, "conflict")

	in.Description = "reads more"
	var updated api.Agent
	e.call("PUT", "/api/v1/agents/"+created.ID, in, http.StatusOK, &updated)
	if updated.ID != created.ID || updated.Description != "reads more" || updated.CreatedAt != created.CreatedAt {
		t.Errorf("updated %+v", updated)
	}
	if r := e.do("DELETE", "/api/v1/agents/reader", nil); r.status != http.StatusNoContent || len(r.body) != 0 {
		t.Errorf("DELETE = %d %q, want 204 and no body", r.status, r.body)
	}
	wantError(t, e.do("GET", "/api/v1/agents/"+created.ID, nil), http.StatusNotFound, "not_found")

	var info api.Info
	e.call("GET", "/api/v1/info", nil, http.StatusOK, &info)
	if info.Version != "test" || info.Provider != "script" || !info.Demo || info.Note == "" {
		t.Errorf("info %+v", info)
	}
	var tools struct{ Tools []api.ToolSpec }
	e.call("GET", "/api/v1/tools", nil, http.StatusOK, &tools)
	var names []string
	for _, s := range tools.Tools {
		names = append(names, s.Name+":"+string(s.Risk))
	}
	slices.Sort(names)
	if diff := cmp.Diff([]string{"apply_patch:write", "ask_user:read", "edit_file:write", "git_commit:write", "git_diff:read", "git_log:read",
		"git_status:read", "glob:read", "grep:read", "list_dir:read", "read_file:read", "run_command:exec", "update_plan:read", "write_file:write"}, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
}

func TestDemoRunApproved(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ws := t.TempDir()
	realWS, err := filepath.EvalSymlinks(ws)
	if err != nil {
		t.Fatal(err)
	}

	var r api.Run
	e.call("POST", "/api/v1/runs", api.StartRun{Agent: "default", Instructions: "Say hello", Workspace: ws}, http.StatusCreated, &r)
	if r.ID == "" || r.AgentName != "default" || r.Workspace != realWS || r.Instructions != "Say hello" ||
		r.Provider != "script" || r.Model != "demo-script" || !r.Demo || r.Mode != "ask" || r.LastSeq < 1 {
		t.Errorf("started run %+v", r)
	}
	if !slices.Contains([]string{"queued", "running", "waiting"}, string(r.Status)) || !slices.Contains(r.Capabilities, "cancel") {
		t.Errorf("started run is %s with capabilities %v", r.Status, r.Capabilities)
	}

	it := e.pending(r.ID)
	var args struct{ Path, Content string }
	if err := json.Unmarshal(it.Arguments, &args); err != nil {
		t.Fatal(err)
	}
	if it.Kind != "approval" || it.Status != "pending" || it.Tool != "write_file" || it.Risk != "write" ||
		args.Path != "steward-demo.md" || !strings.Contains(args.Content, "Say hello") || it.Answer != nil || it.AnsweredAt != nil {
		t.Errorf("pending interaction %+v", it)
	}
	if got := e.waitStatus(r.ID, "waiting"); got.PendingApprovals != 1 {
		t.Errorf("waiting run has %d pending approvals, want 1", got.PendingApprovals)
	}
	attention := func() []string {
		var list struct{ Runs []api.Run }
		e.call("GET", "/api/v1/runs?attention=true&q=hello", nil, http.StatusOK, &list)
		out := []string{}
		for _, r := range list.Runs {
			out = append(out, r.ID)
		}
		return out
	}
	if got := attention(); !slices.Equal(got, []string{r.ID}) {
		t.Errorf("GET /runs?attention=true while it waits = %v, want the run", got)
	}

	var answered api.Interaction
	e.call("POST", "/api/v1/interactions/"+it.ID+"/answer", api.Answer{Decision: "approve"}, http.StatusOK, &answered)
	if answered.Status != "answered" || answered.AnsweredAt == nil ||
		answered.Answer == nil || !cmp.Equal(*answered.Answer, api.AnswerGiven{Decision: "approve", Source: "api"}) {
		t.Errorf("answered interaction %+v", answered)
	}
	msg := wantError(t, e.do("POST", "/api/v1/interactions/"+it.ID+"/answer", api.Answer{Decision: "deny"}), http.StatusConflict, "conflict")
	if msg != "already answered" {
		t.Errorf("second answer: message %q, want already answered", msg)
	}

	final := e.waitStatus(r.ID, "completed")
	if got := attention(); len(got) != 0 {
		t.Errorf("GET /runs?attention=true once answered and done = %v, want none", got)
	}
	if final.PendingApprovals != 0 || final.Steps != 3 || final.Usage.InputTokens != 0 || final.Usage.OutputTokens != 0 || !slices.Equal(final.Capabilities, []string{"fork", "follow_up", "replay"}) {
		t.Errorf("completed run %+v", final)
	}
	note, err := os.ReadFile(filepath.Join(ws, "steward-demo.md"))
	if err != nil {
		t.Fatalf("the approved write did not happen: %v", err)
	}
	if !strings.Contains(string(note), "Instructions: Say hello") {
		t.Errorf("steward-demo.md:\n%s", note)
	}

	// The run lists under its filters.
	for _, q := range []string{"", "?status=completed", "?status=failed,completed", "?agent=default", "?q=hello", "?limit=1"} {
		var list struct {
			Runs       []api.Run
			NextBefore string `json:"next_before"`
			More       bool
		}
		e.call("GET", "/api/v1/runs"+q, nil, http.StatusOK, &list)
		if len(list.Runs) != 1 || list.Runs[0].ID != r.ID || list.More || list.NextBefore != "" {
			t.Errorf("GET /runs%s = %+v, want the run and no more", q, list)
		}
	}
	var none struct{ Runs []api.Run }
	e.call("GET", "/api/v1/runs?status=running", nil, http.StatusOK, &none)
	if none.Runs == nil || len(none.Runs) != 0 {
		t.Errorf("GET /runs?status=running = %+v, want []", none.Runs)
	}

	t.Run("events pages", func(t *testing.T) {
		e := e.with(t)
		all := e.events(r.ID)
		if diff := cmp.Diff(upTo(final.LastSeq), seqs(all)); diff != "" {
			t.Fatalf("seqs of the log (-want +got):\n%s", diff)
		}
		if all[0].Type != event.RunCreated || all[len(all)-1].Type != event.RunStatus {
			t.Errorf("log runs from %s to %s", all[0].Type, all[len(all)-1].Type)
		}
		for _, limit := range []int{1, 3, 7, len(all), len(all) + 1} {
			var got []event.Event
			after := int64(0)
			for page := 0; ; page++ {
				var body struct {
					Events    []event.Event
					NextAfter int64 `json:"next_after"`
					More      bool
				}
				e.call("GET", "/api/v1/runs/"+r.ID+"/events?after="+itoa(after)+"&limit="+itoa(int64(limit)), nil, http.StatusOK, &body)
				got = append(got, body.Events...)
				wantLast := min(int64(len(all)), after+int64(limit))
				if len(body.Events) > 0 && body.NextAfter != body.Events[len(body.Events)-1].Seq {
					t.Fatalf("limit %d page %d: next_after %d, last seq %d", limit, page, body.NextAfter, body.Events[len(body.Events)-1].Seq)
				}
				if body.NextAfter != wantLast || body.More != (wantLast < int64(len(all))) {
					t.Fatalf("limit %d page %d: next_after %d more %v, want %d %v", limit, page, body.NextAfter, body.More, wantLast, wantLast < int64(len(all)))
				}
				if !body.More {
					break
				}
				after = body.NextAfter
			}
			if diff := cmp.Diff(all, got); diff != "" {
				t.Errorf("limit %d: pages differ from the whole log (-want +got):\n%s", limit, diff)
			}
		}
		var tail struct {
			Events    []event.Event
			NextAfter int64 `json:"next_after"`
			More      bool
		}
		e.call("GET", "/api/v1/runs/"+r.ID+"/events?after="+itoa(final.LastSeq), nil, http.StatusOK, &tail)
		if tail.Events == nil || len(tail.Events) != 0 || tail.NextAfter != final.LastSeq || tail.More {
			t.Errorf("past the end: %+v, want no events, next_after %d, more false", tail, final.LastSeq)
		}
	})

	t.Run("graph", func(t *testing.T) {
		var g api.Graph
		e.with(t).call("GET", "/api/v1/runs/"+r.ID+"/graph", nil, http.StatusOK, &g)
		byID := map[string]api.GraphNode{}
		kinds := map[string][]string{}
		for _, n := range g.Nodes {
			byID[n.ID] = n
			label := n.Label
			if n.Kind == "tool" {
				label = n.Tool + ":" + string(n.Status)
			}
			kinds[string(n.Kind)] = append(kinds[string(n.Kind)], label)
			if n.Kind != "user" && n.FinishedAt == nil {
				t.Errorf("node %s (%s) never finished", n.ID, n.Kind)
			}
		}
		want := map[string][]string{
			"agent": {"default"},
			"user":  {"instructions"},
			"llm":   {"model call 1", "model call 2", "model call 3"},
			"tool":  {"list_dir:succeeded", "write_file:succeeded"},
		}
		if diff := cmp.Diff(want, kinds); diff != "" {
			t.Errorf("nodes by kind (-want +got):\n%s", diff)
		}
		edgeKinds := map[string]int{}
		for _, ed := range g.Edges {
			edgeKinds[ed.Kind]++
			if _, ok := byID[ed.From]; !ok {
				t.Errorf("edge %+v starts at no node", ed)
			}
			to, ok := byID[ed.To]
			if !ok {
				t.Errorf("edge %+v ends at no node", ed)
			}
			switch ed.Kind {
			case "parent":
				if to.Parent != ed.From {
					t.Errorf("parent edge %+v, but node %s has parent %q", ed, to.ID, to.Parent)
				}
			case "after":
				if !slices.Contains(to.After, ed.From) {
					t.Errorf("after edge %+v, but node %s is after %v", ed, to.ID, to.After)
				}
			default:
				t.Errorf("edge %+v has an unknown kind", ed)
			}
		}
		if edgeKinds["parent"] == 0 || edgeKinds["after"] == 0 {
			t.Errorf("edges by kind %v, want parent and after edges", edgeKinds)
		}
		for _, n := range g.Nodes {
			if n.Kind == "llm" && byID[n.Parent].Kind != "agent" {
				t.Errorf("llm node %s has parent %q, want the agent node", n.ID, n.Parent)
			}
			if n.Kind == "tool" && byID[n.Parent].Kind != "llm" {
				t.Errorf("tool node %s has parent %q, want an llm node", n.ID, n.Parent)
			}
		}
	})
}

func TestDemoRunDeniedWithFeedback(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r, ws := e.startRun("Write nothing")
	it := e.pending(r.ID)
	const feedback = "not today, keep the folder clean"

	var answered api.Interaction
	e.call("POST", "/api/v1/interactions/"+it.ID+"/answer", api.Answer{Decision: "deny", Feedback: feedback, Source: "cli"}, http.StatusOK, &answered)
	if answered.Answer == nil || !cmp.Equal(*answered.Answer, api.AnswerGiven{Decision: "deny", Feedback: feedback, Source: "cli"}) {
		t.Errorf("answer %+v", answered.Answer)
	}
	final := e.waitStatus(r.ID, "completed")

	if _, err := os.Stat(filepath.Join(ws, "steward-demo.md")); !os.IsNotExist(err) {
		t.Errorf("the denied write happened (stat: %v)", err)
	}
	// The model's last answer quotes the tool output, which carries the
	// feedback: the model heard it.
	var lastLLM string
	kind := map[string]string{}
	for _, ev := range e.events(r.ID) {
		switch ev.Type {
		case event.NodeStarted:
			var d event.NodeStartedData
			if err := ev.Decode(&d); err != nil {
				t.Fatal(err)
			}
			kind[ev.NodeID] = string(d.Kind)
		case event.NodeFinished:
			var d event.NodeFinishedData
			if err := ev.Decode(&d); err != nil {
				t.Fatal(err)
			}
			if kind[ev.NodeID] == event.KindLLM {
				lastLLM = d.Text
			}
			if d.Status == event.NodeDenied && !strings.Contains(d.Output, feedback) {
				t.Errorf("denied tool node output %q lacks the feedback", d.Output)
			}
		}
	}
	if !strings.Contains(lastLLM, feedback) {
		t.Errorf("final model text %q does not contain the feedback %q", lastLLM, feedback)
	}
	var g api.Graph
	e.call("GET", "/api/v1/runs/"+r.ID+"/graph", nil, http.StatusOK, &g)
	var statuses []string
	for _, n := range g.Nodes {
		if n.Kind == "tool" {
			statuses = append(statuses, n.Tool+":"+string(n.Status))
		}
	}
	if diff := cmp.Diff([]string{"list_dir:succeeded", "write_file:denied"}, statuses); diff != "" {
		t.Errorf("tool nodes (-want +got):\n%s", diff)
	}
	if final.Steps != 3 {
		t.Errorf("steps = %d, want 3", final.Steps)
	}
}
