package inbox

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"

	"steward/backend/policy"
	"steward/backend/store"
	"steward/backend/tool"
)

// pageTool acts on the page its run shows, and keys its rules on that
// page's host, as browser_act does; its arguments (a ref) say nothing of
// the page.
type pageTool struct{ host string }

func (pageTool) Spec() tool.Spec {
	return tool.Spec{Name: "page_act", Description: "Acts on the page.", Risk: tool.RiskWrite, Schema: json.RawMessage(`{"type":"object"}`)}
}
func (pageTool) Run(context.Context, tool.Env, json.RawMessage) (tool.Result, error) {
	return tool.Result{}, nil
}
func (p pageTool) Key(tool.Env, json.RawMessage) (string, bool) { return p.host, true }

// "Approve always" of a call of a tool that keys itself is granted for
// its key (the page's host), as its rules match it: not for every page.
func TestGrantOfAKeyedToolHoldsForItsKey(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ host, match string }{
		{"shop.example.com", "shop.example.com"},
		{"", noKey}, // no page open: the grant holds for nothing wider
	} {
		_, st, _ := setup(t)
		reg := tool.NewRegistry()
		if err := reg.Register(pageTool{c.host}); err != nil {
			t.Fatal(err)
		}
		var n atomic.Int64
		in := New(st, reg, func() string { return fmt.Sprintf("ia_%d", n.Add(1)) })
		ctx := context.Background()
		id, err := in.Open(ctx, Request{RunID: "run_1", NodeID: "n4", Tool: "page_act", Arguments: json.RawMessage(`{"action":"click","ref":"e3"}`), Risk: "write"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := in.Answer(ctx, id, Decision{Decision: "approve", Scope: store.ScopeRun, Source: "web"}); err != nil {
			t.Fatal(err)
		}
		gs, err := st.ListGrants(ctx)
		if err != nil || len(gs) != 1 || gs[0].Match != c.match {
			t.Fatalf("page %q: grants %+v, %v; want one matching %q", c.host, gs, err, c.match)
		}
		for key, want := range map[string]policy.Effect{"shop.example.com": policy.Allow, "evil.example.com": policy.Ask, "": policy.Ask} {
			if c.host == "" && key == "shop.example.com" {
				want = policy.Ask
			}
			k := key
			d := policy.Decide(policy.Input{Tool: "page_act", Risk: tool.RiskWrite, Mode: "ask", Key: &k, Rules: []policy.Rule{gs[0].Rule()},
				Args: json.RawMessage(`{"action":"click","ref":"e3"}`)})
			if d.Effect != want {
				t.Errorf("page %q granted; a call on %q is %s (%s), want %s", c.host, key, d.Effect, d.Reason, want)
			}
		}
	}
}
