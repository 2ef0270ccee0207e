package fs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"steward/backend/tool"
	"steward/backend/workspace"
)

// checkedTool is a write tool with its precheck and its preview: its body
// run dry, every check the call makes (a stale read, text not in the file,
// a patch that does not apply) done, what it would write noted, nothing
// written.
type checkedTool[A any] struct {
	tool.Tool
	body func(ctx context.Context, c call, args A) (string, error)
}

var (
	_ tool.Prechecker = checkedTool[writeArgs]{}
	_ tool.Previewer  = checkedTool[writeArgs]{}
)

// prechecked gives t, a Toucher, the precheck and the preview of its body.
func prechecked[A any](t tool.Tool, body func(ctx context.Context, c call, args A) (string, error)) tool.Tool {
	return checkedTool[A]{Tool: t, body: body}
}

// Touches implements tool.Toucher, as t does.
func (t checkedTool[A]) Touches(env tool.Env, raw json.RawMessage) ([]tool.Touch, bool) {
	return t.Tool.(tool.Toucher).Touches(env, raw)
}

// plan is what a dry run would change, file by file, in the call's order.
type plan struct {
	changes []planned
}

// planned is one file's change: before and after are nil when the file is
// absent (created, deleted).
type planned struct {
	rel           string
	before, after []byte
}

// add notes the change of rel to after when p is set (a dry run), and
// reports whether it did: the body then stops before writing.
func (p *plan) add(rel string, cur current, after []byte) bool {
	if p == nil {
		return false
	}
	p.changes = append(p.changes, planned{rel: rel, before: cur.before(), after: after})
	return true
}

// dryRun runs the body dry: the plan, or the refusal the call would get
// (refused); a system error (the workspace gone) is neither.
func (t checkedTool[A]) dryRun(ctx context.Context, env tool.Env, raw json.RawMessage) (p *plan, refusal *failure, err error) {
	var args A
	if err := json.Unmarshal(raw, &args); err != nil {
		return nil, nil, err // the registry's Validate refuses it
	}
	ws, err := workspace.Open(env.Workspace)
	if err != nil {
		return nil, nil, err
	}
	p = &plan{}
	_, err = t.body(ctx, call{ws: ws, files: env.Files, withheld: env.Withheld, dry: p}, args)
	if errors.As(err, &refusal) {
		return nil, refusal, nil
	}
	return p, nil, err
}

// Precheck implements tool.Prechecker: the failure the call would have,
// when it would fail on what the checks see. A system error is no refusal:
// the call itself reports it.
func (t checkedTool[A]) Precheck(ctx context.Context, env tool.Env, raw json.RawMessage) (tool.Result, bool) {
	_, f, _ := t.dryRun(ctx, env, raw)
	if f == nil {
		return tool.Result{}, false
	}
	return tool.Errorf(f.code, f.msg), true
}

// MaxPreview bounds the diff of a preview, which an approval's event
// holds: a longer one is cut, and its note says so.
const MaxPreview = 32 << 10

// Preview implements tool.Previewer: the diff of every file the call would
// change, against its content now.
func (t checkedTool[A]) Preview(ctx context.Context, env tool.Env, raw json.RawMessage) (tool.Preview, bool) {
	p, f, err := t.dryRun(ctx, env, raw)
	if f != nil || err != nil || len(p.changes) == 0 {
		return tool.Preview{}, false
	}
	var diff strings.Builder
	var notes []string
	for _, c := range p.changes {
		d, note := workspace.Diff(c.rel, c.before, c.after)
		diff.WriteString(d)
		if note != "" {
			notes = append(notes, c.rel+": "+note)
		}
	}
	out := tool.Preview{Diff: diff.String()}
	if len(out.Diff) > MaxPreview {
		cut := strings.LastIndexByte(out.Diff[:MaxPreview], '\n') + 1
		notes = append(notes, fmt.Sprintf("diff cut at %d KiB of %d KiB", cut>>10, len(out.Diff)>>10))
		out.Diff = out.Diff[:cut]
	}
	out.Note = strings.Join(notes, "; ")
	return out, true
}
