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
	"strings"
	"sync"
	"time"

	"steward/backend/event"
	"steward/backend/policy"
	"steward/backend/store"
)

// Errors of Answer.
var (
	ErrAnswered = errors.New("already answered")
	ErrNotFound = errors.New("interaction not found")
	ErrInvalid  = errors.New("invalid answer")
)

// Store is what the inbox needs of the database.
type Store interface {
	Append(ctx context.Context, ev event.Event) (event.Event, error)
	GetInteraction(ctx context.Context, id string) (store.Interaction, error)
	GetRun(ctx context.Context, id string) (store.Run, error)
	CreateGrant(ctx context.Context, g store.Grant) (store.Grant, error)
	DeleteGrant(ctx context.Context, id string) error
}

// Inbox opens approvals and takes answers.
type Inbox struct {
	store   Store
	newID   func() string
	poll    time.Duration
	mu      sync.Mutex
	waiters map[string]chan Decision
}

// New returns an inbox over st. newID makes interaction ids.
func New(st Store, newID func() string) *Inbox {
	return &Inbox{store: st, newID: newID, poll: 500 * time.Millisecond, waiters: map[string]chan Decision{}}
}

// Request opens an approval for a tool node.
type Request struct {
	RunID     string
	NodeID    string
	Tool      string
	Arguments json.RawMessage
	Risk      string
	Reason    string
}

// Decision is a person's answer to an approval.
type Decision struct {
	Decision string // approve or deny
	Feedback string
	Source   string
	// Scope, when set, also saves the answer as a grant ("approve always",
	// "deny always") holding in the run, for the run's agent, or everywhere
	// (store.ScopeRun, ScopeAgent, ScopeEverywhere). The grant matches the
	// same tool with the same key argument, or any call of the tool with
	// AnyArgument.
	Scope       string
	AnyArgument bool
}

// Scopes lists the scopes of a grant, for validation and error messages.
var Scopes = []string{store.ScopeRun, store.ScopeAgent, store.ScopeEverywhere}

// Open records the approval request and returns its id; Wait then blocks
// until it is answered.
func (in *Inbox) Open(ctx context.Context, r Request) (string, error) {
	id := in.newID()
	in.mu.Lock()
	in.waiters[id] = make(chan Decision, 1)
	in.mu.Unlock()
	_, err := in.store.Append(ctx, event.New(r.RunID, event.ApprovalRequested, r.NodeID, event.ApprovalRequestedData{
		InteractionID: id, Tool: r.Tool, Arguments: r.Arguments, Risk: r.Risk, Reason: r.Reason,
	}))
	if err != nil {
		in.forget(id)
		return "", fmt.Errorf("open approval: %w", err)
	}
	return id, nil
}

// Wait blocks until the interaction is answered or ctx ends.
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
	t := time.NewTicker(in.poll)
	defer t.Stop()
	for {
		select {
		case d := <-ch:
			return d, nil
		case <-ctx.Done():
			return Decision{}, ctx.Err()
		case <-t.C:
			// Another process (the CLI beside a server) may have answered.
			it, err := in.store.GetInteraction(ctx, id)
			if err != nil {
				continue // transient: the next tick tries again
			}
			if it.Status == "answered" {
				return Decision{Decision: it.Decision, Feedback: it.Feedback, Source: it.Source}, nil
			}
		}
	}
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
	case "approve", "deny":
	default:
		return store.Interaction{}, fmt.Errorf("%w: decision %q must be approve or deny", ErrInvalid, d.Decision)
	}
	if d.Decision == "approve" && strings.TrimSpace(d.Feedback) != "" {
		return store.Interaction{}, fmt.Errorf("%w: feedback goes with deny, not approve", ErrInvalid)
	}
	switch d.Scope {
	case "", store.ScopeRun, store.ScopeAgent, store.ScopeEverywhere:
	default:
		return store.Interaction{}, fmt.Errorf("%w: scope %q is not one of %s", ErrInvalid, d.Scope, strings.Join(Scopes, ", "))
	}
	if d.AnyArgument && d.Scope == "" {
		return store.Interaction{}, fmt.Errorf("%w: any_argument goes with a scope (run, agent or everywhere)", ErrInvalid)
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
	if it.Status != "pending" {
		return it, fmt.Errorf("interaction %s is %s: %w", id, it.Status, ErrAnswered)
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
		InteractionID: id, Decision: d.Decision, Feedback: d.Feedback, Source: d.Source, Scope: d.Scope, GrantID: grantID,
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
		g.Match = policy.ExactMatch(it.Tool, json.RawMessage(it.Arguments), r.Workspace)
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
