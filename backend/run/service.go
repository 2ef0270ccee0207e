// Package run is the engine: it starts runs, drives each one through its step
// loop (a model call, then its tool calls, then the next model call, until the
// model stops or max_steps), and applies control commands.
//
// One goroutine owns each active run; it is the only writer of that run's
// events apart from the inbox, which records approvals and answers (and a
// replay, which records its divergence). Every model call and tool call is
// a node of the run's graph, recorded through events; what the engine knows
// of a run is its Fold (fold.go), the one projection of the run's log, fed
// every committed event of the run, the ones others write included
// (active.go): never the only copy.
// Events that gate nothing are submitted without waiting; the loop waits for
// them to commit before any side effect (a tool call, an approval) and before
// the run ends, so a crash never loses an event whose effect happened.
//
// A run started from another run's log (a fork, a replay) takes settings
// from it only when they were chosen on this machine: OriginOf decides, and
// Origin lists, field by field, what a foreign log (an imported recording)
// lends and what the person chooses instead.
package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"steward/backend/agent"
	"steward/backend/event"
	"steward/backend/policy"
	"steward/backend/redact"
	"steward/backend/sandbox"
	"steward/backend/store"
	"steward/backend/tool"
	"steward/backend/workspace"
)

// Config holds the collaborators of a Service.
type Config struct {
	Store    Store
	Approver Approver
	Tools    Tools
	Models   Models
	// NewID returns a fresh unique id starting with prefix.
	NewID func(prefix string) string
	// Logf logs system failures. Every line passes through Redact first: a
	// failure's message may quote what a provider or a tool said.
	Logf func(format string, args ...any)
	// Redact removes secrets (the keys in force, the server's token, what
	// looks like a key) from every text that comes back from a provider, a
	// tool or a web page before it becomes an event, an error or a log line
	// (event.Outside says which texts); the model then reads the redacted
	// text too. Nil runs the detectors alone, with no configured values.
	Redact func(string) string
	// DeltaFlush bounds how long streamed text is held before it is written
	// as one llm.delta event; 40ms by default.
	DeltaFlush time.Duration
	// Price prices model calls for the cost accounts and budgets; nil
	// prices everything at zero.
	Price Pricer
	// ModelRetries is how many times a failed model call is tried again when
	// a retry may help (network errors, 408, 429, 5xx); 2 by default, 0
	// with a negative value.
	ModelRetries int
	// Rules are the global permission rules (config.json "rules"); they
	// apply to every run started after, together with the agent's and the
	// run's own.
	Rules []policy.Rule
	// Grants are looked up before a call would ask for approval; nil means
	// none are saved.
	Grants Grants
	// Blobs keeps the contents of the files runs change, for review and
	// undo; nil turns the journal and the file watcher off.
	Blobs *workspace.Blobs
	// Ignored, when set, tells the generated and git-ignored files of a
	// workspace (fs.IgnoredIn), which the files view marks; done ends the
	// asking.
	Ignored func(workspace string) (ignored func(rel string) bool, done func())
	// Artifacts is the directory under which each run keeps the files its
	// tools produce (screenshots, recordings), one folder per run; empty
	// keeps none.
	Artifacts string
	// Sandbox says whether commands can be sandboxed here; nil is a
	// machine where they cannot, so that every command of a run in
	// sandbox mode auto asks.
	Sandbox Sandbox
	// Project, when set, offers a run whose agent uses project servers
	// (agent.ProjectServers) the MCP servers of its workspace's .mcp.json
	// that the person approved: the run is served by the tools it returns,
	// its agent gains the patterns, and its log records rec. Replays and
	// imported runs get none.
	// box are the run's sandbox settings, which the project's servers run
	// under as its commands do.
	Project func(runID, workspace string, box sandbox.Settings) (tools Tools, patterns []string, rec event.ProjectServers)
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
	// locks are the runs' command locks: a run's commands and restores
	// apply one at a time (see runLocks).
	locks runLocks
	// restoreMu makes restores of files one at a time, of every run (two
	// may share a folder): each checks the disk, then writes.
	restoreMu sync.Mutex

	owner     store.Holder // this service as a lease holder
	heartbeat sync.Once    // starts renewLeases with the first lease
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
	if cfg.Redact == nil {
		cfg.Redact = redact.NewLive(nil).String
	}
	logf, redactText := cfg.Logf, cfg.Redact
	cfg.Logf = func(format string, args ...any) { logf("%s", redactText(fmt.Sprintf(format, args...))) }
	if cfg.DeltaFlush == 0 {
		cfg.DeltaFlush = 40 * time.Millisecond
	}
	switch {
	case cfg.ModelRetries == 0:
		cfg.ModelRetries = 2
	case cfg.ModelRetries < 0:
		cfg.ModelRetries = 0
	}
	// The cause reaches every run's context, so a run started while
	// Shutdown runs still records why it stopped.
	base, stop := context.WithCancelCause(context.Background())
	return &Service{cfg: cfg, base: base, stop: stop, active: map[string]*active{}, owner: cfg.Store.NewHolder(cfg.NewID("proc"))}
}

// StartParams are the inputs of Start.
type StartParams struct {
	Agent        agent.Agent
	Instructions string
	Workspace    string
	Unattended   bool
	// BreakBefore adds tool names to pause before, to the agent's own.
	BreakBefore []string
	// Limits override the agent's budgets where set.
	Limits *event.Limits
	// Mode overrides the agent's permission mode when set.
	Mode string
	// Model overrides the agent's model when set. It is kept in the run's
	// recorded agent, so a restart, a follow-up or a fork asks the same one.
	Model string
	// Rules add to the agent's permission rules for this run.
	Rules []policy.Rule
	// Sandbox (auto, on, off) and SandboxNetwork (off, on) override the
	// agent's sandbox settings when set.
	Sandbox, SandboxNetwork string
	// ReplayOf is the recorded run this run replays, if any.
	ReplayOf string
	// Paused, when set, is the reason the run starts paused: nothing runs
	// until a person continues it (a replay of a foreign recording).
	Paused string
	// Runtime, when set, drives this run instead of the Service's own
	// model, tools and approver: a replay plays them from a recording.
	Runtime *Runtime
}

// Runtime is what a run is driven with. Model, Tools and Approver must be
// set. A run with a Runtime decides by its agent's rules alone, unless
// LocalRules: the global rules and the grants saved since its recording
// would decide otherwise than it did.
type Runtime struct {
	Model    Model
	Tools    Tools
	Approver Approver
	// LocalRules decides the run's calls as a run started here: with this
	// machine's global rules and saved grants too. A replay of a foreign
	// recording sets it, since its agent is one of this machine's.
	LocalRules bool
	// Bind, when set, is called with the run's id before the run starts:
	// what the runtime records under the run (a replay's divergence) is
	// then in its log before the run ends.
	Bind func(runID string)
}

// project serves run st with its workspace's approved project servers when
// its agent uses them: st's tools become the layer that offers them, and
// the agent returned names their tools. The record says what was offered,
// or why nothing was; nil when the agent uses no project servers.
func (s *Service) project(st *runState, ag agent.Agent, workspace string) (agent.Agent, *event.ProjectServers) {
	if s.cfg.Project == nil || !ag.ProjectServers {
		return ag, nil
	}
	tools, patterns, rec := s.cfg.Project(st.id, workspace, ag.SandboxSettings())
	st.registry = tools
	for _, p := range patterns {
		if !slices.Contains(ag.Tools, p) {
			ag.Tools = append(slices.Clip(ag.Tools), p)
		}
	}
	return ag, &rec
}

// newRun is the state of a new or resumed run, served by the Service's own
// tools and approver.
func (s *Service) newRun(id string) *runState {
	st := newRunState(id)
	st.registry, st.approver = s.cfg.Tools, s.cfg.Approver
	return st
}

// effective returns the agent as the run uses it: the run's mode when it
// gives one, and the agent's rules followed by the run's and the global ones,
// each marked with its source. It goes into run.created's spec, so a run
// resumed after a restart (or forked) decides by the same mode and rules.
func effective(a agent.Agent, mode string, runRules, global []policy.Rule) agent.Agent {
	if mode != "" {
		a.Mode = policy.Mode(mode)
	}
	rules := make([]policy.Rule, 0, len(a.Rules)+len(runRules)+len(global))
	for _, r := range a.Rules {
		if r.Source == "" {
			r.Source = policy.SourceAgent
		}
		rules = append(rules, r)
	}
	rules = append(rules, policy.WithSource(runRules, policy.SourceRun)...)
	rules = append(rules, policy.WithSource(global, policy.SourceConfig)...)
	a.Rules = nil
	if len(rules) > 0 {
		a.Rules = rules
	}
	return a
}

func eventRules(rules []policy.Rule) []event.Rule {
	if len(rules) == 0 {
		return nil
	}
	out := make([]event.Rule, len(rules))
	for i, r := range rules {
		out[i] = event.Rule{Effect: r.Effect, Tool: r.Tool, Match: r.Match, Source: r.Source}
	}
	return out
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
	rt := p.Runtime
	if rt != nil && (rt.Model.Provider == nil || rt.Tools == nil || rt.Approver == nil) {
		return store.Run{}, fmt.Errorf("start run: a runtime needs a model, tools and an approver")
	}
	reg := s.cfg.Tools
	if rt != nil {
		reg = rt.Tools
	}
	for _, t := range p.BreakBefore {
		if _, ok := reg.Lookup(t); !ok {
			return store.Run{}, fmt.Errorf("%w: break_before: unknown tool %q", ErrInvalid, t)
		}
	}
	if p.Mode != "" && !policy.ValidMode(p.Mode) {
		return store.Run{}, fmt.Errorf("%w: mode %q is not one of %s", ErrInvalid, p.Mode, strings.Join(policy.Modes, ", "))
	}
	if err := policy.ValidateRules(p.Rules); err != nil {
		return store.Run{}, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	global := s.cfg.Rules
	if rt != nil && !rt.LocalRules {
		global = nil
	}
	p.Agent = effective(p.Agent, p.Mode, p.Rules, global)
	boxed, err := withSandbox(p.Agent, p.Sandbox, p.SandboxNetwork)
	if err != nil {
		return store.Run{}, err
	}
	p.Agent = boxed
	if p.Model != "" {
		if err := checkModel(p.Model); err != nil {
			return store.Run{}, err
		}
		p.Agent.Model = p.Model
	}
	root, err := workspace.Open(p.Workspace)
	if err != nil {
		return store.Run{}, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	var m Model
	if rt != nil {
		m = rt.Model
	} else if m, err = s.cfg.Models.Resolve(ctx, p.Agent); err != nil {
		return store.Run{}, fmt.Errorf("%w: agent %s: %v", ErrInvalid, p.Agent.Name, err)
	}
	if p.Model != "" && m.Name == agent.ProviderScript {
		// A script answers as written whatever model it is asked for: the
		// override would be recorded but never used.
		return store.Run{}, fmt.Errorf("%w: model: agent %s plays a script (provider %s), which takes no model", ErrInvalid, p.Agent.Name, m.Name)
	}
	spec, err := json.Marshal(p.Agent)
	if err != nil {
		return store.Run{}, fmt.Errorf("start run: %w", err)
	}
	limits := limitsOf(p.Agent)
	if p.Limits != nil {
		if err := checkLimits(*p.Limits); err != nil {
			return store.Run{}, err
		}
		limits = raise(limits, *p.Limits)
	}
	id := s.cfg.NewID("run")
	st := s.newRun(id)
	if rt != nil && rt.Bind != nil {
		rt.Bind(id)
	}
	if rt != nil {
		st.registry, st.approver, st.noGrants = rt.Tools, rt.Approver, !rt.LocalRules
	}
	var project *event.ProjectServers
	if rt == nil {
		if p.Agent, project = s.project(st, p.Agent, root.Path()); project != nil {
			if spec, err = json.Marshal(p.Agent); err != nil {
				return store.Run{}, fmt.Errorf("start run: %w", err)
			}
		}
	}
	st.model, st.unattended = m, p.Unattended
	st.env = tool.Env{RunID: id, Workspace: root.Path(), Artifacts: s.artifactsDir(id)}
	created := event.RunCreatedData{
		Agent:        event.AgentRef{ID: p.Agent.ID, Name: p.Agent.Name, Provider: m.Name, Model: m.Model, Demo: m.Demo},
		Instructions: instr,
		Workspace:    root.Path(),
		Mode:         p.Agent.Mode,
		Rules:        eventRules(p.Agent.Rules),
		MaxSteps:     p.Agent.MaxSteps,
		Unattended:   p.Unattended,
		Spec:         spec,
		BreakBefore:  union(p.Agent.BreakBefore, p.BreakBefore),
		Limits:       &limits,
		ReplayOf:     p.ReplayOf,
		Sandbox:      eventSandbox(s.sandboxState(p.Agent)),
		Project:      project,
	}
	a, err := s.launch(ctx, st, func(a *active) error {
		a.emitLocked(event.RunCreated, "", created)
		return nil
	}, func(a *active) {
		a.mu.Lock()
		if p.Paused != "" {
			a.pauseAsked, a.pauseReason = true, p.Paused // as a fork starts
		} else {
			a.setStatusLocked(Running, "", "", nil)
		}
		a.st.root = a.st.newNode()
		a.emitLocked(event.NodeStarted, a.st.root, event.NodeStartedData{Kind: event.KindAgent, Label: p.Agent.Name})
		user := a.st.newNode()
		a.emitLocked(event.NodeStarted, user, event.NodeStartedData{Kind: event.KindUser, Parent: a.st.root, Label: "instructions", Text: instr})
		// Every node is closed by exactly one node.finished; a user message
		// is complete as soon as it is recorded.
		a.emitLocked(event.NodeFinished, user, event.NodeFinishedData{Status: event.NodeSucceeded})
		a.mu.Unlock()
	})
	if err != nil {
		return store.Run{}, err
	}
	_ = a // the goroutine owns it now
	return s.cfg.Store.GetRun(ctx, id)
}

// launch registers a run as active, records its first events (first, which
// must commit before launch returns), and starts its goroutine, which runs
// then before the step loop. An error from first (which it returns having
// recorded nothing) stops the launch: the run is left as it was.
func (s *Service) launch(ctx context.Context, st *runState, first func(*active) error, then func(*active)) (*active, error) {
	runCtx, cancel := context.WithCancelCause(s.base)
	a := newActive(s, st, cancel)
	// Registered before the run is recorded: a cancel that arrives as soon
	// as run.created is visible must find the run to stop.
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		cancel(nil)
		return nil, ErrShuttingDown
	}
	if _, driven := s.active[st.id]; driven {
		// Two drivers of one run would each write its log: a bug of the
		// caller, refused rather than recorded.
		s.mu.Unlock()
		cancel(nil)
		return nil, fmt.Errorf("run %s: %w (this one)", st.id, ErrDriven)
	}
	s.active[st.id] = a
	s.wg.Add(1) // under mu, so Shutdown's Wait never races an Add
	s.mu.Unlock()
	if err := s.acquire(ctx, st.id); err != nil {
		s.mu.Lock()
		delete(s.active, st.id)
		s.mu.Unlock()
		cancel(nil)
		close(a.done)
		s.wg.Done()
		return nil, err
	}
	a.mu.Lock()
	err := first(a)
	a.mu.Unlock()
	if err == nil {
		err = a.sync()
	}
	if err != nil {
		s.mu.Lock()
		delete(s.active, st.id)
		s.mu.Unlock()
		s.release(st.id)
		cancel(nil)
		close(a.done)
		s.wg.Done()
		return nil, fmt.Errorf("launch run %s: %w", st.id, err)
	}
	go func() {
		defer s.wg.Done()
		defer close(a.done)
		defer func() {
			s.mu.Lock()
			delete(s.active, st.id)
			s.mu.Unlock()
			s.release(st.id)
			cancel(nil)
		}()
		if then != nil {
			then(a)
		}
		defer s.watchFiles(a)()
		s.drive(runCtx, a)
	}()
	return a, nil
}

// Done returns a channel closed when the run's goroutine has ended; for a
// run not active in this process (it ended, or never ran here) the channel
// is closed already. Never nil: a receive from nil would wait for ever on
// a run that ended before the call.
func (s *Service) Done(runID string) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a, ok := s.active[runID]; ok {
		return a.done
	}
	return closedDone
}

// Active reports whether the run is driven by this process now.
func (s *Service) Active(runID string) bool { return s.lookup(runID) != nil }

// closedDone is Done's answer for a run that is not active.
var closedDone = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

func (s *Service) lookup(runID string) *active {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.active[runID]
}

// Shutdown stops every active run and waits for them, or until ctx ends. A
// run stopped this way records a pause with reason shutdown (its in-flight
// call interrupted), and the next start resumes it as recovered.
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

func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, x := range b {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

func randFloat() float64 { return rand.Float64() }
