// Command steward is a local agent workbench: it runs AI agents on a
// workspace folder and keeps a person in control. This file is the
// composition root: it builds every service, once per command that needs
// them, and hands them to the command line (internal/cli), which parses
// the arguments and starts the chosen mode. It holds no logic of its own.
package main

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"fmt"
	"io"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"steward/backend/agent"
	"steward/backend/config"
	"steward/backend/event"
	"steward/backend/exchange"
	"steward/backend/inbox"
	"steward/backend/redact"
	"steward/backend/replay"
	"steward/backend/run"
	"steward/backend/sandbox"
	"steward/backend/store"
	"steward/backend/tool"
	browsertools "steward/backend/tools/browser"
	fstools "steward/backend/tools/fs"
	"steward/backend/tools/git"
	"steward/backend/tools/interact"
	mcptools "steward/backend/tools/mcp"
	"steward/backend/tools/shell"
	"steward/backend/workspace"
	"steward/frontend"
	"steward/internal/cli"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	// First of all: no child process, whoever starts it, inherits a key or
	// the token; Steward reads them from getenv.
	getenv, err := config.TakeSecrets()
	if err != nil {
		fmt.Fprintln(os.Stderr, "steward:", err)
		os.Exit(1)
	}
	p := &cli.Program{Version: version, Build: build, Sandbox: newSandbox, NewID: newID, UI: uiFS()}
	os.Exit(p.Main(os.Args[1:], getenv, os.Stdin, os.Stdout, os.Stderr))
}

// build makes every service of one process from this machine's
// configuration, logging to logw.
func build(getenv func(string) string, logw io.Writer) (*cli.Services, error) {
	cfg, err := config.Load(getenv)
	if err != nil {
		return nil, err
	}
	models := config.NewModels(cfg)
	token, err := cfg.Token(getenv)
	if err != nil {
		return nil, err
	}
	// One redactor for everything: what comes back from a provider, a tool
	// or a web page is redacted of the keys in force (Settings may change
	// them), the server's token and anything shaped like a secret before it
	// becomes an event or a log line, and so is every export.
	// MCP servers start when a run first names their tools; their bearer
	// tokens are secrets like the keys.
	var logger *log.Logger
	// Commands, and the stdio MCP servers a run starts, run in bubblewrap
	// where the run's sandbox settings ask for it.
	sb := newSandbox(cfg, getenv)
	mcps := mcptools.New(mcptools.Options{Servers: cfg.MCPServers, Getenv: getenv, Version: version, Sandbox: sb,
		SharedDir: sharedMCPDir(), Logf: func(format string, args ...any) { logger.Printf(format, args...) }})
	// A workspace's .mcp.json, once the person approved it there, gives
	// the runs of agents that use project servers their own (approvals are
	// in config.json, read at each run's start).
	var settings *config.Settings
	projects := mcptools.NewProjects(mcptools.Options{Getenv: getenv, Version: version, Sandbox: sb,
		Logf: func(format string, args ...any) { logger.Printf(format, args...) }},
		mcps.Configured, func(ws string) string { return settings.ProjectApproval(ws) })
	secrets := redact.NewLive(func() []string {
		return slices.Concat(models.Secrets(), []string{token}, mcps.Secrets(), projects.Secrets())
	})
	logger = log.New(secrets.Writer(logw), "steward: ", log.LstdFlags)
	bus := event.NewBus()
	st, err := store.Open(cfg.DBPath(), &store.Options{Publisher: bus})
	if err != nil {
		return nil, err
	}
	tools := tool.NewRegistry()
	// One browser per run, started on its first browser call; the run's end
	// closes it and makes the recording.
	browsers := browsertools.NewManager(browsertools.Options{Chromium: cfg.Browser.Chromium, Logf: logger.Printf,
		Record: cfg.Browser.Recording(), Downloads: cfg.Browser.Downloads})
	tools.AddRunEnder(browsers)
	for _, t := range slices.Concat(fstools.Tools(), shell.Tools(&shell.Options{Sandbox: sb}), git.Tools(git.Options{UserConfig: cfg.Git.UserConfig}),
		interact.Tools(), browsers.Tools()) {
		if err := tools.Register(t); err != nil {
			st.Close()
			return nil, err
		}
	}
	// Each MCP server's tools (mcp__<server>__<tool>), listed when an
	// agent first names them; each run's sessions end with the run.
	if err := mcps.Register(tools); err != nil {
		st.Close()
		return nil, fmt.Errorf("config: mcpServers: %w", err)
	}
	tools.AddRunEnder(mcps)
	// run_command keeps its own deadline (timeout_s, up to 30 min) and stops
	// its processes itself; the registry's must not cut it short. Config
	// may still set another.
	if err := tools.SetTimeout(shell.RunCommand, shell.CallTimeout); err != nil {
		st.Close()
		return nil, err
	}
	for name, d := range cfg.ToolTimeouts {
		if err := tools.SetTimeout(name, d); err != nil {
			st.Close()
			return nil, fmt.Errorf("config: %w", err)
		}
	}
	in := inbox.New(st, runTools{tools, projects}, func() string { return newID("ia") })
	blobs, err := workspace.NewBlobs(filepath.Join(cfg.Home, "blobs"))
	if err != nil {
		st.Close()
		return nil, err
	}
	prices := config.NewPrices(cfg.Prices)
	settings = config.NewSettings(cfg, getenv, models, prices)
	runs := run.New(run.Config{Store: st, Approver: in, Tools: tools, Models: models, NewID: newID, Logf: logger.Printf,
		Redact: secrets.String, Price: prices.Cost, Rules: cfg.Rules, Grants: st, Blobs: blobs, Ignored: fstools.IgnoredIn, Artifacts: cfg.ArtifactsDir(), Sandbox: sb,
		Project: func(runID, ws string, box sandbox.Settings) (run.Tools, []string, event.ProjectServers) {
			return projects.ForRun(tools, runID, ws, box)
		}})
	// Saving an agent that names an MCP server's tools does not start it.
	agents := agent.NewService(st, tools.Known, newID, time.Now)
	if err := agents.EnsureDefault(context.Background()); err != nil {
		st.Close()
		return nil, err
	}
	// A server added, changed or removed in Settings applies at once.
	settings.OnMCPServers(func(servers map[string]mcptools.Server) {
		if err := mcps.SetServers(servers); err != nil {
			logger.Printf("apply the MCP servers of config.json: %v", err)
		}
	})
	// What leaves the machine is redacted of every key in force since the
	// start, the server's token and what was found as a secret meanwhile,
	// looked up at each export.
	ex := exchange.New(exchange.Config{Store: st, Blobs: blobs, Artifacts: cfg.ArtifactsDir(), Version: version, NewID: newID,
		Secrets: secrets.Secrets, Learned: secrets.Learned, Player: frontend.Player})
	replays := replay.NewService(replay.Config{Runs: runs, Log: st, Blobs: blobs, Tools: tools, Inbox: in, Models: models,
		Dir: cfg.ReplaysDir(), Logf: logger.Printf, Redact: secrets.String})
	return &cli.Services{Config: cfg, Store: st, Bus: bus, Tools: tools, Inbox: in, Runs: runs, Agents: agents, Models: models,
		Settings: settings, Browser: browsers, MCP: mcps, Projects: projects, Sandbox: sb, Exchange: ex, Replays: replays, Logger: logger}, nil
}

// newSandbox is the command sandbox: bubblewrap where it works, and the
// data directory, with its token and keys, hidden from every command.
func newSandbox(cfg config.Config, getenv func(string) string) *sandbox.Sandbox {
	return sandbox.New(sandbox.Options{Hide: []string{cfg.Home}, Caches: cfg.SandboxCachesDir(), Getenv: getenv})
}

// newID returns prefix_ and 16 random base32 characters (80 bits).
func newID(prefix string) string {
	b := make([]byte, 10)
	_, _ = rand.Read(b) // never fails (crypto/rand panics on failure)
	return prefix + "_" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b))
}

func uiFS() fs.FS {
	d := frontend.Dist()
	if _, err := fs.Stat(d, "index.html"); err != nil {
		return nil
	}
	return d
}

// runTools are the process's tools, and each run's own when it has project
// servers, for the inbox's checks of an approval's edited arguments.
type runTools struct {
	*tool.Registry
	projects *mcptools.Projects
}

func (r runTools) RunTools(runID string) inbox.Tools {
	if l := r.projects.Layer(runID); l != nil {
		return l
	}
	return nil
}

// sharedMCPDir is where shared stdio MCP servers keep what they write: the
// user's cache, outside Steward's data directory (which the sandbox hides
// from every program it confines).
func sharedMCPDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "" // the Manager's default, under the temporary directory
	}
	return filepath.Join(dir, "steward", "mcp-shared")
}
