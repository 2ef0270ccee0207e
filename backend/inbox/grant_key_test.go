package inbox

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
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
// its key (the page's host) as it was when the person was asked, as its
// rules match it: not for every page, nor for a page the browser went to
// while the approval waited.
func TestGrantOfAKeyedToolHoldsForItsKey(t *testing.T) {
	t.Parallel()
	asked := func(k string) *string { return &k }
	for _, c := range []struct {
		name        string
		asked       *string // the key when the approval was opened
		now, host   string  // the tool's key when answered; the host granted
		match       string
		editedPages bool
	}{
		{name: "the page asked about", asked: asked("shop.example.com"), now: "evil.example.com", host: "shop.example.com", match: "shop.example.com"},
		{name: "no page open", asked: asked(""), now: "shop.example.com", match: noKey}, // the grant holds for nothing wider
		{name: "opened before keys were kept", now: "shop.example.com", host: "shop.example.com", match: "shop.example.com"},
		{name: "edited arguments", asked: asked("shop.example.com"), now: "docs.example.com", host: "docs.example.com", match: "docs.example.com", editedPages: true},
	} {
		_, st, _ := setup(t)
		reg := tool.NewRegistry()
		if err := reg.Register(pageTool{c.now}); err != nil {
			t.Fatal(err)
		}
		var n atomic.Int64
		in := New(st, reg, func() string { return fmt.Sprintf("ia_%d", n.Add(1)) })
		ctx := context.Background()
		id, err := in.Open(ctx, Request{RunID: "run_1", NodeID: "n4", Tool: "page_act", Arguments: json.RawMessage(`{"action":"click","ref":"e3"}`), Risk: "write", Key: c.asked})
		if err != nil {
			t.Fatal(err)
		}
		d := Decision{Decision: "approve", Scope: store.ScopeRun, Source: "web"}
		if c.editedPages {
			d.Arguments = json.RawMessage(`{"action":"click","ref":"e4"}`)
		}
		if _, err := in.Answer(ctx, id, d); err != nil {
			t.Fatal(err)
		}
		gs, err := st.ListGrants(ctx)
		if err != nil || len(gs) != 1 || gs[0].Match != c.match {
			t.Fatalf("%s: grants %+v, %v; want one matching %q", c.name, gs, err, c.match)
		}
		for _, key := range []string{"shop.example.com", "evil.example.com", "docs.example.com", ""} {
			want := policy.Ask
			if key == c.host && key != "" {
				want = policy.Allow
			}
			k := key
			d := policy.Decide(policy.Input{Tool: "page_act", Risk: tool.RiskWrite, Mode: "ask", Key: &k, Rules: []policy.Rule{gs[0].Rule()},
				Args: json.RawMessage(`{"action":"click","ref":"e3"}`)})
			if d.Effect != want {
				t.Errorf("%s: a call on %q is %s (%s), want %s", c.name, key, d.Effect, d.Reason, want)
			}
		}
	}
}

// "Always" for a file's folder grants every file beneath that folder, and
// nothing beside it; a file at the root, or a call that touches no single
// file, has no folder to grant, and says so.
func TestGrantOfAFolderHoldsBeneathIt(t *testing.T) {
	t.Parallel()
	in, st, _ := setup(t)
	ctx := context.Background()
	ask := func(args string) string {
		id, err := in.Open(ctx, Request{RunID: "run_1", NodeID: "n4", Tool: "write_file", Arguments: json.RawMessage(args), Risk: "write"})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	d := Decision{Decision: "approve", Scope: store.ScopeRun, Folder: true, Source: "web"}
	if _, err := in.Answer(ctx, ask(`{"path":"top.txt","content":"x"}`), d); err == nil || !strings.Contains(err.Error(), "at the root") {
		t.Errorf("a root file's folder: %v", err)
	}
	if _, err := in.Answer(ctx, ask(`{"path":"src/calc.py","content":"x"}`), Decision{Decision: "approve", Scope: store.ScopeRun, Folder: true, AnyArgument: true}); err == nil || !strings.Contains(err.Error(), "give one") {
		t.Errorf("folder and any argument together: %v", err)
	}
	if _, err := in.Answer(ctx, ask(`{"path":"src/calc.py","content":"x"}`), d); err != nil {
		t.Fatal(err)
	}
	gs, err := st.ListGrants(ctx)
	if err != nil || len(gs) != 1 || gs[0].Match != "src/**" {
		t.Fatalf("grants %+v, %v; want one matching src/**", gs, err)
	}
	for p, want := range map[string]policy.Effect{"src/other.py": policy.Allow, "src/deep/x.py": policy.Allow, "srcx/a.py": policy.Ask, "top.txt": policy.Ask} {
		args := json.RawMessage(`{"path":"` + p + `","content":"x"}`)
		got := policy.Decide(policy.Input{Tool: "write_file", Risk: tool.RiskWrite, Mode: "ask", Args: args, Rules: []policy.Rule{gs[0].Rule()},
			Touches: []tool.Touch{{Path: p, Access: tool.AccessWrite}}, Touched: true})
		if got.Effect != want {
			t.Errorf("write_file %s: %s (%s), want %s", p, got.Effect, got.Reason, want)
		}
	}
}
