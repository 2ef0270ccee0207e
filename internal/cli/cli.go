// Package cli is Steward's command line: the desktop window, `serve`,
// `run`, `runs`, `agents`, `mcp`, `export`, `import`, `replay` and `doctor`, each parsing its flags
// and driving the services the composition root (main.go) built.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"

	"steward/app"
	"steward/backend/config"
	"steward/backend/sandbox"
)

// Program is what the commands take from the composition root: how to
// build the services (once per command that needs them), the command
// sandbox alone (doctor checks it without the rest), new ids, the UI's
// files (nil when the binary was built without them) and the version.
type Program struct {
	Version string
	Build   func(getenv func(string) string, logw io.Writer) (*Services, error)
	Sandbox func(cfg config.Config, getenv func(string) string) *sandbox.Sandbox
	NewID   func(prefix string) string
	UI      fs.FS
}

const usage = `Steward: a local workbench for AI agents that keeps you in control.

Usage:
  steward                      open the desktop window (or serve, without a display)
  steward serve [flags]        serve the web UI and API on loopback
  steward run [flags] TEXT     run an agent in this terminal
  steward run --continue RUN TEXT
                               continue a run that ended with a message: a new turn of the same run
  steward runs [--status S]    list this machine's runs, newest first
  steward agents               list the agents a run can use
  steward mcp                  serve Steward's tools to an MCP client over stdio (Claude Code, Codex, Claude Desktop)
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
  STEWARD_MODEL     the model to ask for (default gpt-4o-mini); OPENAI_MODEL too
  ANTHROPIC_API_KEY   use Anthropic for agents set to auto (or to anthropic)
  ANTHROPIC_BASE_URL  an Anthropic-compatible server
  ANTHROPIC_MODEL     the Anthropic model to ask for
  VISUAL, EDITOR    the editor e opens on an approval's arguments (steward run)
  STEWARD_CHROMIUM  the Chromium the browser tools start (default: found on PATH)
  NO_COLOR          print without colours
`

// Main runs the command line args (without the program's name) and
// returns the exit code.
func (p *Program) Main(args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd := ""
	if len(args) > 0 {
		cmd, args = args[0], args[1:]
	}
	var err error
	switch cmd {
	case "":
		if app.Available() {
			err = p.desktop(getenv, stderr)
		} else {
			err = p.serve(nil, getenv, stdout, stderr)
		}
	case "serve":
		err = p.serve(args, getenv, stdout, stderr)
	case "run":
		var code int
		code, err = p.runCmd(args, getenv, stdin, stdout, stderr)
		if err == nil {
			return code
		}
	case "runs", "agents":
		list := p.runsCmd
		if cmd == "agents" {
			list = p.agentsCmd
		}
		var code int
		code, err = list(args, getenv, stdout, stderr)
		if err == nil {
			return code
		}
	case "export":
		return p.exportCmd(args, getenv, stdout, stderr)
	case "mcp":
		err = p.mcpCmd(args, getenv, stdin, stdout, stderr)
	case "import":
		return p.importCmd(args, getenv, stdout, stderr)
	case "replay":
		return p.replayCmd(args, getenv, stdin, stdout, stderr)
	case "doctor":
		return p.doctorCmd(args, getenv, stdout, stderr)
	case "version", "--version":
		fmt.Fprintln(stdout, "steward", p.Version)
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
