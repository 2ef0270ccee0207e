package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/gorilla/websocket"

	"steward/backend/api"
	"steward/backend/event"
	"steward/backend/run"
)

// statusLog builds, through the store, a run that reached one run status,
// with its interactions and nodes: the statuses the engine would take many
// steps (and a crash) to reach, each in one place.
type statusLog struct {
	t   *testing.T
	e   *env
	run string
}

func (l statusLog) add(typ event.Type, node string, data any) {
	l.t.Helper()
	if _, err := l.e.st.Append(context.Background(), event.New(l.run, typ, node, data)); err != nil {
		l.t.Fatalf("append %s to %s: %v", typ, l.run, err)
	}
}

func (l statusLog) ask(node, interaction string) {
	l.add(event.NodeStarted, node, event.NodeStartedData{Kind: event.KindTool, Label: "write_file", Tool: "write_file", Arguments: json.RawMessage(`{}`)})
	l.add(event.ApprovalRequested, node, event.ApprovalRequestedData{InteractionID: interaction, Tool: "write_file", Arguments: json.RawMessage(`{}`), Risk: "write", Reason: "ask"})
}

// TestEveryStatusThroughTheAPI: a run in each run status, an interaction in
// each, a node in each the log records; the API lists each run and
// interaction under its status filter and shows each node's status (the
// store closes a run's open interactions exactly when run.Status.Terminal
// says the run ended), the
// filters take exactly the vocabularies run and event declare (a bogus
// one is refused naming them all), and each run.status event of a page
// carries the capabilities and refusals the run itself shows then.
func TestEveryStatusThroughTheAPI(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ws := t.TempDir()
	for _, st := range run.Statuses {
		l := statusLog{t, e, "run_" + string(st)}
		l.add(event.RunCreated, "", event.RunCreatedData{Agent: event.AgentRef{ID: "ag_probe", Name: "probe", Provider: "script"},
			Instructions: "reach " + string(st), Workspace: ws, Mode: "ask", MaxSteps: 5})
		// An interaction open in every run: the run's end cancels it, any
		// other status leaves it pending.
		l.ask("n_open", "ia_"+string(st))
		switch st {
		case run.Completed:
			l.ask("n_answered", "ia_answered")
			l.add(event.ApprovalDecided, "n_answered", event.ApprovalDecidedData{InteractionID: "ia_answered", Decision: event.DecisionApprove, Source: "api"})
		case run.Failed:
			// A node in every status a node ends in, one still running and
			// one waiting on a person.
			for i, s := range []string{event.NodeSucceeded, event.NodeFailed, event.NodeDenied, event.NodeCancelled, event.NodeInterrupted} {
				node := "n" + string(rune('1'+i))
				l.add(event.NodeStarted, node, event.NodeStartedData{Kind: event.KindLLM, Label: s})
				l.add(event.NodeFinished, node, event.NodeFinishedData{Status: event.NodeStatus(s)})
			}
			l.add(event.NodeStarted, "n6", event.NodeStartedData{Kind: event.KindLLM, Label: event.NodeRunning})
		}
		if st != run.Queued {
			var next *event.Next
			if st == run.Paused {
				next = &event.Next{Kind: "model"}
			}
			l.add(event.RunStatus, "", event.RunStatusData{Status: string(st), Reason: "reached", Next: next})
		}
	}

	t.Run("runs", func(t *testing.T) {
		e := e.with(t)
		for _, st := range run.Statuses {
			var list struct{ Runs []api.Run }
			e.call("GET", "/api/v1/runs?status="+string(st), nil, http.StatusOK, &list)
			if len(list.Runs) != 1 || list.Runs[0].ID != "run_"+string(st) || list.Runs[0].Status != st {
				t.Errorf("GET /runs?status=%s = %+v, want run_%s alone", st, list.Runs, st)
			}
		}
		names := strs(run.Statuses)
		var all struct{ Runs []api.Run }
		e.call("GET", "/api/v1/runs?status="+strings.Join(names, ","), nil, http.StatusOK, &all)
		if len(all.Runs) != len(run.Statuses) {
			t.Errorf("GET /runs?status=<every status> lists %d runs, want %d", len(all.Runs), len(run.Statuses))
		}
		msg := wantError(t, e.do("GET", "/api/v1/runs?status=paused,napping", nil), http.StatusBadRequest, "invalid")
		if want := `status "napping" is not one of ` + strings.Join(names, ", "); msg != want {
			t.Errorf("bogus status refused with %q, want %q", msg, want)
		}
	})

	t.Run("interactions", func(t *testing.T) {
		e := e.with(t)
		want := map[string][]string{
			event.InteractionAnswered: {"ia_answered"},
			// A timeout answers with the default decision: nothing is
			// recorded as expired, and the filter takes it all the same.
			event.InteractionExpired: nil,
		}
		for _, st := range run.Statuses {
			s := event.InteractionPending
			if st.Terminal() {
				s = event.InteractionCancelled
			}
			want[s] = append(want[s], "ia_"+string(st))
		}
		if len(want) != len(strs(event.InteractionStatuses)) || len(want[event.InteractionPending]) == 0 || len(want[event.InteractionCancelled]) == 0 {
			t.Fatalf("the test covers %d interaction statuses of %v", len(want), event.InteractionStatuses)
		}
		for _, st := range strs(event.InteractionStatuses) {
			var list struct{ Interactions []api.Interaction }
			e.call("GET", "/api/v1/interactions?status="+st, nil, http.StatusOK, &list)
			var got []string
			for _, it := range list.Interactions {
				if string(it.Status) != st {
					t.Errorf("GET /interactions?status=%s lists %s, which is %s", st, it.ID, it.Status)
				}
				got = append(got, it.ID)
			}
			slices.Sort(got)
			slices.Sort(want[st])
			if diff := cmp.Diff(want[st], got); diff != "" {
				t.Errorf("GET /interactions?status=%s (-want +got):\n%s", st, diff)
			}
		}
		msg := wantError(t, e.do("GET", "/api/v1/interactions?status=lapsed", nil), http.StatusBadRequest, "invalid")
		if want := `status "lapsed" is not one of ` + strings.Join(strs(event.InteractionStatuses), ", "); msg != want {
			t.Errorf("bogus status refused with %q, want %q", msg, want)
		}
	})

	t.Run("nodes", func(t *testing.T) {
		e := e.with(t)
		var g api.Graph
		e.call("GET", "/api/v1/runs/run_failed/graph", nil, http.StatusOK, &g)
		var got []string
		for _, n := range g.Nodes {
			got = append(got, string(n.Status))
		}
		slices.Sort(got)
		// Every node status but pending, which no event records: a node
		// starts running (a user node has succeeded).
		want := slices.DeleteFunc(strs(event.NodeStatuses), func(s string) bool { return s == string(event.NodePending) })
		slices.Sort(want)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("node statuses of the graph (-want +got):\n%s", diff)
		}
	})

	t.Run("run.status events", func(t *testing.T) {
		e := e.with(t)
		for _, st := range run.Statuses {
			if st == run.Queued {
				continue // no run.status: the run was only created
			}
			id := "run_" + string(st)
			var page struct{ Events []api.Event }
			e.call("GET", "/api/v1/runs/"+id+"/events", nil, http.StatusOK, &page)
			r := e.getRun(id)
			found := false
			for _, ev := range page.Events {
				if ev.Type != event.RunStatus {
					if ev.Capabilities != nil || ev.Refusals != nil {
						t.Errorf("%s: %s carries capabilities", id, ev.Type)
					}
					continue
				}
				found = true
				if !slices.Equal(ev.Capabilities, r.Capabilities) || !cmp.Equal(ev.Refusals, r.Refusals) {
					t.Errorf("%s: run.status carries %v %v; the run has %v %v", id, ev.Capabilities, ev.Refusals, r.Capabilities, r.Refusals)
				}
			}
			if !found || len(r.Refusals) == 0 {
				t.Errorf("%s: no run.status in its log, or no refusals (%v)", id, r.Refusals)
			}
		}
	})
}

// TestOpenAPIDeclaresTheVocabularies: the document names every value of
// each closed field, from the Go lists the server checks them with, so
// the TypeScript generated from it holds the same.
func TestOpenAPIDeclaresTheVocabularies(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var doc struct {
		Components struct{ Schemas map[string]*schemaDoc }
		Paths      map[string]map[string]struct {
			RequestBody struct {
				Content map[string]struct{ Schema schemaDoc }
			} `json:"requestBody"`
			Responses map[string]struct {
				Content map[string]struct{ Schema schemaDoc }
			}
		}
	}
	e.call("GET", "/api/v1/openapi.json", nil, http.StatusOK, &doc)
	// deref is the schema s refers to, or s; every schema on the way is
	// read through it, as the wire types are components.
	deref := func(s *schemaDoc) schemaDoc {
		for s != nil && s.Ref != "" {
			name, ok := strings.CutPrefix(s.Ref, "#/components/schemas/")
			if !ok || doc.Components.Schemas[name] == nil {
				t.Fatalf("$ref %q names no component", s.Ref)
			}
			s = doc.Components.Schemas[name]
		}
		if s == nil {
			t.Fatal("a schema the test reads is missing")
		}
		return *s
	}
	response := func(method, path string) schemaDoc {
		s := doc.Paths[path][method].Responses["200"].Content["application/json"].Schema
		return deref(&s)
	}
	statuses := strs(run.Statuses)
	caps := append(slices.Clone(run.Commands), api.CapReplay)
	runSchema := response("get", "/api/v1/runs/{id}")
	eventSchema := deref(deref(response("get", "/api/v1/runs/{id}/events").Properties["events"]).Items)
	interaction := deref(deref(response("get", "/api/v1/interactions").Properties["interactions"]).Items)
	node := deref(response("get", "/api/v1/runs/{id}/nodes/{node}").Properties["node"])
	commandRef := doc.Paths["/api/v1/runs/{id}/commands"]["post"].RequestBody.Content["application/json"].Schema
	command := deref(&commandRef)
	tests := []struct {
		name string
		got  []string
		want []string
	}{
		{"run status", runSchema.Properties["status"].Enum, statuses},
		{"run capabilities", runSchema.Properties["capabilities"].Items.Enum, caps},
		{"run refusals", runSchema.Properties["refusals"].PropertyNames.Enum, run.Commands},
		{"event capabilities", eventSchema.Properties["capabilities"].Items.Enum, caps},
		{"event refusals", eventSchema.Properties["refusals"].PropertyNames.Enum, run.Commands},
		{"interaction status", interaction.Properties["status"].Enum, strs(event.InteractionStatuses)},
		{"interaction kind", interaction.Properties["kind"].Enum, strs(event.InteractionKinds)},
		{"node status", node.Properties["status"].Enum, strs(event.NodeStatuses)},
		{"node kind", node.Properties["kind"].Enum, strs(event.NodeKinds)},
		{"command type", command.Properties["type"].Enum, run.Commands},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, tt.got); diff != "" {
			t.Errorf("%s enum (-want +got):\n%s", tt.name, diff)
		}
	}
}

// schemaDoc is what TestOpenAPIDeclaresTheVocabularies reads of a schema.
type schemaDoc schemaFields

type schemaFields struct {
	Ref           string                `json:"$ref"`
	Enum          []string              `json:"enum"`
	Items         *schemaDoc            `json:"items"`
	PropertyNames *schemaDoc            `json:"propertyNames"`
	Properties    map[string]*schemaDoc `json:"properties"`
}

// UnmarshalJSON reads a schema; true and false (any value, none) hold no
// fields.
func (s *schemaDoc) UnmarshalJSON(b []byte) error {
	if string(b) == "true" || string(b) == "false" {
		*s = schemaDoc{}
		return nil
	}
	return json.Unmarshal(b, (*schemaFields)(s))
}

// strs are a vocabulary's values as strings.
func strs[T ~string](values []T) []string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = string(v)
	}
	return out
}

// TestWSRunStatusCarriesCapabilities: over the WebSocket, each run.status
// of a run's own subscription and of the all-runs feed carries the
// capabilities and refusals the run shows then; the last ones are the
// ended run's.
func TestWSRunStatusCarriesCapabilities(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	all := e.dial(nil)
	send(t, all, map[string]any{"type": "subscribe", "id": "all"})
	if m := recv(t, all); m.Type != "caught_up" {
		t.Fatalf("first message %+v, want caught_up", m)
	}
	r, _ := e.startRun("Say hello")
	own := e.dial(nil)
	send(t, own, subscribe(r.ID, 0))
	it := e.pending(r.ID)
	e.call("POST", "/api/v1/interactions/"+it.ID+"/answer", api.Answer{Decision: "approve"}, http.StatusOK, nil)
	final := e.waitStatus(r.ID, "completed")

	type msg struct {
		Type  string     `json:"type"`
		Event *api.Event `json:"event"`
	}
	for name, c := range map[string]*websocket.Conn{"own": own, "all": all} {
		var statuses []api.Event
		for len(statuses) == 0 || statuses[len(statuses)-1].Seq != final.LastSeq {
			c.SetReadDeadline(time.Now().Add(waitTimeout))
			var m msg
			if err := c.ReadJSON(&m); err != nil {
				t.Fatalf("%s: ws read: %v", name, err)
			}
			if m.Type == "event" && m.Event.RunID == r.ID && m.Event.Type == event.RunStatus {
				statuses = append(statuses, *m.Event)
			}
		}
		for _, ev := range statuses {
			var d event.RunStatusData
			if err := ev.Decode(&d); err != nil {
				t.Fatal(err)
			}
			want := run.Situation{RunID: r.ID, Status: run.Status(d.Status), Next: d.Next}
			if len(ev.Capabilities) == 0 || !cmp.Equal(ev.Refusals, want.Refusals()) {
				t.Errorf("%s: run.status %s carries %v %v, want the refusals %v", name, d.Status, ev.Capabilities, ev.Refusals, want.Refusals())
			}
		}
		last := statuses[len(statuses)-1]
		if !slices.Equal(last.Capabilities, final.Capabilities) || !cmp.Equal(last.Refusals, final.Refusals) {
			t.Errorf("%s: the last run.status carries %v %v; the run has %v %v", name, last.Capabilities, last.Refusals, final.Capabilities, final.Refusals)
		}
	}
}
