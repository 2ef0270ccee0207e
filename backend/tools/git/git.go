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
// "--" as :(literal) pathspecs, so that neither "../x" nor pathspec magic
// such as ":/x" reaches beyond the workspace.
//
// Git runs programs that a repository names: hooks, filters, diff drivers,
// fsmonitor, pagers, credential helpers, transports. The agent can write
// the workspace, and a repository may come from anyone; so the tools run
// git with a configuration that ignores every such program (see hardening
// and neutralise), and take a folder for a repository only when it is a
// .git (safe.bareRepository=explicit: a HEAD, config, objects/ and refs/
// written at the workspace root are files, not a repository). The
// person's own configuration (~/.gitconfig) is not read either unless
// Options.UserConfig allows it; its programs are neutralised all the
// same. docs/configuration.md lists what is neutralised.
//
// Each tool tells the permission policy the paths it reads (a
// tool.Toucher), and git_status, git_diff and git_commit leave out the
// files the run may not read (tool.Env.Withheld), with a count.
package git

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
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

// Options configure the git tools.
type Options struct {
	// UserConfig lets git read the person's own configuration (HOME's
	// .gitconfig and XDG config: their identity, aliases, ignore file).
	// Off, git runs with an empty HOME of its own. Programs it names are
	// neutralised either way.
	UserConfig bool
}

// Tools returns the git tools. They look git up in PATH on each call.
func Tools(o Options) []tool.Tool {
	return []tool.Tool{
		tool.WithTouches(tool.Must(tool.New(Status, statusDescription, tool.RiskRead, adapt(o, status))), statusTouches),
		tool.WithTouches(tool.Must(tool.New(Diff, diffDescription, tool.RiskRead, adapt(o, diff))), diffTouches),
		tool.WithTouches(tool.Must(tool.New(Log, logDescription, tool.RiskRead, adapt(o, gitLog))), logTouches),
		tool.WithTouches(tool.Must(tool.New(Commit, commitDescription, tool.RiskWrite, adapt(o, commit))), commitTouches),
	}
}

// hardening is given to every git command: what git would otherwise run,
// page or sign on a repository's say, and how it reads names. Pathspecs
// are made literal one by one (literal), so that exclusions can be added.
var hardening = []string{
	"--no-pager", "--no-optional-locks",
	"-c", "core.hooksPath=/dev/null", // no hooks: pre-commit, post-commit, post-index-change, ...
	"-c", "core.fsmonitor=false",
	"-c", "core.pager=cat",
	"-c", "core.askPass=",
	"-c", "core.sshCommand=false",
	"-c", "credential.helper=", // empty resets the list of helpers
	"-c", "protocol.allow=never", // no transport: ext::, ssh, http(s), file
	"-c", "safe.bareRepository=explicit",
	"-c", "submodule.recurse=false",
	"-c", "diff.ignoreSubmodules=dirty", // a submodule is another repository with a config of its own
	"-c", "status.submoduleSummary=false",
	"-c", "core.quotePath=false", // names as they are, not octal escapes
	"-c", "color.ui=false",
	"-c", "commit.gpgSign=false",
	"-c", "tag.gpgSign=false",
	"-c", "log.showSignature=false",
	"-c", "gc.auto=0",
	"-c", "maintenance.auto=false",
	"-c", "advice.statusHints=false",
}

// environ is shell.Env with git's own settings: no system configuration or
// attributes, no editor, and unless the person allows it, a HOME of its own
// (home, empty) and no global configuration.
func environ(home string) []string {
	out := []string{"GIT_CONFIG_NOSYSTEM=1", "GIT_ATTR_NOSYSTEM=1", "GIT_EDITOR=:"}
	for _, kv := range shell.Env() {
		k, _, _ := strings.Cut(kv, "=")
		if home != "" && (k == "HOME" || k == "XDG_CONFIG_HOME") {
			continue
		}
		out = append(out, kv)
	}
	if home != "" {
		out = append(out, "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "GIT_CONFIG_GLOBAL=/dev/null")
	}
	return out
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
func adapt[A any](opts Options, body func(ctx context.Context, r *repo, args A) (string, error)) func(context.Context, tool.Env, A) (tool.Result, error) {
	return func(ctx context.Context, env tool.Env, args A) (tool.Result, error) {
		r, err := open(ctx, env, opts)
		out := ""
		if err == nil {
			out, err = body(ctx, r, args)
			r.close()
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
	// home is the empty HOME git runs with, removed by close; "" when
	// the person's own is used.
	home string
	env  []string
	// hidden says what the run may not read (tool.Env.Withheld); nil
	// hides nothing.
	hidden func(tool.Touch) bool
}

// open finds the repository of env's workspace. The failure
// not_a_repository says when there is none. The caller closes it.
func open(ctx context.Context, env tool.Env, opts Options) (*repo, error) {
	ws, err := workspace.Open(env.Workspace)
	if err != nil {
		return nil, err
	}
	bin, err := exec.LookPath("git")
	if err != nil {
		return nil, fmt.Errorf("git tools: git is not installed: %w", err)
	}
	r := &repo{git: bin, ws: ws, hidden: env.Withheld}
	if !opts.UserConfig {
		if r.home, err = os.MkdirTemp("", "steward-git-home-"); err != nil {
			return nil, fmt.Errorf("git tools: home: %w", err)
		}
	}
	r.env = environ(r.home)
	if err := r.find(ctx); err != nil {
		r.close()
		return nil, err
	}
	if err := r.neutralise(ctx); err != nil {
		r.close()
		return nil, err
	}
	return r, nil
}

// close removes what open made.
func (r *repo) close() {
	if r.home != "" {
		_ = os.RemoveAll(r.home) // an empty directory in TMPDIR harms nobody
	}
}

// find sets the repository's top level and the workspace's prefix in it.
func (r *repo) find(ctx context.Context) error {
	o, err := r.run(ctx, "rev-parse", "--show-prefix", "--show-toplevel")
	if err != nil {
		return err
	}
	// Two lines: the prefix (empty at the top level), then the top level.
	lines := strings.Split(strings.TrimSuffix(o.Output, "\n"), "\n")
	if o.ExitCode != 0 || len(lines) < 2 {
		return fail(CodeNotRepository, "the workspace %s is not in a git repository, so the git tools cannot be used (git said: %s). Create one with run_command (git init) only if the user asked for it.",
			r.ws.Path(), strings.TrimSpace(o.Output))
	}
	r.prefix = strings.TrimSuffix(lines[len(lines)-2], "/")
	r.top = lines[len(lines)-1]
	// core.worktree can name any folder: the tools work only on one that
	// holds the workspace, limited to the workspace by pathspecs.
	if rel, err := filepath.Rel(r.top, r.ws.Path()); err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return fail(CodeNotRepository, "the git repository of the workspace %s has its work tree at %s, which does not hold the workspace; the git tools work on the workspace only",
			r.ws.Path(), r.top)
	}
	return nil
}

// neutralise adds to r.env an override of every program the effective
// configuration names per driver or protocol, whose names only the
// configuration knows: a clean, smudge or process filter (empty: none
// runs; not required, so that a missing filter is no error) and a
// protocol allowed by name. They go in GIT_CONFIG_COUNT variables, which
// take a name as it is (a -c option would split one holding "="), rank
// with -c above every file, and reach the git commands git starts.
func (r *repo) neutralise(ctx context.Context) error {
	o, err := r.run(ctx, "config", "--null", "--name-only", "--get-regexp", `^(filter|protocol)\.`)
	if err != nil {
		return err
	}
	if o.ExitCode > 1 { // 1: none set
		return refused(o, "git config")
	}
	var kv [][2]string
	seen := map[string]bool{}
	for _, name := range strings.Split(o.Output, "\x00") {
		section, rest, _ := strings.Cut(name, ".")
		i := strings.LastIndexByte(rest, '.')
		if i < 0 {
			continue // filter.x without a variable: nothing to run
		}
		sub := rest[:i]
		if seen[section+"."+sub] {
			continue
		}
		seen[section+"."+sub] = true
		switch section {
		case "filter":
			for _, v := range []string{"clean", "smudge", "process"} {
				kv = append(kv, [2]string{"filter." + sub + "." + v, ""})
			}
			kv = append(kv, [2]string{"filter." + sub + ".required", "false"})
		case "protocol":
			kv = append(kv, [2]string{"protocol." + sub + ".allow", "never"})
		}
	}
	r.env = append(r.env, "GIT_CONFIG_COUNT="+strconv.Itoa(len(kv)))
	for i, p := range kv {
		r.env = append(r.env, fmt.Sprintf("GIT_CONFIG_KEY_%d=%s", i, p[0]), fmt.Sprintf("GIT_CONFIG_VALUE_%d=%s", i, p[1]))
	}
	return nil
}

// run runs git with the hardening options in the workspace. A cancelled
// call is a failure; the exit code is the caller's to judge.
func (r *repo) run(ctx context.Context, args ...string) (shell.Outcome, error) {
	return r.exec(ctx, shell.Command{}, args...)
}

// exec is run with the output caps of c.
func (r *repo) exec(ctx context.Context, c shell.Command, args ...string) (shell.Outcome, error) {
	c.Path, c.Dir, c.Env = r.git, r.ws.Path(), r.env
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

// pathspec is pathspecIn for r's workspace.
func (r *repo) pathspec(p string) (string, error) { return pathspecIn(r.ws, p) }

// pathspecIn checks that p stays inside the workspace and returns it
// relative to the workspace root, for git. Symlinked directories on the way
// are resolved, as git will not look beyond a symlink; a final symlink
// stays itself, as git tracks the link and not its target.
func pathspecIn(ws *workspace.Root, p string) (string, error) {
	abs, err := ws.Resolve(p)
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
	if abs == ws.Path() || base == "." || base == ".." || base == string(filepath.Separator) {
		return ws.Rel(abs)
	}
	parent, err := ws.Resolve(filepath.Dir(clean))
	if err != nil {
		return "", fmt.Errorf("path %s: parent resolves differently: %w", p, err)
	}
	rel, err := ws.Rel(parent)
	if err != nil {
		return "", err
	}
	return path.Join(rel, base), nil
}

// literal makes each of the workspace-relative paths specs a literal
// pathspec: no glob, no magic such as ":/x".
func literal(specs []string) []string {
	out := make([]string, len(specs))
	for i, s := range specs {
		out[i] = ":(literal)" + s
	}
	return out
}

// where names the workspace's place in its repository, for outputs: empty
// at the top level.
func (r *repo) where() string {
	if r.prefix == "" {
		return ""
	}
	return fmt.Sprintf("(The workspace is the folder %s of the repository at %s; only its files are included.)\n", r.prefix, r.top)
}
