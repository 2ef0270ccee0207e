package replay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sync"

	"steward/backend/event"
	"steward/backend/inbox"
	"steward/backend/run"
	"steward/backend/store"
	"steward/backend/tool"
)

// CodeDiverged is the code of a tool result a replay made up because the
// recording has none for the call: the model asked for something the
// recorded run never did.
const CodeDiverged = "replay_diverged"

// Tools is the engine's tool registry with calls answered from the
// recording (the recorded output, error flag and code), each matched to a
// recorded call that ran (see Call); calls the engine itself ended
// (denied, invalid, unknown) never reach it, in a replay either. A
// file tool's recorded changes are written too (the recorded contents
// after the call), and reported to the run's journal, so the workspace and
// the log follow the recorded run. Specs, validation and keys are the
// registry's.
type Tools struct {
	run.Tools
	rec *Recorded
	// served, when set, limits the recording to the calls it says came
	// from a recorded model response; live says where the other calls go,
	// and liveTurn, when set, whether the calls being made are a live
	// model's (only those may run for real).
	served   func(callID string) bool
	live     bool
	liveTurn func() bool

	mu   sync.Mutex
	used map[string]bool // call ids answered already
}

var _ run.Tools = (*Tools)(nil)

// ToolsOptions tune Tools; the zero value answers every call id the
// recording holds and refuses the others.
type ToolsOptions struct {
	// Provider, when set, is the replay's model: only the calls of its
	// recorded responses are answered from the recording (a live model
	// after --live-from may reuse an id).
	Provider *Provider
	// Live runs the calls the recording cannot answer with the real tools
	// (after --live-from) instead of refusing them.
	Live bool
}

// NewTools wraps the registry inner.
func NewTools(rec *Recorded, inner run.Tools, o ToolsOptions) *Tools {
	t := &Tools{Tools: inner, rec: rec, live: o.Live, used: map[string]bool{}}
	if o.Provider != nil {
		t.served, t.liveTurn = o.Provider.Served, o.Provider.AnsweredLive
	}
	return t
}

// Lookup is the registry's, and for a tool the registry lacks that the
// recorded run called (a project server's, which only that run's workspace
// offered; a server this machine does not have), the spec the recording
// gives: its name and recorded risk, so the replay decides and answers the
// call as the recorded run did. Such a tool never runs here: Call answers
// it from the recording, and past it a live call of it is the registry's
// unknown tool.
func (t *Tools) Lookup(name string) (tool.Spec, bool) {
	if spec, ok := t.Tools.Lookup(name); ok {
		return spec, true
	}
	risk, ok := t.rec.called(name)
	if !ok {
		return tool.Spec{}, false
	}
	if risk == "" {
		risk = tool.RiskExec
	}
	return tool.Spec{Name: name, Description: "a tool of the recorded run, which this machine does not have: answered from the recording",
		Risk: risk, Schema: json.RawMessage(`{"type":"object"}`)}, true
}

// Validate is the registry's; the arguments of a recorded-only tool (see
// Lookup) are matched to the recording's by Call instead.
func (t *Tools) Validate(name string, args json.RawMessage) (tool.Result, bool) {
	if _, known := t.Tools.Lookup(name); !known {
		if _, called := t.rec.called(name); called {
			return tool.Result{}, true
		}
	}
	return t.Tools.Validate(name, args)
}

// Precheck refuses nothing: a recorded call is answered from the
// recording whatever the replay's files say, and was put to a person (or
// not) as the recorded run was.
func (t *Tools) Precheck(context.Context, string, tool.Env, json.RawMessage) (tool.Result, bool) {
	return tool.Result{}, false
}

// Call answers the call from the recording. The engine's Env does not
// name the call, so it is found by what it asks: the first recorded call
// not answered yet with the same tool and arguments (the model's, or a
// person's edit of them), in the order the recorded run made them. A call
// the recording does not hold is run for real when Live is set and the
// call is the live model's (asked after LiveFrom); any other gets a
// model-visible error with code CodeDiverged. So a call of a recorded
// response never runs for real, whatever its arguments became: an approval
// answered from the recording (Approver) can let through only a result
// from the recording. A Go error means a recorded change could not be
// written.
func (t *Tools) Call(ctx context.Context, env tool.Env, name string, args json.RawMessage) (tool.Result, error) {
	c, ok := t.take(name, args)
	if !ok {
		if t.live && (t.liveTurn == nil || t.liveTurn()) {
			return t.Tools.Call(ctx, env, name, args)
		}
		return tool.Errorf(CodeDiverged, fmt.Sprintf("the replay diverged from its recording: the recorded run made no %s call with these arguments, so there is no result to give", name)), nil
	}
	if err := t.apply(env, c.changes); err != nil {
		return tool.Result{}, fmt.Errorf("replay %s: %w", name, err)
	}
	// What the tool answered: the engine adds again what it added to the
	// recorded result.
	return tool.Result{Output: run.ToolOutput(c.output, len(c.ran) > 0), IsError: c.isError, Code: c.code}, nil
}

func (t *Tools) take(name string, args json.RawMessage) (toolCall, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, id := range t.rec.order {
		c := t.rec.calls[id]
		if t.used[id] || c.tool != name || (t.served != nil && !t.served(id)) {
			continue
		}
		if sameJSON(c.args, args) || (len(c.ran) > 0 && sameJSON(c.ran, args)) {
			t.used[id] = true
			return c, true
		}
	}
	return toolCall{}, false
}

// apply writes the recorded contents after the call's changes (a deletion
// where the content after is empty) and reports each to the run's journal,
// as the file tool did. The watcher sees a command's changes itself.
func (t *Tools) apply(env tool.Env, changes []event.FileChangedData) error {
	if len(changes) == 0 {
		return nil
	}
	root, err := os.OpenRoot(env.Workspace)
	if err != nil {
		return err
	}
	defer root.Close()
	for _, ch := range changes {
		var after []byte
		if ch.After != "" {
			b, ok := t.rec.blobs[ch.After]
			if !ok {
				continue // the recording left it out (too large): nothing to write
			}
			after = b
		}
		name := filepath.FromSlash(ch.Path)
		before, err := root.ReadFile(name)
		if errors.Is(err, fs.ErrNotExist) {
			before = nil
		} else if err != nil {
			return err
		}
		if after == nil {
			if err := root.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		} else {
			if d := path.Dir(ch.Path); d != "." {
				if err := root.MkdirAll(filepath.FromSlash(d), 0o755); err != nil {
					return err
				}
			}
			if err := root.WriteFile(name, after, 0o644); err != nil {
				return err
			}
		}
		if env.Files != nil && ch.Source == event.FileByTool {
			if err := env.Files.Changed(ch.Path, before, after); err != nil {
				return err
			}
		}
	}
	return nil
}

// Answerer is the inbox as Approver needs it: the engine's approver, and
// the answering a person would do.
type Answerer interface {
	run.Approver
	Answer(ctx context.Context, id string, d inbox.Decision) (store.Interaction, error)
}

var _ Answerer = (*inbox.Inbox)(nil)

// Approver answers the run's approvals and questions as the recorded run's
// were answered: each one opened is matched to the first recorded one not
// used yet of the same tool and arguments, and answered (when the engine
// waits for it, so the run passes through waiting as the recorded one
// did) with the recorded decision, feedback, edited arguments and answer.
// A grant the recorded answer saved is not saved again. One with no
// recorded match is denied, the feedback saying that the replay diverged.
// A call the recording did not ask for (a live model's, after LiveFrom) is
// left to a person: a recorded answer is no answer to it.
//
// With ApproverOptions.Unasked, a call of the recording that was not asked
// about when it was recorded (a replay under another agent's stricter
// policy asks more) is approved, not denied: with the recorded tools its
// result comes from the recording, and nothing runs.
type Approver struct {
	Answerer
	rec     *Recorded
	prov    *Provider
	unasked bool

	mu   sync.Mutex
	used []bool
	due  map[string]inbox.Decision // by interaction id
}

// ApproverOptions tune an Approver; the zero value denies a recorded call
// that has no recorded answer.
type ApproverOptions struct {
	// Unasked approves a recorded call that has no recorded answer. Set it
	// only when the recorded tools answer the calls (NewTools), which never
	// run a recorded call for real.
	Unasked bool
}

// NewApprover wraps the inbox in; p tells the calls it served from the
// recording; o may be nil.
func NewApprover(rec *Recorded, in Answerer, p *Provider, o *ApproverOptions) *Approver {
	a := &Approver{Answerer: in, rec: rec, prov: p, used: make([]bool, len(rec.approvals)), due: map[string]inbox.Decision{}}
	if o != nil {
		a.unasked = o.Unasked
	}
	return a
}

// Open opens the interaction in the inbox and finds its recorded answer.
func (a *Approver) Open(ctx context.Context, r inbox.Request) (string, error) {
	id, err := a.Answerer.Open(ctx, r)
	if err != nil {
		return "", err
	}
	if !a.prov.Served(r.CallID) {
		return id, nil // a live model's call: a person answers
	}
	d := inbox.Decision{Decision: event.DecisionDeny, Source: "replay",
		Feedback: "the replay diverged from its recording: the recorded run was never asked about this " + r.Tool + " call"}
	if a.unasked {
		d = inbox.Decision{Decision: event.DecisionApprove, Source: "replay"}
	}
	a.mu.Lock()
	for i, rec := range a.rec.approvals {
		if a.used[i] || rec.decided == nil || rec.tool != r.Tool || !sameJSON(rec.arguments, r.Arguments) {
			continue
		}
		a.used[i] = true
		x := rec.decided
		d = inbox.Decision{Decision: string(x.Decision), Feedback: x.Feedback, Source: x.Source, Arguments: x.Arguments, Text: x.Text, Choices: x.Choices}
		break
	}
	a.due[id] = d
	a.mu.Unlock()
	return id, nil
}

// Wait answers the interaction as recorded, then waits for it as the
// engine would for a person.
func (a *Approver) Wait(ctx context.Context, id string) (inbox.Decision, error) {
	a.mu.Lock()
	d, ok := a.due[id]
	delete(a.due, id)
	a.mu.Unlock()
	if ok {
		if _, err := a.Answerer.Answer(ctx, id, d); err != nil && !errors.Is(err, inbox.ErrAnswered) {
			return inbox.Decision{}, fmt.Errorf("replay the answer to %s: %w", id, err)
		}
	}
	return a.Answerer.Wait(ctx, id)
}
