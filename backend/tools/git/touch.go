package git

import (
	"context"
	"fmt"
	"strings"

	"steward/backend/tool"
	"steward/backend/workspace"
)

// The touches of the git tools (tool.Toucher) are the workspace paths
// they read, as git will see them (pathspecIn): "." for the whole
// workspace. The writes of git_commit are to the repository, which is the
// tool's own business and hardened; it reads the files it commits.

func statusTouches(env tool.Env, _ statusArgs) []tool.Touch { return touchOf(env, ".") }

func diffTouches(env tool.Env, a diffArgs) []tool.Touch { return touchOf(env, orRoot(a.Path)) }

func logTouches(env tool.Env, a logArgs) []tool.Touch { return touchOf(env, orRoot(a.Path)) }

func commitTouches(env tool.Env, a commitArgs) []tool.Touch {
	if len(a.Paths) == 0 {
		return touchOf(env, ".")
	}
	var out []tool.Touch
	seen := map[string]bool{}
	for _, p := range a.Paths {
		for _, t := range touchOf(env, p) {
			if !seen[t.Path] {
				seen[t.Path] = true
				out = append(out, t)
			}
		}
	}
	return out
}

func orRoot(p string) string {
	if p == "" {
		return "."
	}
	return p
}

// touchOf is the read of p as git sees it; nothing when the tool would
// refuse p.
func touchOf(env tool.Env, p string) []tool.Touch {
	ws, err := workspace.Open(env.Workspace)
	if err != nil {
		return nil
	}
	spec, err := pathspecIn(ws, p)
	if err != nil {
		return nil
	}
	t := tool.Touch{Path: spec, Access: tool.AccessRead}
	if via, ok := ws.Spelled(p); ok && via != spec {
		t.Via = via
	}
	return []tool.Touch{t}
}

// withheld returns the exclusion pathspecs of the changed files within
// specs that the run may not read (r.hidden), for status, diff and commit
// to leave them out: those git status lists (untracked ones included), or
// with cached those staged. None when nothing is hidden.
func (r *repo) withheld(ctx context.Context, specs []string, cached bool) ([]string, error) {
	if r.hidden == nil {
		return nil, nil
	}
	args := []string{"status", "--porcelain=v1", "-z", "--no-renames", "--untracked-files=normal", "--ignore-submodules=dirty", "--"}
	if cached {
		args = []string{"diff", "--cached", "--name-only", "-z", "--no-renames", "--ignore-submodules=dirty", "--"}
	}
	o, err := r.run(ctx, append(args, pathspecs(specs, nil)...)...)
	if err != nil {
		return nil, err
	}
	if o.ExitCode != 0 {
		return nil, refused(o, "git "+args[0])
	}
	var out []string
	for _, e := range strings.Split(o.Output, "\x00") {
		if !cached {
			if len(e) < 4 {
				continue
			}
			e = e[3:] // "XY path"
		}
		// Both list paths from the top of the repository.
		name, ok := strings.CutPrefix(e, r.prefix+"/")
		if r.prefix == "" {
			name, ok = e, e != ""
		}
		if !ok {
			continue
		}
		if r.hidden(tool.Touch{Path: strings.TrimSuffix(name, "/"), Access: tool.AccessRead}) {
			out = append(out, ":(exclude,literal)"+name)
		}
	}
	return out, nil
}

// pathspecs returns the literal pathspecs of specs followed by the
// exclusions excl; an exclusion alone would mean nothing to git, so it
// gets the workspace (".") beside it.
func pathspecs(specs, excl []string) []string {
	if len(specs) == 0 && len(excl) > 0 {
		specs = []string{"."}
	}
	return append(literal(specs), excl...)
}

// withheldNote says how many files a git output left out by a rule; ""
// for none. It names none.
func withheldNote(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("(%s withheld by a rule)\n", plural(n, "file", "files"))
}

// suffix puts a note after a sentence: " (…)" without its newline.
func suffix(note string) string {
	if note == "" {
		return ""
	}
	return " " + strings.TrimSuffix(note, "\n")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
