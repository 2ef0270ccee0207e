// Package run is the engine: it starts runs, drives each one through its step
// loop (a model call, then its tool calls, then the next model call, until the
// model stops or max_steps), and applies control commands.
//
// One goroutine owns each active run; it is the only writer of that run's
// events apart from the inbox, which records answers. Every model call and
// tool call is a node of the run's graph, recorded through events; the
// in-memory conversation is a fold of those events, never the only copy.
// Events that gate nothing are submitted without waiting; the loop waits for
// them to commit before any side effect (a tool call, an approval) and before
// the run ends, so a crash never loses an event whose effect happened.
package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"steward/backend/agent"
	"steward/backend/event"
	"steward/backend/inbox"
	"steward/backend/llm"
	"steward/backend/store"
	"steward/backend/tool"
	"steward/backend/workspace"
)

// Store is what the engine needs of the database.
type Store interface {
	Append(ctx context.Context, ev event.Event) (event.Event, error)
	SubmitAll(evs []event.Event) *store.Pending
	GetRun(ctx context.Context, id string) (store.Run, error)
	ListRuns(ctx context.Context, f store.RunFilter) ([]store.Run, error)
	SaveCommand(ctx context.Context, runID, commandID, typ string, result []byte) ([]byte, bool, error)
	LookupCommand(ctx context.Context, runID, commandID string) ([]byte, bool, error)
}

// Approver opens approvals and waits for their answers.
type Approver interface {
	Open(ctx context.Context, r inbox.Request) (string, error)
	Wait(ctx context.Context, id string) (inbox.Decision, error)
}

var _ Approver = (*inbox.Inbox)(nil)

// Tools is what the engine needs of the tool registry.
type Tools interface {
	Specs(names ...string) []tool.Spec
	Lookup(name string) (tool.Spec, bool)
	Validate(name string, args json.RawMessage) (tool.Result, bool)
	Call(ctx context.Context, env tool.Env, name string, args json.RawMessage) (tool.Result, error)
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

// Config holds the collaborators of a Service.
type Config struct {
	Store    Store
	Approver Approver
	Tools    Tools
	Models   Models
	// NewID returns a fresh unique id starting with prefix.
	NewID func(prefix string) string
	// Logf logs system failures; nothing secret is passed to it.
	Logf func(format string, args ...any)
	// DeltaFlush bounds how long streamed text is held before it is written
	// as one llm.delta event; 40ms by default.
	DeltaFlush time.Duration
}

// Service runs agents.
type Service struct {
	cfg    Config
	base   context.Context
	stop   context.CancelCauseFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	active map[string]*active
	closed bool // set by Shutdown: no run starts after it
}

type active struct {
	cancel context.CancelCauseFunc
	done   chan struct{}
}

// errCancelled and errShutdown are the causes of a run's context ending.
var (
	errCancelled = errors.New("cancelled by the user")
	errShutdown  = errors.New("steward is shutting down")
)

// New returns a Service. Call Shutdown to stop its runs.
func New(cfg Config) *Service {
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	if cfg.DeltaFlush == 0 {
		cfg.DeltaFlush = 40 * time.Millisecond
	}
	// The cause reaches every run's context, so a run started while
	// Shutdown runs still records why it ended.
	base, stop := context.WithCancelCause(context.Background())
	return &Service{cfg: cfg, base: base, stop: stop, active: map[string]*active{}}
}

// StartParams are the inputs of Start.
type StartParams struct {
	Agent        agent.Agent
	Instructions string
	Workspace    string
	Unattended   bool
}

// maxInstructions bounds the first user message.
const maxInstructions = 256 << 10

// Start validates p, records the new run and starts driving it. Errors
// wrapping ErrInvalid name the input that was wrong.
func (s *Service) Start(ctx context.Context, p StartParams) (store.Run, error) {
	instr := strings.TrimSpace(p.Instructions)
	if instr == "" {
		return store.Run{}, fmt.Errorf("%w: instructions are empty", ErrInvalid)
	}
	if len(instr) > maxInstructions {
		return store.Run{}, fmt.Errorf("%w: instructions are %d bytes, more than %d", ErrInvalid, len(instr), maxInstructions)
	}
	if strings.TrimSpace(p.Workspace) == "" {
		return store.Run{}, fmt.Errorf("%w: workspace is empty", ErrInvalid)
	}
	root, err := workspace.Open(p.Workspace)
	if err != nil {
		return store.Run{}, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	m, err := s.cfg.Models.Resolve(ctx, p.Agent)
	if err != nil {
		return store.Run{}, fmt.Errorf("%w: agent %s: %v", ErrInvalid, p.Agent.Name, err)
	}
	id := s.cfg.NewID("run")
	runCtx, cancel := context.WithCancelCause(s.base)
	a := &active{cancel: cancel, done: make(chan struct{})}
	// Registered before the run is recorded: a cancel that arrives as soon
	// as run.created is visible must find the run to stop, or it would
	// record the end while this process goes on to drive the run.
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		cancel(nil)
		return store.Run{}, ErrShuttingDown
	}
	s.active[id] = a
	s.wg.Add(1) // under mu, so Shutdown's Wait never races an Add
	s.mu.Unlock()
	_, err = s.cfg.Store.Append(context.WithoutCancel(ctx), event.New(id, event.RunCreated, "", event.RunCreatedData{
		Agent:        event.AgentRef{ID: p.Agent.ID, Name: p.Agent.Name, Provider: m.Name, Model: m.Model, Demo: m.Demo},
		Instructions: instr,
		Workspace:    root.Path(),
		Mode:         p.Agent.Mode,
		MaxSteps:     p.Agent.MaxSteps,
		Unattended:   p.Unattended,
	}))
	if err != nil {
		s.mu.Lock()
		delete(s.active, id)
		s.mu.Unlock()
		cancel(nil)
		close(a.done)
		s.wg.Done()
		return store.Run{}, fmt.Errorf("start run: %w", err)
	}
	rs := &runState{
		id: id, agent: p.Agent, model: m, unattended: p.Unattended,
		env:      tool.Env{RunID: id, Workspace: root.Path()},
		messages: []llm.Message{{Role: llm.RoleUser, Text: instr}},
	}
	go func() {
		defer s.wg.Done()
		defer close(a.done)
		defer func() {
			s.mu.Lock()
			delete(s.active, id)
			s.mu.Unlock()
			cancel(nil)
		}()
		s.drive(runCtx, rs)
	}()
	return s.cfg.Store.GetRun(ctx, id)
}

// Done returns a channel closed when the run's goroutine has ended, or nil
// when the run is not active in this process.
func (s *Service) Done(runID string) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a, ok := s.active[runID]; ok {
		return a.done
	}
	return nil
}

// Command is a control command.
type Command struct {
	CommandID string `json:"command_id"`
	Type      string `json:"type"`
	Text      string `json:"text,omitempty"`
	NodeID    string `json:"node_id,omitempty"`
}

// CommandResult is the answer to a command.
type CommandResult struct {
	CommandID string `json:"command_id"`
	Status    string `json:"status"` // accepted or rejected
	Code      string `json:"code,omitempty"`
	Message   string `json:"message,omitempty"`
}

var commandTypes = map[string]bool{"pause": true, "continue": true, "step": true, "steer": true, "cancel": true, "fork": true, "retry": true}

// Command applies c to the run. A command_id seen before returns the first
// answer and changes nothing. Errors wrap ErrInvalid or ErrNotFound.
func (s *Service) Command(ctx context.Context, runID string, c Command) (CommandResult, error) {
	if strings.TrimSpace(c.CommandID) == "" || len(c.CommandID) > 128 {
		return CommandResult{}, fmt.Errorf("%w: command_id must be 1-128 characters", ErrInvalid)
	}
	if !commandTypes[c.Type] {
		return CommandResult{}, fmt.Errorf("%w: command type %q is not one of pause, continue, step, steer, cancel, fork, retry", ErrInvalid, c.Type)
	}
	if first, ok, err := s.cfg.Store.LookupCommand(ctx, runID, c.CommandID); err != nil {
		return CommandResult{}, err
	} else if ok {
		var res CommandResult
		return res, json.Unmarshal(first, &res)
	}
	r, err := s.cfg.Store.GetRun(ctx, runID)
	if errors.Is(err, store.ErrNotFound) {
		return CommandResult{}, fmt.Errorf("%w: %s", ErrNotFound, runID)
	}
	if err != nil {
		return CommandResult{}, err
	}
	res := s.apply(ctx, r, c)
	b, _ := json.Marshal(res)
	first, dup, err := s.cfg.Store.SaveCommand(context.WithoutCancel(ctx), runID, c.CommandID, c.Type, b)
	if err != nil {
		return CommandResult{}, err
	}
	if dup { // a concurrent twin won the race: its answer stands
		var prev CommandResult
		return prev, json.Unmarshal(first, &prev)
	}
	return res, nil
}

func (s *Service) apply(ctx context.Context, r store.Run, c Command) CommandResult {
	res := CommandResult{CommandID: c.CommandID, Status: "rejected"}
	if c.Type != "cancel" {
		res.Code, res.Message = CodeUnsupported, c.Type+" is not supported yet"
		return res
	}
	if Status(r.Status).Terminal() {
		res.Code, res.Message = CodeTerminal, "the run is already "+r.Status
		return res
	}
	s.mu.Lock()
	a, ok := s.active[r.ID]
	s.mu.Unlock()
	if ok {
		a.cancel(errCancelled)
	} else {
		// Nobody drives this run in this process (it was left behind by a
		// stopped server): record the end directly.
		_, err := s.cfg.Store.Append(context.WithoutCancel(ctx), event.New(r.ID, event.RunStatus, "",
			event.RunStatusData{Status: string(Cancelled), Reason: "cancelled by the user"}))
		if err != nil {
			res.Code, res.Message = CodeInvalidState, "could not record the cancel: "+err.Error()
			return res
		}
	}
	res.Status = "accepted"
	return res
}

// Recover ends the runs that a previous process left active: until crash
// recovery lands they are marked failed with reason "interrupted", so none
// stays "running" forever. Call it once at server start.
func (s *Service) Recover(ctx context.Context) (int, error) {
	runs, err := s.cfg.Store.ListRuns(ctx, store.RunFilter{Statuses: []string{string(Queued), string(Running), string(Waiting)}, Limit: 10000})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, r := range runs {
		if s.Done(r.ID) != nil {
			continue
		}
		_, err := s.cfg.Store.Append(ctx, event.New(r.ID, event.RunStatus, "", event.RunStatusData{
			Status: string(Failed), Reason: "interrupted",
			Error: "Steward stopped while this run was active; it cannot be resumed yet",
		}))
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// Shutdown stops every active run (each records its end) and waits for them,
// or until ctx ends.
func (s *Service) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.closed = true
	for _, a := range s.active {
		a.cancel(errShutdown)
	}
	s.mu.Unlock()
	s.stop(errShutdown)
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
