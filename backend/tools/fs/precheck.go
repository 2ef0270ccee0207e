package fs

import (
	"context"
	"encoding/json"
	"errors"

	"steward/backend/tool"
	"steward/backend/workspace"
)

// checkedTool is a write tool with its precheck: its body run dry, every
// check the call makes (a stale read, text not in the file, a patch that
// does not apply) done, nothing written.
type checkedTool[A any] struct {
	tool.Tool
	body func(ctx context.Context, c call, args A) (string, error)
}

var _ tool.Prechecker = checkedTool[writeArgs]{}

// prechecked gives t, a Toucher, the precheck of its body.
func prechecked[A any](t tool.Tool, body func(ctx context.Context, c call, args A) (string, error)) tool.Tool {
	return checkedTool[A]{Tool: t, body: body}
}

// Touches implements tool.Toucher, as t does.
func (t checkedTool[A]) Touches(env tool.Env, raw json.RawMessage) ([]tool.Touch, bool) {
	return t.Tool.(tool.Toucher).Touches(env, raw)
}

// Precheck implements tool.Prechecker: the failure the call would have,
// when it would fail on what the checks see. A system error is no refusal:
// the call itself reports it.
func (t checkedTool[A]) Precheck(ctx context.Context, env tool.Env, raw json.RawMessage) (tool.Result, bool) {
	var args A
	if json.Unmarshal(raw, &args) != nil {
		return tool.Result{}, false // the registry's Validate refuses it
	}
	ws, err := workspace.Open(env.Workspace)
	if err != nil {
		return tool.Result{}, false
	}
	_, err = t.body(ctx, call{ws: ws, files: env.Files, withheld: env.Withheld, dry: true}, args)
	var f *failure
	if errors.As(err, &f) {
		return tool.Errorf(f.code, f.msg), true
	}
	return tool.Result{}, false
}
