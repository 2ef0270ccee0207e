package mcp

// Elicitation: a server may ask the person for input while one of its
// tools runs, as a form to fill in (a flat schema) or a page to open. On
// the 2026-07-28 era the question comes back as the call's input-required
// result, and the SDK asks the handler with the call's own context, then
// retries the call with the answer; on the older era it is a request of
// its own, elicitation/create, on the call's session. Either way the
// question goes to the call in flight (tool.Env.Elicit: the run's inbox),
// never to the model; a server that asks with no call in flight, or asks
// for what MCP does not allow, is refused.

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"steward/backend/elicit"
	"steward/backend/tool"
)

// asking is a call in flight that its server may ask the person about.
type asking struct {
	env    tool.Env
	server string
}

type askingKey struct{}

// askings are the calls in flight by session, for the questions that come
// as requests of their own (the older era), which say nothing of the call
// they are about.
type askings struct {
	mu    sync.Mutex
	calls map[*sdk.ClientSession][]*asking
}

// calling registers a call in flight on cs and returns its context, which
// carries it, and the function that ends it.
func (a *askings) calling(ctx context.Context, cs *sdk.ClientSession, env tool.Env, server string) (context.Context, func()) {
	c := &asking{env: env, server: server}
	a.mu.Lock()
	if a.calls == nil {
		a.calls = map[*sdk.ClientSession][]*asking{}
	}
	a.calls[cs] = append(a.calls[cs], c)
	a.mu.Unlock()
	return context.WithValue(ctx, askingKey{}, c), func() {
		a.mu.Lock()
		defer a.mu.Unlock()
		a.calls[cs] = slices.DeleteFunc(a.calls[cs], func(x *asking) bool { return x == c })
		if len(a.calls[cs]) == 0 {
			delete(a.calls, cs)
		}
	}
}

// callOn is the call a request of cs is about: the latest in flight (a
// session is one run's, so any of them is that run's call), or none when
// calls of several runs are in flight on it (a shared server's): the
// question would go to a person who may not be its run's.
func (a *askings) callOn(cs *sdk.ClientSession) *asking {
	a.mu.Lock()
	defer a.mu.Unlock()
	calls := a.calls[cs]
	for _, c := range calls {
		if c.env.RunID != calls[0].env.RunID {
			return nil
		}
	}
	if len(calls) > 0 {
		return calls[len(calls)-1]
	}
	return nil
}

// elicit is the client's ElicitationHandler.
func (m *Manager) elicit(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
	c, _ := ctx.Value(askingKey{}).(*asking)
	if c == nil && req != nil {
		c = m.asking.callOn(req.Session)
	}
	if c == nil || req == nil || req.Params == nil {
		return nil, invalidParams("Steward asks its person only about one run's tool call in flight, and this session has none (or calls of several runs: the server is shared)")
	}
	q, err := question(c.server, req.Params)
	if err != nil {
		return nil, invalidParams(fmt.Sprintf("the elicitation of MCP server %s: %v", c.server, err))
	}
	ans, err := c.env.AskPerson(ctx, q)
	if err != nil {
		return nil, err
	}
	res := &sdk.ElicitResult{Action: ans.Action}
	if ans.Action == tool.ElicitAccept && len(ans.Content) > 0 && q.URL == "" {
		if err := json.Unmarshal(ans.Content, &res.Content); err != nil {
			return nil, fmt.Errorf("the answer to MCP server %s: %w", c.server, err)
		}
	}
	return res, nil
}

// question checks what a server asks and makes it the person's question.
func question(server string, p *sdk.ElicitParams) (tool.Elicitation, error) {
	q := tool.Elicitation{Text: elicit.Message(p.Message), Server: server}
	switch p.Mode {
	case "", "form":
		raw, err := json.Marshal(p.RequestedSchema)
		if err != nil {
			return q, fmt.Errorf("the requested schema: %v", err)
		}
		if err := elicit.CheckSchema(raw); err != nil {
			return q, err
		}
		q.Schema = raw
	case "url":
		if err := elicit.CheckURL(p.URL); err != nil {
			return q, err
		}
		q.URL = p.URL
	default:
		return q, fmt.Errorf("mode %q is not form or url", p.Mode)
	}
	return q, nil
}

func invalidParams(msg string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg}
}
