// Command steward is a local agent workbench: it runs AI agents on a
// workspace folder and keeps a person in control. This file is the
// composition root: it parses the command line, builds every service once,
// and starts the chosen mode. It holds no logic of its own.
package main

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"steward/app"
	"steward/backend/agent"
	"steward/backend/api"
	"steward/backend/attention"
	"steward/backend/config"
	"steward/backend/console"
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
	"steward/backend/tools/shell"
	"steward/backend/workspace"
	"steward/frontend"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

const usage = `Steward: a local workbench for AI agents that keeps you in control.

Usage:
  steward                      open the desktop window (or serve, without a display)
  steward serve [flags]        serve the web UI and API on loopback
  steward run [flags] TEXT     run an agent in this terminal
  steward export RUN -o FILE   export a run (--format steward, html, otlp, video)
  steward import FILE          import a recording as a read-only run
  steward replay FILE          replay a recording as a new run of one of your agents (--agent, --tools recorded|live)
  steward doctor               check this machine: command sandbox, Chromium, ffmpeg, providers, data directory
  steward version              print the version

Run 'steward COMMAND --help' for the flags of a command.

Environment:
  STEWARD_HOME      data directory (default $XDG_DATA_HOME/steward or ~/.local/share/steward)
  STEWARD_TOKEN     API token (default: generated once, kept in the data directory)
  OPENAI_API_KEY    use OpenAI (or a compatible server) for agents set to auto
  OPENAI_BASE_URL   an OpenAI-compatible server: Ollama, llama.cpp, vLLM, LM Studio, OpenRouter
  STEWARD_MODEL     the model to ask for (default gpt-4o-mini)
`

func main() {
	// First of all: no child process, whoever starts it, inherits a key or
	// the token; Steward reads them from getenv.
	getenv, err := config.TakeSecrets()
	if err != nil {
		fmt.Fprintln(os.Stderr, "steward:", err)
		os.Exit(1)
	}
	os.Exit(realMain(os.Args[1:], getenv, os.Stdin, os.Stdout, os.Stderr))
}

func realMain(args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd := ""
	if len(args) > 0 {
		cmd, args = args[0], args[1:]
	}
	var err error
	switch cmd {
	case "":
		if app.Available() {
			err = desktop(getenv, stderr)
		} else {
			err = serve(nil, getenv, stdout, stderr)
		}
	case "serve":
		err = serve(args, getenv, stdout, stderr)
	case "run":
		var code int
		code, err = runCmd(args, getenv, stdin, stdout, stderr)
		if err == nil {
			return code
		}
	case "export":
		return exportCmd(args, getenv, stdout, stderr)
	case "import":
		return importCmd(args, getenv, stdout, stderr)
	case "replay":
		return replayCmd(args, getenv, stdin, stdout, stderr)
	case "doctor":
		return doctorCmd(args, getenv, stdout, stderr)
	case "version", "--version":
		fmt.Fprintln(stdout, "steward", version)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
	default:
		fmt.Fprintf(stderr, "steward: unknown command %q\n\n%s", cmd, usage)
		return 2
	}
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "steward:", err)
		return 1
	}
	return 0
}

// services are built once and shared by every mode.
type services struct {
	cfg      config.Config
	store    *store.Store
	bus      *event.Bus
	tools    *tool.Registry
	inbox    *inbox.Inbox
	runs     *run.Service
	agents   *agent.Service
	models   *config.Models
	settings *config.Settings
	browser  *browsertools.Manager
	sandbox  *sandbox.Sandbox
	exchange *exchange.Service
	replays  *replay.Service
	logger   *log.Logger
	// desktop is the window's native dialogs when serving the desktop
	// window; nil for `steward serve`.
	desktop api.Desktop
}

func build(getenv func(string) string, logw io.Writer) (*services, error) {
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
	secrets := redact.NewLive(func() []string { return append(models.Secrets(), token) })
	logger := log.New(secrets.Writer(logw), "steward: ", log.LstdFlags)
	bus := event.NewBus()
	st, err := store.Open(cfg.DBPath(), &store.Options{Publisher: bus})
	if err != nil {
		return nil, err
	}
	sb := newSandbox(cfg, getenv)
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
	in := inbox.New(st, tools, func() string { return newID("ia") })
	blobs, err := workspace.NewBlobs(filepath.Join(cfg.Home, "blobs"))
	if err != nil {
		st.Close()
		return nil, err
	}
	prices := config.NewPrices(cfg.Prices)
	runs := run.New(run.Config{Store: st, Approver: in, Tools: tools, Models: models, NewID: newID, Logf: logger.Printf,
		Redact: secrets.String, Price: prices.Cost, Rules: cfg.Rules, Grants: st, Blobs: blobs, Artifacts: cfg.ArtifactsDir(), Sandbox: sb})
	agents := agent.NewService(st, func(n string) bool { _, ok := tools.Lookup(n); return ok }, newID, time.Now)
	if err := agents.EnsureDefault(context.Background()); err != nil {
		st.Close()
		return nil, err
	}
	settings := config.NewSettings(cfg, getenv, models, prices)
	// What leaves the machine is redacted of every key in force since the
	// start, the server's token and what was found as a secret meanwhile,
	// looked up at each export.
	ex := exchange.New(exchange.Config{Store: st, Blobs: blobs, Artifacts: cfg.ArtifactsDir(), Version: version, NewID: newID,
		Secrets: secrets.Secrets, Learned: secrets.Learned, Player: frontend.Player})
	replays := replay.NewService(replay.Config{Runs: runs, Log: st, Blobs: blobs, Tools: tools, Inbox: in, Models: models,
		Dir: cfg.ReplaysDir(), Logf: logger.Printf, Redact: secrets.String})
	return &services{cfg: cfg, store: st, bus: bus, tools: tools, inbox: in, runs: runs, agents: agents, models: models,
		settings: settings, browser: browsers, sandbox: sb, exchange: ex, replays: replays, logger: logger}, nil
}

// newSandbox is the command sandbox: bubblewrap where it works, and the
// data directory, with its token and keys, hidden from every command.
func newSandbox(cfg config.Config, getenv func(string) string) *sandbox.Sandbox {
	return sandbox.New(sandbox.Options{Hide: []string{cfg.Home}, Caches: cfg.SandboxCachesDir(), Getenv: getenv})
}

func (s *services) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.runs.Shutdown(ctx); err != nil {
		s.logger.Printf("stop runs: %v", err)
	}
	s.browser.Close() // the runs are stopped: no Chromium is left behind
	if err := s.store.Close(); err != nil {
		s.logger.Printf("close store: %v", err)
	}
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

// server is a running HTTP server.
type server struct {
	http *http.Server
	url  string
	errc chan error
}

// startServer ends the runs a previous process left active, then serves the
// API and the UI on addr.
func startServer(s *services, addr string, getenv func(string) string) (*server, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("--addr %q: %w", addr, err)
	}
	token, err := s.cfg.Token(getenv)
	if err != nil {
		return nil, err
	}
	if n, err := s.runs.Recover(context.Background()); err != nil {
		return nil, err
	} else if n > 0 {
		s.logger.Printf("resumed %d run(s) left active by a previous process: paused, reason recovered", n)
	}
	extra := ""
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		extra = host
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	wd, _ := os.Getwd()
	h := api.New(api.Config{
		Token: token, Version: version, DefaultWorkspace: wd, ExtraHost: extra,
		Runs: s.runs, Inbox: s.inbox, Store: s.store, Agents: s.agents, Models: s.models, Tools: s.tools,
		Settings: s.settings, Desktop: s.desktop, Bus: s.bus, UI: uiFS(), Logf: s.logger.Printf,
		Artifacts: s.cfg.ArtifactsDir(), Frames: s.browser, Exchange: s.exchange, Replays: s.replays, Sandbox: s.sandbox,
	})
	port := ln.Addr().(*net.TCPAddr).Port
	h.SetPort(port)
	urlHost := host
	if extra == "" {
		urlHost = "127.0.0.1"
	}
	srv := &server{
		http: &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ErrorLog: s.logger},
		url:  fmt.Sprintf("http://%s/?token=%s", net.JoinHostPort(urlHost, fmt.Sprint(port)), token),
		errc: make(chan error, 1),
	}
	go func() { srv.errc <- srv.http.Serve(ln) }()
	return srv, nil
}

func (srv *server) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.http.Shutdown(ctx) // long-lived WebSockets are closed below anyway
	_ = srv.http.Close()
}

func serve(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fl := flag.NewFlagSet("serve", flag.ContinueOnError)
	fl.SetOutput(stderr)
	addr := fl.String("addr", "127.0.0.1:8787", "address to listen on; loopback unless --expose")
	open := fl.Bool("open", false, "open the UI in the default browser")
	expose := fl.Bool("expose", false, "allow a non-loopback --addr (needs STEWARD_TOKEN)")
	fl.Usage = func() {
		fmt.Fprint(stderr, "Usage: steward serve [--addr 127.0.0.1:8787] [--open]\n\nServe the web UI and the API.\n\n")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return err
	}
	if host, _, err := net.SplitHostPort(*addr); err == nil {
		if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			if !*expose || getenv("STEWARD_TOKEN") == "" {
				return fmt.Errorf("--addr %s is not loopback: anyone on that network could reach Steward; pass --expose and set STEWARD_TOKEN if you mean it", *addr)
			}
		}
	}
	s, err := build(getenv, stderr)
	if err != nil {
		return err
	}
	defer s.close()
	srv, err := startServer(s, *addr, getenv)
	if err != nil {
		return err
	}
	defer srv.stop()
	_, demo, note := s.models.Describe(context.Background())
	fmt.Fprintf(stdout, "Steward %s is running: %s\n", version, srv.url)
	if demo {
		fmt.Fprintln(stdout, note)
	}
	if uiFS() == nil {
		fmt.Fprintln(stdout, "The UI is not built into this binary (run `make build`); the API works.")
	}
	if *open {
		if err := exec.Command("xdg-open", srv.url).Start(); err != nil {
			fmt.Fprintf(stderr, "could not open a browser (%v): open the URL above\n", err)
		}
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	select {
	case <-sig:
		fmt.Fprintln(stderr, "stopping")
		return nil
	case err := <-srv.errc:
		return err
	}
}

func desktop(getenv func(string) string, stderr io.Writer) error {
	s, err := build(getenv, stderr)
	if err != nil {
		return err
	}
	defer s.close()
	dialogs := &app.Dialogs{}
	s.desktop = dialogs
	srv, err := startServer(s, "127.0.0.1:0", getenv)
	if err != nil {
		return err
	}
	defer srv.stop()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	watcher := attention.New(s.store, s.bus, &attention.Options{Logf: s.logger.Printf})
	// surface=desktop: answers given in the window are recorded as the desktop's.
	return app.Run(ctx, app.Options{URL: srv.url + "&surface=desktop", Logf: s.logger.Printf, Attention: windowAttention(watcher),
		Dialogs: dialogs})
}

// windowAttention feeds the window's title and notifications from w: the
// pending approvals and questions. app declares its own Attention so that it
// imports nothing of the backend; this only copies one into the other.
func windowAttention(w *attention.Watcher) func(context.Context, func(app.Attention)) {
	return func(ctx context.Context, show func(app.Attention)) {
		w.Run(ctx, func(a attention.Attention) {
			v := app.Attention{Pending: a.Pending}
			if a.Notify != nil {
				v.Notice = &app.Notice{Title: a.Notify.Title, Body: a.Notify.Body}
			}
			show(v)
		})
	}
}

func runCmd(args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	fl := flag.NewFlagSet("run", flag.ContinueOnError)
	fl.SetOutput(stderr)
	agentName := fl.String("agent", agent.DefaultName, "agent to run (name or id)")
	ws := fl.String("workspace", ".", "workspace folder the agent works in")
	unattended := fl.Bool("unattended", false, "nobody is at the terminal: calls that need approval are denied")
	breakBefore := fl.String("break-before", "", "comma-separated tool names to pause before, like breakpoints")
	maxSteps := fl.Int("max-steps", 0, "budget of model calls for this run (default: the agent's); reaching it pauses the run")
	maxCost := fl.Float64("max-cost-usd", 0, "budget in US dollars for this run (default: the agent's); reaching it pauses the run")
	fl.Usage = func() {
		fmt.Fprint(stderr, "Usage: steward run [--agent NAME] [--workspace DIR] [--unattended] [--break-before TOOLS] \"instructions\"\n\n"+
			"Run an agent in this terminal. Approvals are asked here: y approves, n denies (with an optional reason).\n"+
			"Ctrl-C pauses the run; then continue, step, steer or cancel it here. A second Ctrl-C cancels.\n"+
			"Exits 0 only if the run completed.\n\n")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0, nil
		}
		return 2, nil
	}
	instructions := strings.TrimSpace(strings.Join(fl.Args(), " "))
	if instructions == "" {
		fl.Usage()
		return 2, nil
	}
	s, err := build(getenv, stderr)
	if err != nil {
		return 1, err
	}
	defer s.close()
	ctx := context.Background()
	a, err := s.agents.Get(ctx, *agentName)
	if err != nil {
		return 1, fmt.Errorf("agent %q: %w", *agentName, err)
	}
	var breaks []string
	for _, t := range strings.Split(*breakBefore, ",") {
		if t = strings.TrimSpace(t); t != "" {
			breaks = append(breaks, t)
		}
	}
	var limits *event.Limits
	if *maxSteps != 0 || *maxCost != 0 {
		limits = &event.Limits{MaxSteps: *maxSteps, MaxCostUSD: *maxCost}
	}
	r, err := s.runs.Start(ctx, run.StartParams{Agent: a, Instructions: instructions, Workspace: *ws, Unattended: *unattended,
		BreakBefore: breaks, Limits: limits})
	if err != nil {
		return 1, err
	}
	// Ctrl-C pauses the run at its next safe point; a second one (while it
	// pauses or is paused) cancels it. SIGTERM cancels at once.
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	go func() {
		for sg := range sig {
			kind := run.CmdCancel
			if cur, err := s.store.GetRun(ctx, r.ID); err == nil && sg == os.Interrupt &&
				(cur.Status == string(run.Running) || cur.Status == string(run.Waiting)) {
				kind = run.CmdPause
			}
			_, _ = s.runs.Command(ctx, r.ID, run.Command{CommandID: newID("cmd"), Type: kind})
		}
	}()
	c := &console.Console{Out: stdout, In: stdin, Inbox: s.inbox, Runs: s.runs, Bus: s.bus, Reader: s.store,
		NewID: func() string { return newID("cmd") }, Color: isTerminal(stdout)}
	final, err := c.Follow(ctx, r.ID)
	if err != nil {
		return 1, err
	}
	if done := s.runs.Done(r.ID); done != nil {
		<-done
	}
	if final.Status == string(run.Completed) {
		return 0, nil
	}
	return 1, nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
