package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"steward/backend/mcpserver"
)

// mcpAddr is where `steward mcp` serves the UI by default: a port of its
// own, beside serve's 8787, so that a browser signed in once stays signed
// in (the session cookie is kept per port).
const mcpAddr = "127.0.0.1:8788"

// mcpServer is Steward's MCP server on s, its runs' links pointing to the
// UI at base.
func (p *Program) mcpServer(s *Services, base string) *mcpserver.Server {
	return mcpserver.New(mcpserver.Config{Version: p.Version, Runs: s.Runs, Store: s.Store, Agents: s.Agents, Exchange: s.Exchange,
		Bus: s.Bus, UI: base, ExportDir: filepath.Join(s.Config.Home, "exports"), NewID: p.NewID, Logf: s.Logger.Printf})
}

// mcpCmd is `steward mcp`: Steward's tools for one MCP client over stdin
// and stdout, until the client closes stdin. The runs it starts run in this
// process; the UI where a person answers their approvals is served on
// --addr meanwhile, as by serve. Nothing but MCP messages goes to stdout.
func (p *Program) mcpCmd(args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	fl := flag.NewFlagSet("mcp", flag.ContinueOnError)
	fl.SetOutput(stderr)
	addr := fl.String("addr", mcpAddr, "loopback address of the UI where approvals are answered (any free port when the default is taken)")
	fl.Usage = func() {
		fmt.Fprint(stderr, "Usage: steward mcp [--addr 127.0.0.1:8788]\n\n"+
			"Serve Steward's tools to an MCP client over stdin and stdout (claude mcp add steward -- steward mcp).\n"+
			"Approvals of its runs are answered by a person in the UI, whose address is printed here on stderr.\n\n")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return err
	}
	if fl.NArg() > 0 {
		fl.Usage()
		return fmt.Errorf("mcp takes no arguments, got %q", fl.Args())
	}
	// The UI answers approvals: it stays on this machine (serve --expose is
	// the way to offer it elsewhere).
	if host, _, err := net.SplitHostPort(*addr); err == nil {
		if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return fmt.Errorf("--addr %s is not loopback: steward mcp serves its UI on this machine only", *addr)
		}
	}
	explicit := false
	fl.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "addr" })
	s, err := p.Build(getenv, stderr)
	if err != nil {
		return err
	}
	defer s.Close()
	srv, err := p.startServer(s, *addr, getenv)
	if err != nil && !explicit {
		// Another `steward mcp` (a second client) holds the default port.
		srv, err = p.startServer(s, "127.0.0.1:0", getenv)
	}
	if err != nil {
		return err
	}
	defer srv.stop()
	fmt.Fprintf(stderr, "steward mcp %s: approvals of its runs are answered at %s\n", p.Version, srv.url)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	t := &mcp.IOTransport{Reader: io.NopCloser(stdin), Writer: nopWriteCloser{stdout}}
	errc := make(chan error, 1)
	go func() { errc <- srv.mcp.Run(ctx, t) }()
	select {
	case err = <-errc:
	case err = <-srv.errc:
		stop()
		<-errc
	}
	// The client closing stdin, or a signal, is how it ends.
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// nopWriteCloser leaves stdout open when the transport closes.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
