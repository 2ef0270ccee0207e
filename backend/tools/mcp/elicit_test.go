package mcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"steward/backend/elicit"
	"steward/backend/tool"
	"steward/backend/tools/mcp"
	"steward/backend/tools/mcp/mcptest"
)

// person answers elicitations as a test's person does, and keeps what
// they were asked.
type person struct {
	mu     sync.Mutex
	asked  []tool.Elicitation
	answer func(q tool.Elicitation) tool.ElicitAnswer
}

func (p *person) elicit(_ context.Context, q tool.Elicitation) (tool.ElicitAnswer, error) {
	p.mu.Lock()
	p.asked = append(p.asked, q)
	p.mu.Unlock()
	return p.answer(q), nil
}

const askForm = `{"message": "Which <b>colour</b>?\u0007", "schema": {"type": "object", "properties": {
	"colour": {"type": "string", "enum": ["red", "green"]}, "n": {"type": "integer", "default": 3}}, "required": ["colour"]}}`

// A server's question reaches the person of the call in flight, on every
// transport and both eras (an input-required result on 2026-07-28,
// elicitation/create before), and the answer reaches the server with the
// form's defaults filled in.
func TestElicitationReachesThePersonOfTheCall(t *testing.T) {
	t.Parallel()
	servers := transports(t)
	servers["stdio-legacy"] = mcptest.Stdio(mcptest.Legacy)
	for kind, srv := range servers {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			reg, _, l := setup(t, map[string]mcp.Server{"fx": srv}, nil)
			p := &person{answer: func(q tool.Elicitation) tool.ElicitAnswer {
				content, err := elicit.Content(q.Schema, json.RawMessage(`{"colour": "green"}`))
				if err != nil {
					t.Errorf("the person's answer: %v", err)
				}
				return tool.ElicitAnswer{Action: tool.ElicitAccept, Content: content}
			}}
			env := tool.Env{RunID: "run_1", Elicit: p.elicit}
			res, err := reg.Call(context.Background(), env, "mcp__fx__ask", json.RawMessage(askForm))
			if err != nil || res.IsError {
				t.Fatalf("%+v, %v (log: %s)", res, err, l)
			}
			if want := mcptest.AskAnswer + `{"action":"accept","content":{"colour":"green","n":3}}`; res.Output != want {
				t.Errorf("the server heard %q, want %q", res.Output, want)
			}
			if len(p.asked) != 1 {
				t.Fatalf("asked %d times, want once", len(p.asked))
			}
			q := p.asked[0]
			if q.Server != "fx" || q.Text != "Which <b>colour</b>?" || q.URL != "" || elicit.CheckSchema(q.Schema) != nil {
				t.Errorf("asked %+v: want the server's name, its message without the control character, its schema", q)
			}
		})
	}
}

// A page is shown to the person, never opened for the model; declining
// and a call with nobody to ask (no Elicit) reach the server as decline.
func TestElicitationOfAPageAndDeclines(t *testing.T) {
	t.Parallel()
	reg, _, l := setup(t, map[string]mcp.Server{"fx": mcptest.Stdio(nil)}, nil)
	p := &person{answer: func(tool.Elicitation) tool.ElicitAnswer { return tool.ElicitAnswer{Action: tool.ElicitDecline} }}
	res, err := reg.Call(context.Background(), tool.Env{RunID: "run_1", Elicit: p.elicit}, "mcp__fx__ask",
		json.RawMessage(`{"message": "Sign in", "url": "https://auth.example/consent"}`))
	if err != nil || res.IsError || res.Output != mcptest.AskAnswer+`{"action":"decline"}` {
		t.Fatalf("%+v, %v (log: %s)", res, err, l)
	}
	if len(p.asked) != 1 || p.asked[0].URL != "https://auth.example/consent" || p.asked[0].Schema != nil {
		t.Errorf("asked %+v", p.asked)
	}
	res, err = reg.Call(context.Background(), tool.Env{RunID: "run_1"}, "mcp__fx__ask", json.RawMessage(askForm))
	if err != nil || res.IsError || res.Output != mcptest.AskAnswer+`{"action":"decline"}` {
		t.Errorf("nobody to ask: %+v, %v", res, err)
	}
}

// What MCP does not allow is refused before a person sees it: a nested
// form, a page that is not https, and the call says so.
func TestHostileElicitationsAreRefusedUnasked(t *testing.T) {
	t.Parallel()
	reg, _, _ := setup(t, map[string]mcp.Server{"fx": mcptest.Stdio(nil)}, nil)
	p := &person{answer: func(tool.Elicitation) tool.ElicitAnswer { return tool.ElicitAnswer{Action: tool.ElicitAccept} }}
	for _, c := range []struct{ args, want string }{
		{`{"message": "x", "schema": {"type": "object", "properties": {"o": {"type": "object", "properties": {}}}}}`, `property "o"`},
		{`{"message": "x", "url": "javascript:alert(1)"}`, `"javascript:alert(1)" has no host`},
		{`{"message": "x", "url": "http://example.com/login"}`, "only https"},
	} {
		res, err := reg.Call(context.Background(), tool.Env{RunID: "run_1", Elicit: p.elicit}, "mcp__fx__ask", json.RawMessage(c.args))
		if err != nil || !res.IsError || !strings.Contains(res.Output, c.want) || !strings.Contains(res.Output, "fx") {
			t.Errorf("%s: %+v, %v; want a tool error naming the server and %q", c.args, res, err, c.want)
		}
	}
	if len(p.asked) != 0 {
		t.Errorf("the person was asked %+v", p.asked)
	}
}
