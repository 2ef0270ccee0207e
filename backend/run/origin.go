package run

import (
	"context"
	"errors"
	"fmt"

	"steward/backend/agent"
	"steward/backend/store"
)

// Origin says whose choices the settings in a run's log are.
//
// A run's log records what it was started with: run.created's agent spec
// (provider, base URL, model, script, mode, rules, tools, browser domains,
// budgets, breakpoints, approval timeout), its workspace and whether it was
// attended. For a run started here those are this machine's person's
// choices. For a run imported from a recording they are whatever the file
// says, and anyone can write one. Every path that starts a run from another
// run's log (a fork here, a replay in package replay) asks OriginOf first.
// A foreign log lends its content (the instructions, the conversation, the
// recorded model answers, tool results and approval answers) and never a
// setting; the person chooses one of this machine's agents and a workspace,
// and the new run takes, field by field:
//
//   - workspace: the chosen folder (a replay: a chosen one, or a new one
//     under the data directory), never the recorded path;
//   - provider, base URL, model, script: the chosen agent's, so requests go
//     to its provider only, with this machine's key for that provider;
//   - mode: a fork, the chosen agent's; a replay, ask unless the person
//     says otherwise;
//   - rules: the chosen agent's, with this machine's global rules; grants:
//     the ones saved here (a recorded "approve always" is never saved);
//   - tools, browser domains, images, approval timeout and default, budgets,
//     breakpoints: the chosen agent's (a replay sets no breakpoint);
//   - unattended: no, a person answers;
//   - system prompt: a fork, the chosen agent's; a replay, the recorded one,
//     which is content like the conversation (the replay compares the
//     requests it would send with the recorded ones);
//   - the price table is never recorded, and MCP servers are not part of an
//     agent: both are this machine's.
//
// And the new run starts paused, so that the person sees the agent and the
// folder before anything runs.
//
// A run is foreign when it was imported, when it descends (by fork or
// replay) from an imported run or from one this database does not hold (a
// replay of a file), or when its agent no longer exists here. A fork of a
// run that is not foreign keeps that run's mode, rules, tools and budgets
// (the person's choices for it), but takes provider, base URL, model and
// script from the agent's current definition: a server the person has
// moved away from is not called again.
type Origin struct {
	// Foreign is set when the run's settings were not chosen on this
	// machine; Reason then says why, for a person.
	Foreign bool
	Reason  string
	// Agent is the run's agent as it is defined here now, when !Foreign.
	Agent agent.Agent
}

// OriginSource is what OriginOf reads: the runs and this machine's agents.
type OriginSource interface {
	GetRun(ctx context.Context, id string) (store.Run, error)
	GetAgent(ctx context.Context, key string) (agent.Agent, error)
}

var _ OriginSource = (*store.Store)(nil)

// maxLineage bounds the walk up a run's forks and replays: a longer chain
// is taken as foreign rather than read without end.
const maxLineage = 1000

// OriginOf tells where the settings in r's log come from (see Origin).
// An error is the store's.
func OriginOf(ctx context.Context, src OriginSource, r store.Run) (Origin, error) {
	cur := r
	for range maxLineage {
		if cur.ImportedFrom != "" {
			if cur.ID == r.ID {
				return foreign("run %s was imported from a recording made elsewhere", r.ID), nil
			}
			return foreign("run %s comes from run %s, which was imported from a recording made elsewhere", r.ID, cur.ID), nil
		}
		// A fork is never a replay (fork clears replay_of): one link up.
		up := cur.ForkedFrom
		if up == "" {
			up = cur.ReplayOf
		}
		if up == "" {
			break
		}
		next, err := src.GetRun(ctx, up)
		if errors.Is(err, store.ErrNotFound) {
			return foreign("run %s comes from run %s, which is not in this database (a recording replayed from a file)", r.ID, up), nil
		}
		if err != nil {
			return Origin{}, fmt.Errorf("origin of run %s: %w", r.ID, err)
		}
		cur = next
	}
	if cur.ForkedFrom != "" || cur.ReplayOf != "" {
		return foreign("run %s comes from more than %d forks and replays", r.ID, maxLineage), nil
	}
	a, err := src.GetAgent(ctx, r.AgentID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && a.ID != r.AgentID) {
		return foreign("the agent of run %s (%s) no longer exists on this machine", r.ID, r.AgentName), nil
	}
	if err != nil {
		return Origin{}, fmt.Errorf("origin of run %s: %w", r.ID, err)
	}
	return Origin{Agent: a}, nil
}

func foreign(format string, args ...any) Origin {
	return Origin{Foreign: true, Reason: fmt.Sprintf(format, args...)}
}
