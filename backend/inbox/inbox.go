// Package inbox holds everything that waits on a person: approval requests
// (and, later, questions). Interactions are durable rows projected from the
// run's events; the first answer wins and every later one gets ErrAnswered.
// Any surface can answer (web, desktop, CLI, API), in this process or
// another one sharing the database: a waiter is woken at once by an answer
// given here, and notices an answer given elsewhere by polling.
package inbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"
	"sync"
	"time"

	"steward/backend/event"
	"steward/backend/fault"
	"steward/backend/policy"
	"steward/backend/store"
	"steward/backend/tool"
)

// SourceTimeout is the source of a default decision taken because nobody
// answered in time.
const SourceTimeout = "timeout"

// SourceWithdrawn is the source of the close of an interaction that nothing
// waits for any more (Withdraw): the tool call that asked ended, or the
// process that ran it stopped.
const SourceWithdrawn = "withdrawn"

// Errors of Answer. ErrAnswered is a conflict: the interaction is no longer
// pending (the first answer won, or the run ended).
var (
	ErrAnswered = fault.New(fault.Conflict, "already answered")
	ErrNotFound = fault.New(fault.NotFound, "interaction not found")
	ErrInvalid  = fault.New(fault.Invalid, "invalid answer")
)

// Store is what the inbox needs of the database.
type Store interface {
	Append(ctx context.Context, ev event.Event) (event.Event, error)
	GetInteraction(ctx context.Context, id string) (store.Interaction, error)
	GetRun(ctx context.Context, id string) (store.Run, error)
	CreateGrant(ctx context.Context, g store.Grant) (store.Grant, error)
	DeleteGrant(ctx context.Context, id string) error
}

// Tools validates edited arguments against the tool's schema: the
// registry's Validate, which answers a model-visible result when they are
// wrong.
type Tools interface {
	Validate(name string, args json.RawMessage) (tool.Result, bool)
}

// RunTools, when the Tools have it, gives a run's own tools: the registry
// with the servers of the run's workspace's .mcp.json (a layer, see
// tool.Registry.Layer), which the process's registry does not know.
type RunTools interface {
	RunTools(runID string) Tools
}

// toolsOf returns the tools of run runID.
func (in *Inbox) toolsOf(runID string) Tools {
	if rt, ok := in.tools.(RunTools); ok {
		if t := rt.RunTools(runID); t != nil {
			return t
		}
	}
	return in.tools
}

// Keys gives the key a tool decides for itself (tool.Keyer), for the grant
// of an approval of it; the registry has it.
type Keys interface {
	Key(name string, env tool.Env, args json.RawMessage) (string, bool)
}

// Touchers gives the workspace paths a call opens (tool.Toucher), for the
// grant of an approval of it: a grant holds for the file itself, the
// target of a link rather than the link. The registry has it.
type Touchers interface {
	Touches(name string, env tool.Env, args json.RawMessage) ([]tool.Touch, bool)
}

// noKey is the match of a grant for a keyed call that had no key (a page
// tool before any page was open): it matches no key, so the grant holds
// for nothing wider than what was approved.
const noKey = "(none)"

// Inbox opens approvals and takes answers.
type Inbox struct {
	store   Store
	tools   Tools
	now     func() time.Time
	newID   func() string
	poll    time.Duration
	mu      sync.Mutex
	waiters map[string]chan Decision
}

// New returns an inbox over st. tools validates edited arguments (nil
// checks only that they are a JSON object); newID makes interaction ids.
func New(st Store, tools Tools, newID func() string) *Inbox {
	return &Inbox{store: st, tools: tools, now: time.Now, newID: newID, poll: 500 * time.Millisecond, waiters: map[string]chan Decision{}}
}

// Request opens an approval, or a question, for a tool node.
type Request struct {
	RunID  string
	NodeID string
	// CallID is the model's id of the tool call asked about. It is not
	// recorded (the node's events hold it); a replay's approver uses it.
	CallID string
	// Key is the key the tool gives the call (tool.Keyer), when it gives
	// one: an "always" answer's grant holds for it.
	Key       *string
	Tool      string
	Arguments json.RawMessage
	Risk      string
	Reason    string
	// Group and GroupSize tie the approvals of one model turn together.
	Group     string
	GroupSize int
	// Timeout, when set, answers DefaultDecision (deny when empty) for a
	// person who did not answer in time.
	Timeout         time.Duration
	DefaultDecision string
	// Question makes the interaction a question (an ask_user call), or
	// with Kind elicitation an MCP server's elicitation.
	Question *event.Question
	// Kind is the interaction's kind when it is not the one Question
	// implies (question with one, approval without).
	Kind event.InteractionKind
	// Preview is what the call would change, when its tool can tell.
	Preview *event.Preview
	// Schema is the JSON schema of the tool's arguments, when known.
	Schema json.RawMessage
}

// Decision is a person's answer to an approval or a question.
type Decision struct {
	Decision string // approve or deny; answer for a question
	Feedback string
	Source   string
	// Arguments, on an approval, are the person's edit of the call's
	// arguments: what runs instead.
	Arguments json.RawMessage
	// Text and Choices answer a question.
	Text    string
	Choices []string
	// Content answers a form elicitation: an object that meets its schema
	// (elicit.Content fills in its defaults).
	Content json.RawMessage
	// Scope, when set, also saves the answer as a grant ("approve always",
	// "deny always") holding in the run, for the run's agent, or everywhere
	// (store.ScopeRun, ScopeAgent, ScopeEverywhere). The grant matches the
	// same tool with the same key argument, or any call of the tool with
	// AnyArgument.
	Scope       string
	AnyArgument bool
	// Folder widens the grant from the one file the call touches to every
	// file beneath that file's folder.
	Folder bool
}

// Scopes lists the scopes of a grant, for validation and error messages.
var Scopes = []string{store.ScopeRun, store.ScopeAgent, store.ScopeEverywhere}

// Open records the approval request and returns its id; Wait then blocks
// until it is answered.
func (in *Inbox) Open(ctx context.Context, r Request) (string, error) {
	d := event.ApprovalRequestedData{Tool: r.Tool, Arguments: r.Arguments, Risk: event.Risk(r.Risk), Reason: r.Reason,
		Group: r.Group, GroupSize: r.GroupSize, Question: r.Question, Key: r.Key, Preview: r.Preview, Schema: r.Schema}
	if r.Question != nil {
		d.Kind = event.InteractionQuestion
	}
	if r.Kind != "" {
		d.Kind = r.Kind
	}
	now := in.now()
	if r.Timeout > 0 {
		d.ExpiresAt = now.Add(r.Timeout).UnixMilli()
		d.DefaultDecision = event.DefaultDecision(r.DefaultDecision)
		if d.DefaultDecision == "" {
			d.DefaultDecision = event.DecisionDeny
		}
	}
	id := in.newID()
	d.InteractionID = id
	in.mu.Lock()
	in.waiters[id] = make(chan Decision, 1)
	in.mu.Unlock()
	ev := event.New(r.RunID, event.ApprovalRequested, r.NodeID, d)
	// Opened at the time its expiry counts from: the timeout the person
	// reads ("nobody answered within 5m") is the one configured, not a
	// millisecond less.
	ev.TS = now.UnixMilli()
	_, err := in.store.Append(ctx, ev)
	if err != nil {
		in.forget(id)
		return "", fmt.Errorf("open approval: %w", err)
	}
	return id, nil
}

// Wait blocks until the interaction is answered or ctx ends. An
// interaction that expires meanwhile is answered with its default decision
// (source "timeout"), unless a person was first.
func (in *Inbox) Wait(ctx context.Context, id string) (Decision, error) {
	in.mu.Lock()
	ch, ok := in.waiters[id]
	if !ok {
		// Opened by a previous process (the run was resumed after a
		// restart): register, so an answer given here wakes us at once.
		ch = make(chan Decision, 1)
		in.waiters[id] = ch
	}
	in.mu.Unlock()
	defer in.forget(id)
	var expire <-chan time.Time
	it, err := in.store.GetInteraction(ctx, id)
	switch {
	case err == nil && it.Status == event.InteractionAnswered:
		select {
		case d := <-ch: // answered here: the decision as given
			return d, nil
		default: // answered elsewhere, or before a restart
			return decisionOf(it), nil
		}
	case err == nil && it.ExpiresAt > 0:
		timer := time.NewTimer(time.Until(time.UnixMilli(it.ExpiresAt)))
		defer timer.Stop()
		expire = timer.C
	}
	t := time.NewTicker(in.poll)
	defer t.Stop()
	for {
		select {
		case d := <-ch:
			return d, nil
		case <-ctx.Done():
			return Decision{}, ctx.Err()
		case <-expire:
			expire = nil
			if d, err := in.expire(ctx, id); err == nil {
				return d, nil
			}
			// Answered first by a person (here, or in another process):
			// that answer arrives on ch or at the next tick.
		case <-t.C:
			// Another process (the CLI beside a server) may have answered.
			it, err := in.store.GetInteraction(ctx, id)
			if err != nil {
				continue // transient: the next tick tries again
			}
			if it.Status == event.InteractionAnswered {
				return decisionOf(it), nil
			}
		}
	}
}

// Answered reports whether the interaction has its answer already.
func (in *Inbox) Answered(ctx context.Context, id string) (bool, error) {
	it, err := in.store.GetInteraction(ctx, id)
	if err != nil {
		return false, err
	}
	return it.Status == event.InteractionAnswered, nil
}

// Withdraw closes interaction id, declined with why as its feedback (source
// withdrawn), when it is still pending: what asked no longer waits for the
// answer. An interaction answered first is left as it was.
func (in *Inbox) Withdraw(ctx context.Context, id, why string) error {
	_, err := in.Answer(ctx, id, Decision{Decision: event.DecisionDeny, Feedback: why, Source: SourceWithdrawn})
	if errors.Is(err, ErrAnswered) {
		return nil
	}
	return err
}

// expire answers the interaction with its default decision.
func (in *Inbox) expire(ctx context.Context, id string) (Decision, error) {
	it, err := in.store.GetInteraction(ctx, id)
	if err != nil {
		return Decision{}, err
	}
	d := Decision{Decision: it.DefaultDecision, Source: SourceTimeout}
	after := time.Duration(it.ExpiresAt-it.CreatedAt) * time.Millisecond
	if d.Decision == event.DecisionDeny {
		d.Feedback = fmt.Sprintf("nobody answered within %s, so it was denied by default", after)
		switch it.Kind {
		case event.InteractionQuestion:
			d.Feedback = fmt.Sprintf("nobody answered within %s; go on with your best judgement", after)
		case event.InteractionElicitation:
			d.Feedback = fmt.Sprintf("nobody answered within %s", after)
		}
	}
	if _, err := in.Answer(ctx, id, d); err != nil {
		return Decision{}, err
	}
	return d, nil
}

// decisionOf reads the answer recorded on it.
func decisionOf(it store.Interaction) Decision {
	d := Decision{Decision: it.Decision, Feedback: it.Feedback, Source: it.Source}
	if it.Answer != "" {
		var a store.AnswerDetail
		if json.Unmarshal([]byte(it.Answer), &a) == nil {
			d.Arguments, d.Text, d.Choices, d.Content = a.Arguments, a.Text, a.Choices, a.Content
		}
	}
	return d
}

func (in *Inbox) forget(id string) {
	in.mu.Lock()
	delete(in.waiters, id)
	in.mu.Unlock()
}

// Answer decides the interaction id. The first answer wins; a later one
// returns ErrAnswered, an unknown id ErrNotFound, a bad decision ErrInvalid.
func (in *Inbox) Answer(ctx context.Context, id string, d Decision) (store.Interaction, error) {
	switch d.Decision {
	case event.DecisionApprove, event.DecisionDeny, event.DecisionAnswer:
	default:
		return store.Interaction{}, fmt.Errorf("%w: decision %q must be approve or deny (answer for a question)", ErrInvalid, d.Decision)
	}
	if d.Decision != event.DecisionDeny && strings.TrimSpace(d.Feedback) != "" {
		return store.Interaction{}, fmt.Errorf("%w: feedback goes with deny, not %s", ErrInvalid, d.Decision)
	}
	switch d.Scope {
	case "", store.ScopeRun, store.ScopeAgent, store.ScopeEverywhere:
	default:
		return store.Interaction{}, fmt.Errorf("%w: scope %q is not one of %s", ErrInvalid, d.Scope, strings.Join(Scopes, ", "))
	}
	if (d.AnyArgument || d.Folder) && d.Scope == "" {
		return store.Interaction{}, fmt.Errorf("%w: any_argument and folder go with a scope (run, agent or everywhere)", ErrInvalid)
	}
	if d.AnyArgument && d.Folder {
		return store.Interaction{}, fmt.Errorf("%w: any_argument and folder are two extents of a grant; give one", ErrInvalid)
	}
	if d.Source == "" {
		d.Source = "api"
	}
	it, err := in.store.GetInteraction(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return store.Interaction{}, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	if err != nil {
		return store.Interaction{}, err
	}
	if it.Status != event.InteractionPending {
		return it, fmt.Errorf("interaction %s is %s: %w", id, it.Status, ErrAnswered)
	}
	switch it.Kind {
	case event.InteractionQuestion:
		err = checkAnswer(it, &d)
	case event.InteractionElicitation:
		err = checkElicitation(it, &d)
	default:
		err = in.checkApproval(it, &d)
	}
	if err != nil {
		return it, err
	}
	var kind event.InteractionKind
	if it.Kind == event.InteractionElicitation {
		kind = event.InteractionElicitation
	}
	grantID := ""
	if d.Scope != "" {
		// The grant is saved first and revoked if the answer is not
		// recorded, so the audit never names a grant that does not exist.
		g, err := in.saveGrant(ctx, it, d)
		if err != nil {
			return it, err
		}
		grantID = g.ID
	}
	_, err = in.store.Append(context.WithoutCancel(ctx), event.New(it.RunID, event.ApprovalDecided, it.NodeID, event.ApprovalDecidedData{
		InteractionID: id, Kind: kind, Decision: event.Decision(d.Decision), Feedback: d.Feedback, Source: d.Source, Scope: event.GrantScope(d.Scope), GrantID: grantID,
		Arguments: d.Arguments, Text: d.Text, Choices: d.Choices, Content: d.Content,
	}))
	if err != nil && grantID != "" {
		if derr := in.store.DeleteGrant(context.WithoutCancel(ctx), grantID); derr != nil && !errors.Is(derr, store.ErrNotFound) {
			err = errors.Join(err, fmt.Errorf("revoke grant %s: %w", grantID, derr))
		}
	}
	if errors.Is(err, store.ErrConflict) {
		return it, fmt.Errorf("interaction %s: %w", id, ErrAnswered)
	}
	if err != nil {
		return store.Interaction{}, fmt.Errorf("answer %s: %w", id, err)
	}
	in.mu.Lock()
	if ch, ok := in.waiters[id]; ok {
		ch <- d // buffered 1, and only the first answer gets here
	}
	in.mu.Unlock()
	return in.store.GetInteraction(ctx, id)
}

// saveGrant records the grant of answer d to interaction it. Its id is made
// from the interaction's, so two answers racing cannot both save one.
func (in *Inbox) saveGrant(ctx context.Context, it store.Interaction, d Decision) (store.Grant, error) {
	r, err := in.store.GetRun(ctx, it.RunID)
	if err != nil {
		return store.Grant{}, fmt.Errorf("answer %s: run %s: %w", it.ID, it.RunID, err)
	}
	g := store.Grant{ID: "gr_" + it.ID, Effect: string(policy.Allow), Tool: it.Tool, Scope: d.Scope}
	if d.Decision == "deny" {
		g.Effect = string(policy.Deny)
	}
	if !d.AnyArgument {
		args := json.RawMessage(it.Arguments)
		if len(d.Arguments) > 0 {
			args = d.Arguments // the grant is for what the person approved
		}
		call := policy.Input{Tool: it.Tool, Args: args, Workspace: r.Workspace}
		tools := in.toolsOf(it.RunID)
		if t, ok := tools.(Touchers); ok {
			call.Touches, call.Touched = t.Touches(it.Tool, tool.Env{RunID: it.RunID, Workspace: r.Workspace}, args)
		}
		g.Match = policy.ExactMatch(call)
		if d.Folder {
			dir := ""
			if call.Touched && len(call.Touches) == 1 {
				dir = path.Dir(call.Touches[0].Path)
			}
			switch dir {
			case "":
				return store.Grant{}, fmt.Errorf("%w: folder: %s does not touch one file, so it has no folder; grant the call or any call of the tool", ErrInvalid, it.Tool)
			case ".", "/":
				return store.Grant{}, fmt.Errorf("%w: folder: the file is at the root; grant the file or any file", ErrInvalid)
			}
			g.Match = policy.Literal(dir) + "/**"
		}
		// A tool that gives its own key (a browser tool: the page's host)
		// is granted for that key, as its rules match it; the arguments
		// (a ref on the page) would grant it on every page. The key is the
		// one the call had when it was asked about; edited arguments (a
		// URL) may give another, asked of the tool now.
		key, keyed := "", it.Key != nil
		if keyed {
			key = *it.Key
		}
		if k, ok := tools.(Keys); ok && (len(d.Arguments) > 0 || !keyed) {
			key, keyed = k.Key(it.Tool, tool.Env{RunID: it.RunID, Workspace: r.Workspace}, args)
		}
		if keyed {
			g.Match = policy.Literal(key)
			if key == "" {
				g.Match = noKey
			}
		}
	}
	switch d.Scope {
	case store.ScopeRun:
		g.RunID = it.RunID
	case store.ScopeAgent:
		if r.AgentID == "" {
			return store.Grant{}, fmt.Errorf("%w: scope agent needs the run's agent, and run %s has no agent id", ErrInvalid, it.RunID)
		}
		g.AgentID = r.AgentID
	}
	g, err = in.store.CreateGrant(ctx, g)
	if errors.Is(err, store.ErrConflict) {
		return store.Grant{}, fmt.Errorf("interaction %s: %w", it.ID, ErrAnswered)
	}
	if err != nil {
		return store.Grant{}, fmt.Errorf("answer %s: %w", it.ID, err)
	}
	return g, nil
}
