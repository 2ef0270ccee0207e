package git

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"steward/backend/tool"
	"steward/backend/tools/shell"
)

// Limits of git_log.
const (
	defaultLogCount = 20
	maxLogCount     = 200
)

// diffCaps keeps more of a diff's start than run_command keeps of an output:
// it holds the per-file summary and the first files whole.
var diffCaps = shell.Command{HeadBytes: 48 << 10, TailBytes: 16 << 10}

// Identity of commits in a repository with no user.name or user.email.
const (
	agentName  = "Steward agent"
	agentEmail = "steward@localhost"
)

const statusDescription = `Show the state of the workspace's git repository: the current branch and how it stands against its upstream, staged changes, unstaged changes and untracked files (ignored files are not listed). Check it before git_commit: git_commit without paths commits everything listed here. When the workspace is a folder inside a larger repository, only that folder's files are listed.`

const diffDescription = `Show changes in the workspace's git repository as a unified diff, after a per-file summary of lines added and removed.
By default the unstaged changes: the files as they are now against the staging area. With staged true, the staged changes: the staging area against the last commit. path limits the diff to one file or directory, relative to the workspace root. Files that were never added to git do not appear (git_status lists them). A long diff keeps its start and end and says how much was cut; narrow it with path.`

const logDescription = `List the commits of the workspace's git repository, newest first, one line each: short hash, branch and tag names, date, author and subject. max_count (default 20, at most 200) bounds the list; path (a file or directory relative to the workspace root) keeps only the commits that changed it. To see what one commit changed, run git show <hash> with run_command.`

const commitDescription = `Record a commit in the workspace's git repository. Changes are staged first with git add -A, which includes new and deleted files: of the given paths, or of the whole workspace when paths is omitted. So look at git_status (and git_diff) first, give paths when only some changes belong in this commit, and never commit secrets, build output or large generated files. With paths, only those paths are committed; changes staged elsewhere stay staged and out of the commit.
The message is used as written: a short summary line, then a blank line and details if needed.
Hooks (pre-commit, commit-msg, ...) are not run and the commit is not signed: hooks are programs in the repository, which the agent could have written. The author is the repository's configured user, or "Steward agent <steward@localhost>" when none is configured. git_commit never amends, pushes or switches branches.`

type statusArgs struct{}

func status(ctx context.Context, r *repo, _ statusArgs) (string, error) {
	specs, err := r.scope("")
	if err != nil {
		return "", err
	}
	excl, err := r.withheld(ctx, specs, false)
	if err != nil {
		return "", err
	}
	o, err := r.run(ctx, append([]string{"status", "--branch", "--untracked-files=normal", "--ignore-submodules=dirty", "--"}, pathspecs(specs, excl)...)...)
	if err != nil {
		return "", err
	}
	if o.ExitCode != 0 {
		return "", refused(o, "git status")
	}
	return r.where() + o.Output + withheldNote(len(excl)), nil
}

type diffArgs struct {
	Path   string `json:"path,omitempty" jsonschema:"file or directory to limit the diff to, relative to the workspace root; omit for every change"`
	Staged bool   `json:"staged,omitempty" jsonschema:"true for the staged changes (staging area against the last commit); omit for the unstaged changes (files against the staging area)"`
}

func diff(ctx context.Context, r *repo, a diffArgs) (string, error) {
	specs, err := r.scope(a.Path)
	if err != nil {
		return "", err
	}
	excl, err := r.withheld(ctx, specs, a.Staged)
	if err != nil {
		return "", err
	}
	args := []string{"diff", "--no-ext-diff", "--no-textconv", "--no-color", "--relative", "--ignore-submodules=dirty", "--submodule=short", "--stat", "--patch"}
	if a.Staged {
		args = append(args, "--cached")
	}
	o, err := r.exec(ctx, diffCaps, append(append(args, "--"), pathspecs(specs, excl)...)...)
	if err != nil {
		return "", err
	}
	if o.ExitCode != 0 {
		return "", refused(o, "git diff")
	}
	note := withheldNote(len(excl))
	if o.Output != "" {
		return r.where() + o.Output + note, nil
	}
	in := "in the workspace"
	if a.Path != "" {
		in = "in " + specs[0]
	}
	if a.Staged {
		return fmt.Sprintf("No staged changes %s.%s", in, suffix(note)), nil
	}
	return fmt.Sprintf("No unstaged changes %s. Staged changes show with staged true; files never added to git are listed by git_status.%s", in, suffix(note)), nil
}

type logArgs struct {
	MaxCount int    `json:"max_count,omitempty" jsonschema:"how many commits to list, newest first; default 20, at most 200"`
	Path     string `json:"path,omitempty" jsonschema:"file or directory relative to the workspace root: list only the commits that changed it"`
}

func gitLog(ctx context.Context, r *repo, a logArgs) (string, error) {
	if a.MaxCount < 0 || a.MaxCount > maxLogCount {
		return "", fail(tool.CodeInvalidArguments, "max_count is %d; give 1 to %d, or omit it for %d", a.MaxCount, maxLogCount, defaultLogCount)
	}
	n := a.MaxCount
	if n == 0 {
		n = defaultLogCount
	}
	specs, err := r.scope(a.Path)
	if err != nil {
		return "", err
	}
	args := []string{"log", "--max-count=" + strconv.Itoa(n), "--no-color",
		"--date=format:%Y-%m-%d %H:%M", "--format=%h%d %ad %an: %s", "--"}
	o, err := r.run(ctx, append(args, literal(specs)...)...)
	if err != nil {
		return "", err
	}
	if o.ExitCode != 0 {
		head, err := r.run(ctx, "rev-parse", "--verify", "--quiet", "HEAD")
		if err != nil {
			return "", err
		}
		if head.ExitCode != 0 {
			return "The repository has no commits yet.", nil
		}
		return "", refused(o, "git log")
	}
	if o.Output == "" && len(specs) > 0 {
		return fmt.Sprintf("No commits changed %s.", specs[0]), nil
	}
	return r.where() + o.Output, nil
}

type commitArgs struct {
	Message string   `json:"message" jsonschema:"the commit message: a short summary line, then a blank line and details if needed"`
	Paths   []string `json:"paths,omitempty" jsonschema:"files or directories relative to the workspace root to stage and commit; omit to commit every change in the workspace"`
}

func commit(ctx context.Context, r *repo, a commitArgs) (string, error) {
	switch {
	case strings.TrimSpace(a.Message) == "":
		return "", fail(tool.CodeInvalidArguments, "message is empty; say what the commit changes")
	case strings.IndexByte(a.Message, 0) >= 0:
		return "", fail(tool.CodeInvalidArguments, "message contains a NUL byte")
	}
	specs := []string{"."}
	if len(a.Paths) > 0 {
		specs = specs[:0]
		for _, p := range a.Paths {
			s, err := r.pathspec(p)
			if err != nil {
				return "", err
			}
			specs = append(specs, s)
		}
	}
	excl, err := r.withheld(ctx, specs, false)
	if err != nil {
		return "", err
	}
	ident, note, err := r.identity(ctx)
	if err != nil {
		return "", err
	}
	msg, err := messageFile(a.Message)
	if err != nil {
		return "", err
	}
	defer func() { _ = os.Remove(msg) }() // a leftover temporary file harms nobody

	o, err := r.run(ctx, append([]string{"add", "-A", "--"}, pathspecs(specs, excl)...)...)
	if err != nil {
		return "", err
	}
	if o.ExitCode != 0 {
		return "", refused(o, "git add")
	}
	args := append(ident, "commit", "--no-verify", "-F", msg)
	if len(a.Paths) > 0 || r.prefix != "" || len(excl) > 0 {
		// Only these paths, whatever else is staged. Without paths at the
		// top level everything is staged already, and a plain commit also
		// concludes a merge, which a commit of paths may not. A file the
		// run may not read is never committed by it, staged or not.
		args = append(append(args, "--"), pathspecs(specs, excl)...)
	}
	o, err = r.run(ctx, args...)
	if err != nil {
		return "", err
	}
	if o.ExitCode != 0 {
		staged, err := r.run(ctx, append([]string{"diff", "--cached", "--quiet", "--"}, pathspecs(specs, excl)...)...)
		if err != nil {
			return "", err
		}
		if staged.ExitCode == 0 {
			what := "the workspace has"
			if len(a.Paths) > 0 {
				what = strings.Join(specs, ", ") + " have"
			}
			return "", fail(CodeNothingToCommit, "nothing to commit: %s no changes against the last commit (git_status shows the state of the repository)%s", what, suffix(withheldNote(len(excl))))
		}
		return "", refused(o, "git commit")
	}
	if len(excl) > 0 {
		note += fmt.Sprintf("(%s that this run may not read by a rule were left out of the commit.)\n", plural(len(excl), "changed file", "changed files"))
	}
	return r.where() + o.Output + note, nil
}

// identity returns -c options that give the commit an author when the
// repository's configuration names none, and a note saying so.
func (r *repo) identity(ctx context.Context) ([]string, string, error) {
	o, err := r.run(ctx, "config", "--get-regexp", `^user\.(name|email)$`)
	if err != nil {
		return nil, "", err
	}
	if o.ExitCode > 1 { // 1: none set
		return nil, "", refused(o, "git config")
	}
	have := map[string]bool{}
	for _, line := range strings.Split(o.Output, "\n") {
		k, v, _ := strings.Cut(line, " ")
		have[k] = strings.TrimSpace(v) != ""
	}
	var flags []string
	if !have["user.name"] {
		flags = append(flags, "-c", "user.name="+agentName)
	}
	if !have["user.email"] {
		flags = append(flags, "-c", "user.email="+agentEmail)
	}
	if flags == nil {
		return nil, "", nil
	}
	return flags, fmt.Sprintf("(No git identity is configured: committed as %s <%s>.)\n", agentName, agentEmail), nil
}

// messageFile writes the commit message to a temporary file for git -F: an
// argument would be limited in size and visible in the process list. The
// caller removes it.
func messageFile(msg string) (string, error) {
	f, err := os.CreateTemp("", "steward-commit-*.txt")
	if err != nil {
		return "", fmt.Errorf("commit message: %w", err)
	}
	_, werr := f.WriteString(msg)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(f.Name()) // the write failed; the file is of no use
		return "", fmt.Errorf("commit message: %w", err)
	}
	return f.Name(), nil
}
