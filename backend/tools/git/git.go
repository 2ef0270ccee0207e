// Package git holds the git tools offered to the model: git_status,
// git_diff and git_log, which read, and git_commit, which records a commit.
//
// They run the git command line with -C on the workspace, through
// shell.Exec: the same allowlisted environment as run_command, a process
// group stopped on cancel, capped output. When the workspace is a folder
// inside a larger repository, every command is limited to that folder with
// a pathspec, so the tools neither show nor commit anything outside it.
//
// Paths the model gives are checked with workspace.Resolve and passed after
// "--" with --literal-pathspecs, so that neither "../x" nor pathspec magic
// such as ":/x" reaches beyond the workspace.
//
// Git runs programs named by the repository's own configuration and hooks,
// and the agent can write files in the workspace, .git included. So the
// read tools must not become a way to run code that nobody approved: hooks
// are off for every command (core.hooksPath=/dev/null: a pre-commit hook the
// agent wrote would otherwise run on git_commit without an exec approval),
// and so are fsmonitor, external diff programs, textconv filters, pagers,
// editors, commit signing (a passphrase prompt would hang) and automatic
// gc (it would leave a process running). Clean and smudge filters of
// .gitattributes still run on add, as they must for the content to be
// right (Git LFS); they come from the repository's configuration, which a
// person approves like any other file the agent writes.
package git

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"steward/backend/tool"
	"steward/backend/tools/shell"
	"steward/backend/workspace"
)

// Tool names.
const (
	Status = "git_status"
	Diff   = "git_diff"
	Log    = "git_log"
	Commit = "git_commit"
)

// Codes of model-visible failures, besides tool.CodeInvalidArguments and
// tool.CodeCancelled.
const (
	CodeNotRepository   = "not_a_repository"
	CodeNothingToCommit = "nothing_to_commit"
	CodeGit             = "git_error" // git refused; its message is in the result
	CodeOutside         = "outside_workspace"
	CodeInvalidPath     = "invalid_path"
)

// Tools returns the git tools. They look git up in PATH on each call.
func Tools() []tool.Tool {
	return []tool.Tool{
		tool.Must(tool.New(Status, statusDescription, tool.RiskRead, adapt(status))),
		tool.Must(tool.New(Diff, diffDescription, tool.RiskRead, adapt(diff))),
		tool.Must(tool.New(Log, logDescription, tool.RiskRead, adapt(gitLog))),
		tool.Must(tool.New(Commit, commitDescription, tool.RiskWrite, adapt(commit))),
	}
}

// hardening is given to every git command; see the package comment.
var hardening = []string{
	"--no-pager", "--literal-pathspecs", "--no-optional-locks",
	"-c", "core.hooksPath=/dev/null",
	"-c", "core.fsmonitor=false",
	"-c", "core.pager=cat",
	"-c", "core.quotePath=false", // names as they are, not octal escapes
	"-c", "color.ui=false",
	"-c", "commit.gpgSign=false",
	"-c", "log.showSignature=false",
	"-c", "gc.auto=0",
	"-c", "maintenance.auto=false",
	"-c", "advice.statusHints=false",
}

// env is shell.Env with git's own settings: no system configuration (the
// person's global one, with their identity, still counts), no editor.
func env() []string {
	return append(shell.Env(), "GIT_CONFIG_NOSYSTEM=1", "GIT_EDITOR=:")
}

// failure is a model-visible failure on its way out of a tool body.
type failure struct{ code, msg string }

func (f *failure) Error() string { return f.msg }

func fail(code, format string, args ...any) error {
	return &failure{code: code, msg: fmt.Sprintf(format, args...)}
}

// adapt opens the repository of the call's workspace and runs body; a
// *failure becomes a model-visible result, any other error stays a Go
// error.
func adapt[A any](body func(ctx context.Context, r *repo, args A) (string, error)) func(context.Context, tool.Env, A) (tool.Result, error) {
	return func(ctx context.Context, env tool.Env, args A) (tool.Result, error) {
		r, err := open(ctx, env)
		out := ""
		if err == nil {
			out, err = body(ctx, r, args)
		}
		var f *failure
		switch {
		case errors.As(err, &f):
			return tool.Errorf(f.code, f.msg), nil
		case err != nil:
			return tool.Result{}, err
		}
		return tool.Result{Output: out}, nil
	}
}

// repo is the git repository of one call's workspace.
type repo struct {
	git string
	ws  *workspace.Root
	// prefix is the workspace's folder in the repository, "" when the
	// workspace is the repository's top level.
	prefix string
	top    string
}

// open finds the repository of env's workspace. The failure
// not_a_repository says when there is none.
func open(ctx context.Context, env tool.Env) (*repo, error) {
	ws, err := workspace.Open(env.Workspace)
	if err != nil {
		return nil, err
	}
	bin, err := exec.LookPath("git")
	if err != nil {
		return nil, fmt.Errorf("git tools: git is not installed: %w", err)
	}
	r := &repo{git: bin, ws: ws}
	o, err := r.run(ctx, "rev-parse", "--show-prefix", "--show-toplevel")
	if err != nil {
		return nil, err
	}
	// Two lines: the prefix (empty at the top level), then the top level.
	lines := strings.Split(strings.TrimSuffix(o.Output, "\n"), "\n")
	if o.ExitCode != 0 || len(lines) < 2 {
		return nil, fail(CodeNotRepository, "the workspace %s is not in a git repository, so the git tools cannot be used (git said: %s). Create one with run_command (git init) only if the user asked for it.",
			ws.Path(), strings.TrimSpace(o.Output))
	}
	r.prefix = strings.TrimSuffix(lines[len(lines)-2], "/")
	r.top = lines[len(lines)-1]
	return r, nil
}

// run runs git with the hardening options in the workspace. A cancelled
// call is a failure; the exit code is the caller's to judge.
func (r *repo) run(ctx context.Context, args ...string) (shell.Outcome, error) {
	return r.exec(ctx, shell.Command{}, args...)
}

// exec is run with the output caps of c.
func (r *repo) exec(ctx context.Context, c shell.Command, args ...string) (shell.Outcome, error) {
	c.Path, c.Dir, c.Env = r.git, r.ws.Path(), env()
	c.Args = append(append([]string{"-C", r.ws.Path()}, hardening...), args...)
	o, err := shell.Exec(ctx, c)
	switch {
	case err != nil:
		return o, fmt.Errorf("git %s: %w", subcommand(args), err)
	case o.Cancelled:
		return o, fail(tool.CodeCancelled, "git %s was cancelled", subcommand(args))
	case o.Signal != 0:
		return o, fmt.Errorf("git %s: ended by signal %s", subcommand(args), o.Signal)
	}
	return o, nil
}

// subcommand names the git command of args, past its -c options.
func subcommand(args []string) string {
	for i := 0; i < len(args); i++ {
		switch {
		case args[i] == "-c":
			i++
		case !strings.HasPrefix(args[i], "-"):
			return args[i]
		}
	}
	return "command"
}

// refused is the failure for a git command that exited non-zero.
func refused(o shell.Outcome, what string) error {
	return fail(CodeGit, "%s failed (exit code %d):\n%s", what, o.ExitCode, strings.TrimRight(o.Output, "\n"))
}

// scope returns the pathspecs that limit a command to the workspace, or to
// path within it; none for the whole repository.
func (r *repo) scope(p string) ([]string, error) {
	if p != "" {
		spec, err := r.pathspec(p)
		if err != nil {
			return nil, err
		}
		return []string{spec}, nil
	}
	if r.prefix != "" {
		return []string{"."}, nil
	}
	return nil, nil
}

// pathspec checks that p stays inside the workspace and returns it relative
// to the workspace root, for git. Symlinked directories on the way are
// resolved, as git will not look beyond a symlink; a final symlink stays
// itself, as git tracks the link and not its target.
func (r *repo) pathspec(p string) (string, error) {
	abs, err := r.ws.Resolve(p)
	switch {
	case errors.Is(err, workspace.ErrOutside):
		return "", &failure{code: CodeOutside, msg: err.Error()}
	case errors.Is(err, workspace.ErrInvalidPath):
		return "", &failure{code: CodeInvalidPath, msg: err.Error()}
	case err != nil:
		return "", fmt.Errorf("path %s: %w", p, err)
	}
	clean := filepath.Clean(p)
	base := filepath.Base(clean)
	if abs == r.ws.Path() || base == "." || base == ".." || base == string(filepath.Separator) {
		return r.ws.Rel(abs)
	}
	parent, err := r.ws.Resolve(filepath.Dir(clean))
	if err != nil {
		return "", fmt.Errorf("path %s: parent resolves differently: %w", p, err)
	}
	rel, err := r.ws.Rel(parent)
	if err != nil {
		return "", err
	}
	return path.Join(rel, base), nil
}

// where names the workspace's place in its repository, for outputs: empty
// at the top level.
func (r *repo) where() string {
	if r.prefix == "" {
		return ""
	}
	return fmt.Sprintf("(The workspace is the folder %s of the repository at %s; only its files are included.)\n", r.prefix, r.top)
}
