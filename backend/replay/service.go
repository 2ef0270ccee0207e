package replay

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"steward/backend/agent"
	"steward/backend/event"
	"steward/backend/policy"
	"steward/backend/recording"
	"steward/backend/redact"
	"steward/backend/run"
	"steward/backend/store"
)

// Runs starts runs: the engine (run.Service).
type Runs interface {
	Start(ctx context.Context, p run.StartParams) (store.Run, error)
}

// Log is what the replays need of the database: the source run, its
// events, this machine's agents, and a place to record a replay's
// divergence.
type Log interface {
	GetRun(ctx context.Context, id string) (store.Run, error)
	Events(ctx context.Context, runID string, after int64, limit int) ([]event.Event, error)
	Append(ctx context.Context, ev event.Event) (event.Event, error)
	GetAgent(ctx context.Context, key string) (agent.Agent, error)
}

// Blobs holds the contents of the files runs changed, by SHA-256.
type Blobs interface {
	Get(sum string) ([]byte, error)
}

// Config holds the collaborators of a Service.
type Config struct {
	Runs  Runs
	Log   Log
	Blobs Blobs
	// Tools run the calls of a replay with live tools, and serve the specs.
	Tools run.Tools
	// Inbox opens and answers the replay's approvals, as recorded, and
	// asks a person the others.
	Inbox Answerer
	// Models resolves the agent's real model, for LiveFrom: always an
	// agent of this machine (see run.Origin).
	Models run.Models
	// Dir is where a replay's workspace is made when none is given.
	Dir  string
	Logf func(format string, args ...any)
	// Redact removes secrets from the diverging values the replay records
	// (run.Config.Redact); nil runs the detectors alone.
	Redact func(string) string
}

// Service starts replays of recorded runs as new runs of the engine.
type Service struct{ cfg Config }

// NewService returns a Service.
func NewService(cfg Config) *Service {
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	if cfg.Redact == nil {
		cfg.Redact = redact.NewLive(nil).String
	}
	return &Service{cfg: cfg}
}

// ToolsMode is where a replay's tool results come from.
type ToolsMode string

// ToolsModes lists them.
var ToolsModes = []ToolsMode{ToolsRecorded, ToolsLive}

// Tools modes of a replay.
const (
	ToolsRecorded = "recorded" // results from the recording; nothing runs
	ToolsLive     = "live"     // the tools run for real in the replay's workspace
)

// Params are the choices of a replay.
type Params struct {
	Tools ToolsMode // ToolsRecorded (default) or ToolsLive
	// LiveFrom, when positive, is the model call (from 1) from which the
	// agent's real model answers.
	LiveFrom int
	// Workspace is the folder to replay in; empty makes a new one under
	// Config.Dir.
	Workspace string
	// NonEmpty lets Workspace hold files already (see PrepareOptions).
	NonEmpty bool
	// Agent is the id or name of one of this machine's agents to replay
	// with. A foreign recording (see run.Origin: imported, or a file) needs
	// one; the replay then takes its provider, rules, tools and budgets,
	// never the recording's. Empty for a run of this machine replays with
	// the run's own settings.
	Agent string
	// Mode is the permission mode of the replay. Empty: ask for a replay
	// with a chosen agent, the run's own otherwise.
	Mode string
}

func (p *Params) check() error {
	switch p.Tools {
	case "":
		p.Tools = ToolsRecorded
	case ToolsRecorded, ToolsLive:
	default:
		return fmt.Errorf("%w: tools is %q, not %q or %q", ErrInvalid, p.Tools, ToolsRecorded, ToolsLive)
	}
	if p.LiveFrom < 0 {
		return fmt.Errorf("%w: live_from is %d; give the model call (from 1) that goes to the live model, or 0 for none", ErrInvalid, p.LiveFrom)
	}
	if p.Mode != "" && !policy.ValidMode(p.Mode) {
		return fmt.Errorf("%w: mode %q is not one of %s", ErrInvalid, p.Mode, strings.Join(policy.Modes, ", "))
	}
	return nil
}

// Started is a replay that started.
type Started struct {
	Run      store.Run
	Provider *Provider // plays the model side; its Divergence is the first found
	Prepared Prepared  // what was put back in the workspace
}

// Replay replays run runID of the database (of this machine or imported)
// as a new run linked to it. A foreign run (see run.Origin) replays with
// the agent p names, and starts paused. Errors wrapping ErrInvalid name
// what was wrong; one wrapping store.ErrConflict means the run has not
// ended.
func (s *Service) Replay(ctx context.Context, runID string, p Params) (Started, error) {
	if err := p.check(); err != nil {
		return Started{}, err
	}
	src, err := s.cfg.Log.GetRun(ctx, runID)
	if err != nil {
		return Started{}, err
	}
	if !run.Status(src.Status).Terminal() {
		return Started{}, fmt.Errorf("run %s is %s: %w: replay it when it has ended", runID, src.Status, store.ErrConflict)
	}
	origin, err := run.OriginOf(ctx, s.cfg.Log, src)
	if err != nil {
		return Started{}, err
	}
	rec, err := s.load(ctx, runID)
	if err != nil {
		return Started{}, err
	}
	return s.start(ctx, rec, p, origin, origin.Foreign)
}

// Start replays rec, a recording read from a file, as a new run. A file
// may come from anyone: it replays as a foreign recording (see run.Origin),
// with the agent p names, and starts at once (the person asked for it on
// the command line).
func (s *Service) Start(ctx context.Context, rec *Recorded, p Params) (Started, error) {
	return s.start(ctx, rec, p, run.Origin{Foreign: true, Reason: "a recording read from a file may come from anyone"}, false)
}

// sameFolder reports whether a and b are the same folder on this machine
// (links, letter case and such resolved by the file system).
func sameFolder(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// load folds the log of run runID as a recording of it. Nothing is
// redacted: the replay stays on this machine.
func (s *Service) load(ctx context.Context, runID string) (*Recorded, error) {
	var evs []event.Event
	for after := int64(0); ; {
		page, err := s.cfg.Log.Events(ctx, runID, after, 5000)
		if err != nil {
			return nil, err
		}
		evs = append(evs, page...)
		if len(page) < 5000 {
			break
		}
		after = page[len(page)-1].Seq
	}
	b := &recording.Bundle{Events: evs, Blobs: map[string][]byte{}}
	for _, ev := range evs {
		if ev.Type != event.FileChanged {
			continue
		}
		var d event.FileChangedData
		if err := ev.Decode(&d); err != nil {
			return nil, fmt.Errorf("run %s: event %d: %w", runID, ev.Seq, err)
		}
		for _, sum := range []string{d.Before, d.After} {
			if sum == "" || b.Blobs[sum] != nil {
				continue
			}
			// A content the journal no longer holds is reported by
			// PrepareWorkspace (Unknown) or by the recorded tools.
			if data, err := s.cfg.Blobs.Get(sum); err == nil {
				b.Blobs[sum] = data
			}
		}
	}
	rec, err := Load(b)
	if errors.Is(err, ErrUnsupported) || errors.Is(err, ErrRefused) {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return rec, err
}

// start replays rec as a new run of the engine: it prepares the
// workspace, wires the recorded model (and tools, with ToolsRecorded) and
// answers, and records the first divergence as a replay.diverged event of
// the new run. The settings are origin's agent's, or for a foreign
// recording those of the agent p names (see run.Origin).
func (s *Service) start(ctx context.Context, rec *Recorded, p Params, origin run.Origin, paused bool) (_ Started, err error) {
	if err := p.check(); err != nil {
		return Started{}, err
	}
	chosen := origin.Foreign || p.Agent != ""
	var mine agent.Agent // the agent of this machine the replay runs as
	if chosen {
		if p.Agent == "" {
			return Started{}, fmt.Errorf("%w: %s: its recorded agent (provider, base URL, model, mode, rules) is not used on this machine; choose one of this machine's agents to replay it with (agent)",
				ErrInvalid, origin.Reason)
		}
		a, err := s.cfg.Log.GetAgent(ctx, p.Agent)
		if errors.Is(err, store.ErrNotFound) {
			return Started{}, fmt.Errorf("%w: agent %q does not exist on this machine", ErrInvalid, p.Agent)
		}
		if err != nil {
			return Started{}, err
		}
		mine = a
	}
	ws := p.Workspace
	if ws == "" {
		if err := os.MkdirAll(s.cfg.Dir, 0o700); err != nil {
			return Started{}, fmt.Errorf("replay workspace: %w", err)
		}
		dir, merr := os.MkdirTemp(s.cfg.Dir, "replay-"+filepath.Base(rec.RunID)+"-*")
		if merr != nil {
			return Started{}, fmt.Errorf("replay workspace: %w", merr)
		}
		ws = dir
		defer func() {
			if err != nil {
				_ = os.RemoveAll(dir) // made for this replay, which did not start
			}
		}()
	} else if fi, serr := os.Stat(ws); serr != nil || !fi.IsDir() {
		return Started{}, fmt.Errorf("%w: workspace %s is not a folder", ErrInvalid, ws)
	} else if !chosen && sameFolder(ws, rec.Created.Workspace) {
		return Started{}, fmt.Errorf("%w: workspace %s is the run's own: a replay puts the files the run changed back as they were before it, which would undo its work there; choose another folder, or none for a new one",
			ErrInvalid, ws)
	}

	sp := rec.StartParams(ws)
	if chosen {
		// This machine's agent, as for a run started here. The recorded
		// system prompt and instructions are content: the requests are
		// compared with the recorded ones, and a live model reads them as
		// it reads the conversation.
		a := mine
		a.SystemPrompt, a.BreakBefore = rec.Agent.SystemPrompt, nil
		sp = run.StartParams{Agent: a, Instructions: rec.Created.Instructions, Workspace: ws, ReplayOf: rec.RunID, Mode: cmp.Or(p.Mode, agent.ModeAsk)}
		if paused {
			sp.Paused = "replay of " + rec.RunID + " with agent " + a.Name + ": " + origin.Reason + "; continue it when the agent and folder are right"
		}
	} else {
		// The run's own choices, with its agent's provider as it is now.
		cur := origin.Agent
		sp.Agent.Provider, sp.Agent.Model, sp.Agent.BaseURL, sp.Agent.Script = cur.Provider, cur.Model, cur.BaseURL, cur.Script
		sp.Mode = p.Mode
	}

	div := &divergences{log: s.cfg.Log, logf: s.cfg.Logf, redact: s.cfg.Redact}
	opts := Options{LiveFrom: p.LiveFrom, OnDivergence: div.found}
	if p.LiveFrom > 0 {
		m, err := s.cfg.Models.Resolve(ctx, sp.Agent)
		if err != nil {
			return Started{}, fmt.Errorf("%w: live_from: the agent's model: %v", ErrInvalid, err)
		}
		opts.Live = m.Provider
	}
	prov := NewProvider(rec, opts)
	prep, err := PrepareWorkspace(rec, ws, PrepareOptions{NonEmpty: p.NonEmpty})
	if err != nil {
		if p.Workspace != "" || errors.Is(err, ErrRefused) { // the folder chosen, or the recording, cannot take it
			err = fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		return Started{}, err
	}
	tools := s.cfg.Tools
	if p.Tools == ToolsRecorded {
		// After LiveFrom the live model's calls have no recording: they
		// run for real, in the workspace the recorded changes went to.
		tools = NewTools(rec, s.cfg.Tools, ToolsOptions{Provider: prov, Live: p.LiveFrom > 0})
	}
	var approver run.Approver = NewApprover(rec, s.cfg.Inbox, prov, &ApproverOptions{Unasked: chosen && p.Tools == ToolsRecorded})
	if chosen && p.Tools == ToolsLive {
		// Every call runs for real: a recorded answer is someone else's
		// decision, so a person here answers each one.
		approver = s.cfg.Inbox
	}
	m, _ := Models(rec, prov).Resolve(ctx, rec.Agent)
	sp.Runtime = &run.Runtime{Model: m, Tools: tools, Approver: approver, LocalRules: chosen, Bind: div.bind}
	var r store.Run
	if r, err = s.cfg.Runs.Start(ctx, sp); err != nil {
		return Started{}, err
	}
	return Started{Run: r, Provider: prov, Prepared: prep}, nil
}

// divergences records a replay's first divergence in its run's log. The
// run's id is bound before the run starts (Runtime.Bind), so the provider,
// which finds a divergence during a model call, records it then: before the
// run's later events and its end.
type divergences struct {
	log    Log
	logf   func(format string, args ...any)
	redact func(string) string

	mu    sync.Mutex
	runID string
}

func (d *divergences) bind(runID string) {
	d.mu.Lock()
	d.runID = runID
	d.mu.Unlock()
}

func (d *divergences) found(x Divergence) {
	d.mu.Lock()
	id := d.runID
	d.mu.Unlock()
	if id == "" {
		d.logf("replay diverged before its run had an id: %+v", x)
		return
	}
	d.record(context.Background(), id, x)
}

func (d *divergences) record(ctx context.Context, runID string, x Divergence) {
	// Redacted whole, then clipped: a secret cut in two would not be known.
	data := event.Outside(event.ReplayDivergedData{Step: x.Step, Field: x.Field, Recorded: x.Recorded, Got: x.Got}, d.redact).(event.ReplayDivergedData)
	data.Recorded, data.Got = clip(data.Recorded), clip(data.Got)
	_, err := d.log.Append(ctx, event.New(runID, event.ReplayDiverged, "", data))
	if err != nil {
		d.logf("run %s: record the replay's divergence: %v", runID, err)
	}
}

// clip bounds a diverging value kept in the log: a tool result may be long.
func clip(s string) string {
	const max = 2000
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && s[cut]&0xC0 == 0x80 { // not inside a UTF-8 sequence
		cut--
	}
	return s[:cut] + "…"
}
