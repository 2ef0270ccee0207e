package run

import (
	"context"
	"encoding/json"
	"steward/backend/agent"
	"steward/backend/event"
	"steward/backend/inbox"
	"steward/backend/llm"
	"steward/backend/policy"
	"steward/backend/store"
	"steward/backend/tool"
	"time"
)

// What the engine needs of its collaborators, declared here by their
// consumer; main.go composes the real ones.

// Store is what the engine needs of the database.
type Store interface {
	Append(ctx context.Context, ev event.Event) (event.Event, error)
	SubmitAll(evs []event.Event) *store.Pending
	GetRun(ctx context.Context, id string) (store.Run, error)
	Events(ctx context.Context, runID string, after int64, limit int) ([]event.Event, error)
	ListRuns(ctx context.Context, f store.RunFilter) ([]store.Run, error)
	SaveCommand(ctx context.Context, runID, commandID, typ string, result []byte) ([]byte, bool, error)
	SubmitCommand(cmd store.CommandRecord, evs []event.Event) *store.Pending
	CommandAccepted(ctx context.Context, runID, typ string) (bool, error)
	NewHolder(name string) store.Holder
	AcquireLease(ctx context.Context, runID string, owner store.Holder, ttl time.Duration) (store.Holder, bool, error)
	RenewLeases(ctx context.Context, owner store.Holder, ttl time.Duration) error
	ReleaseLease(ctx context.Context, runID string, owner store.Holder) error
	LeaseHolder(ctx context.Context, runID string) (store.Holder, bool, error)
	LookupCommand(ctx context.Context, runID, commandID string) ([]byte, bool, error)
	FileChanges(ctx context.Context, runID string) ([]store.FileChange, error)
	NodeSeq(ctx context.Context, runID, nodeID string) (int64, error)
	// GetAgent is this machine's agent whose id or name is key (for a fork,
	// which may name one, and OriginOf).
	GetAgent(ctx context.Context, key string) (agent.Agent, error)
}

// Approver opens approvals and questions and waits for their answers. It
// records them in the run's log, as the inbox does: Open returns once the
// approval.requested event has committed, Wait once the approval.decided
// has. The engine reads both from the log (its Fold), not from what these
// return.
type Approver interface {
	Open(ctx context.Context, r inbox.Request) (string, error)
	Answered(ctx context.Context, id string) (bool, error)
	Wait(ctx context.Context, id string) (inbox.Decision, error)
}

var _ Approver = (*inbox.Inbox)(nil)

// Grants returns the saved grants ("approve always", "deny always") that
// hold in run runID of agent agentID, as rules whose Source names the grant.
type Grants interface {
	Grants(ctx context.Context, runID, agentID string) ([]policy.Rule, error)
}

var _ Grants = (*store.Store)(nil)

// Tools is what the engine needs of the tool registry.
type Tools interface {
	Specs(names ...string) []tool.Spec
	Lookup(name string) (tool.Spec, bool)
	Validate(name string, args json.RawMessage) (tool.Result, bool)
	// Precheck gives the refusal a call's tool would answer now, without
	// its effect (tool.Prechecker).
	Precheck(ctx context.Context, name string, env tool.Env, args json.RawMessage) (tool.Result, bool)
	// Preview is what a call would change, without its effect
	// (tool.Previewer).
	Preview(ctx context.Context, name string, env tool.Env, args json.RawMessage) (tool.Preview, bool)
	Call(ctx context.Context, env tool.Env, name string, args json.RawMessage) (tool.Result, error)
	// Key is the key argument of a call when its tool decides it.
	Key(name string, env tool.Env, args json.RawMessage) (string, bool)
	// Touches are the workspace paths a call will open, when its tool
	// declares them: the policy decides on them.
	Touches(name string, env tool.Env, args json.RawMessage) ([]tool.Touch, bool)
	// EndRun releases what the tools keep for a run (its browser) and
	// returns what that produced (its recording).
	EndRun(ctx context.Context, env tool.Env) ([]tool.Artifact, error)
}

var _ Tools = (*tool.Registry)(nil)

// Model is a provider resolved for an agent.
type Model struct {
	Provider llm.Provider
	Name     string // provider name: openai, script
	Model    string
	Demo     bool
}

// Models resolves the provider of an agent.
type Models interface {
	Resolve(ctx context.Context, a agent.Agent) (Model, error)
}
