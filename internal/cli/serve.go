package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"

	"steward/app"
	"steward/backend/api"
	"steward/backend/attention"
	"steward/backend/mcpserver"
)

// server is a running HTTP server.
type server struct {
	http *http.Server
	// base is the UI's address without the token; url opens it with the
	// token, for the person who started Steward.
	base, url string
	// mcp is the MCP server served at /mcp, whose runs' links point here.
	mcp  *mcpserver.Server
	errc chan error
}

// startServer ends the runs a previous process left active, then serves the
// API and the UI on addr.
func (p *Program) startServer(s *Services, addr string, getenv func(string) string) (*server, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("--addr %q: %w", addr, err)
	}
	token, err := s.Config.Token(getenv)
	if err != nil {
		return nil, err
	}
	if n, err := s.Runs.Recover(context.Background()); err != nil {
		return nil, err
	} else if n > 0 {
		s.Logger.Printf("resumed %d run(s) left active by a previous process: paused, reason recovered", n)
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
	var mcps api.MCPServers
	if s.MCP != nil && s.Settings != nil { // nil pointers in the interface would not be nil
		mcps = mcpSettings{Manager: s.MCP, settings: s.Settings}
	}
	port := ln.Addr().(*net.TCPAddr).Port
	urlHost := host
	if extra == "" {
		urlHost = "127.0.0.1"
	}
	base := fmt.Sprintf("http://%s/", net.JoinHostPort(urlHost, fmt.Sprint(port)))
	tools := p.mcpServer(s, base)
	h := api.New(api.Config{
		Token: token, Version: p.Version, DefaultWorkspace: wd, ExtraHost: extra,
		Runs: s.Runs, Inbox: s.Inbox, Store: s.Store, Agents: s.Agents, Models: s.Models, Tools: s.Tools,
		Settings: s.Settings, MCPServers: mcps, Projects: s.Settings, Desktop: s.Desktop, Bus: s.Bus, UI: p.UI, Logf: s.Logger.Printf,
		Artifacts: s.Config.ArtifactsDir(), Frames: s.Browser, Exchange: s.Exchange, Replays: s.Replays, Sandbox: s.Sandbox,
		MCP: tools.Handler(),
	})
	h.SetPort(port)
	srv := &server{
		http: &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ErrorLog: s.Logger},
		base: base,
		url:  base + "?token=" + token,
		mcp:  tools,
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

func (p *Program) serve(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
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
	s, err := p.Build(getenv, stderr)
	if err != nil {
		return err
	}
	defer s.Close()
	srv, err := p.startServer(s, *addr, getenv)
	if err != nil {
		return err
	}
	defer srv.stop()
	_, demo, note := s.Models.Describe(context.Background())
	fmt.Fprintf(stdout, "Steward %s is running: %s\n", p.Version, srv.url)
	if demo {
		fmt.Fprintln(stdout, note)
	}
	if p.UI == nil {
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

func (p *Program) desktop(getenv func(string) string, stderr io.Writer) error {
	s, err := p.Build(getenv, stderr)
	if err != nil {
		return err
	}
	defer s.Close()
	dialogs := &app.Dialogs{}
	s.Desktop = dialogs
	srv, err := p.startServer(s, "127.0.0.1:0", getenv)
	if err != nil {
		return err
	}
	defer srv.stop()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	watcher := attention.New(s.Store, s.Bus, &attention.Options{Logf: s.Logger.Printf})
	// surface=desktop: answers given in the window are recorded as the desktop's.
	return app.Run(ctx, app.Options{URL: srv.url + "&surface=desktop", Logf: s.Logger.Printf, Attention: windowAttention(watcher),
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
