package api_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"steward/backend/api"
	"steward/backend/event"
)

func TestGrants(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var list struct{ Grants []api.Grant }
	e.call("GET", "/api/v1/grants", nil, http.StatusOK, &list)
	if len(list.Grants) != 0 {
		t.Fatalf("grants of a new store = %+v", list.Grants)
	}

	r, _ := e.startRun("hello")
	it := e.pending(r.ID)
	path := "/api/v1/interactions/" + it.ID + "/answer"
	if msg := wantError(t, e.do("POST", path, api.Answer{Decision: "approve", Scope: "forever"}), 400, "invalid"); !strings.Contains(msg, `"forever"`) {
		t.Errorf("bad scope message %q does not name the scope", msg)
	}
	if msg := wantError(t, e.do("POST", path, api.Answer{Decision: "approve", AnyArgument: true}), 400, "invalid"); !strings.Contains(msg, "scope") {
		t.Errorf("any_argument without scope message %q", msg)
	}
	var answered api.Interaction
	e.call("POST", path, api.Answer{Decision: "approve", Scope: "agent"}, http.StatusOK, &answered)
	if answered.Status != "answered" || answered.Answer == nil || answered.Answer.Decision != "approve" {
		t.Errorf("answered = %+v", answered)
	}
	e.waitStatus(r.ID, "completed")

	e.call("GET", "/api/v1/grants", nil, http.StatusOK, &list)
	if len(list.Grants) != 1 {
		t.Fatalf("grants = %+v, want 1", list.Grants)
	}
	g := list.Grants[0]
	if g.Effect != "allow" || g.Tool != "write_file" || g.Match != "steward-demo.md" || g.Scope != "agent" ||
		g.AgentID != r.AgentID || g.AgentID == "" || g.RunID != "" || g.CreatedAt == 0 || g.ID == "" {
		t.Errorf("grant = %+v", g)
	}
	var decided []event.ApprovalDecidedData
	for _, ev := range e.events(r.ID) {
		if ev.Type == event.ApprovalDecided {
			var d event.ApprovalDecidedData
			if err := json.Unmarshal(ev.Data, &d); err != nil {
				t.Fatal(err)
			}
			decided = append(decided, d)
		}
	}
	if len(decided) != 1 || decided[0].Scope != "agent" || decided[0].GrantID != g.ID {
		t.Errorf("approval.decided = %+v, want scope agent and grant %s", decided, g.ID)
	}

	// The next run of the agent writes without asking.
	r2, _ := e.startRun("hello again")
	e.waitStatus(r2.ID, "completed")
	if got := e.getRun(r2.ID); got.PendingApprovals != 0 {
		t.Errorf("run on the grant = %+v", got)
	}

	e.call("DELETE", "/api/v1/grants/"+g.ID, nil, http.StatusNoContent, nil)
	wantError(t, e.do("DELETE", "/api/v1/grants/"+g.ID, nil), 404, "not_found")
	wantError(t, e.do("DELETE", "/api/v1/grants/gr_nope", nil), 404, "not_found")
	e.call("GET", "/api/v1/grants", nil, http.StatusOK, &list)
	if len(list.Grants) != 0 {
		t.Errorf("grants after revoking = %+v", list.Grants)
	}

	// Revoked, the agent asks again.
	r3, _ := e.startRun("hello once more")
	e.pending(r3.ID)
	e.call("POST", "/api/v1/runs/"+r3.ID+"/commands", api.Command{CommandID: "c1", Type: "cancel"}, http.StatusOK, nil)
	e.waitStatus(r3.ID, "cancelled")
}
