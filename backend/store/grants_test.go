package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"steward/backend/policy"
	"steward/backend/store"
)

func TestGrants(t *testing.T) {
	t.Parallel()
	st, _ := open(t, nil)
	ctx := context.Background()
	for i, g := range []store.Grant{
		{ID: "gr_1", Effect: "allow", Tool: "write_file", Match: "a.txt", Scope: store.ScopeRun, RunID: "run_1", CreatedAt: 1},
		{ID: "gr_2", Effect: "deny", Tool: "run_command", Match: "rm -rf /", Scope: store.ScopeAgent, AgentID: "ag_1", CreatedAt: 2},
		{ID: "gr_3", Effect: "allow", Tool: "read_file", Scope: store.ScopeEverywhere, CreatedAt: 3},
		{ID: "gr_4", Effect: "allow", Tool: "write_file", Scope: store.ScopeRun, RunID: "run_2", CreatedAt: 4},
	} {
		if _, err := st.CreateGrant(ctx, g); err != nil {
			t.Fatalf("CreateGrant %d: %v", i, err)
		}
	}
	if _, err := st.CreateGrant(ctx, store.Grant{ID: "gr_1", Effect: "allow", Tool: "x", Scope: store.ScopeEverywhere}); !errors.Is(err, store.ErrConflict) {
		t.Errorf("CreateGrant with a taken id: %v, want ErrConflict", err)
	}
	g, err := st.CreateGrant(ctx, store.Grant{ID: "gr_5", Effect: "allow", Tool: "list_dir", Scope: store.ScopeEverywhere})
	if err != nil || g.CreatedAt == 0 {
		t.Fatalf("CreateGrant without created_at = %+v, %v", g, err)
	}

	list, err := st.ListGrants(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, g := range list {
		ids = append(ids, g.ID)
	}
	if diff := cmp.Diff([]string{"gr_5", "gr_4", "gr_3", "gr_2", "gr_1"}, ids); diff != "" {
		t.Errorf("ListGrants ids, newest first (-want +got):\n%s", diff)
	}
	if list[3].Match != "rm -rf /" || list[3].AgentID != "ag_1" || list[3].Scope != "agent" || list[3].Effect != "deny" {
		t.Errorf("gr_2 = %+v", list[3])
	}

	rules, err := st.Grants(ctx, "run_1", "ag_1")
	if err != nil {
		t.Fatal(err)
	}
	want := []policy.Rule{
		{Effect: policy.Allow, Tool: "write_file", Match: "a.txt", Source: "grant run gr_1"},
		{Effect: policy.Deny, Tool: "run_command", Match: "rm -rf /", Source: "grant agent gr_2"},
		{Effect: policy.Allow, Tool: "read_file", Source: "grant everywhere gr_3"},
		{Effect: policy.Allow, Tool: "list_dir", Source: "grant everywhere gr_5"},
	}
	if diff := cmp.Diff(want, rules); diff != "" {
		t.Errorf("Grants(run_1, ag_1) (-want +got):\n%s", diff)
	}
	// No agent id matches no agent grant, even one saved without an agent.
	rules, err = st.Grants(ctx, "run_9", "")
	if err != nil || len(rules) != 2 {
		t.Errorf("Grants(run_9, \"\") = %v, %v; want the two everywhere grants", rules, err)
	}

	if err := st.DeleteGrant(ctx, "gr_1"); err != nil {
		t.Fatalf("DeleteGrant: %v", err)
	}
	if err := st.DeleteGrant(ctx, "gr_1"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("DeleteGrant again: %v, want ErrNotFound", err)
	}
	if rules, _ := st.Grants(ctx, "run_1", ""); len(rules) != 2 {
		t.Errorf("after revoking gr_1, Grants(run_1) = %v", rules)
	}
}
