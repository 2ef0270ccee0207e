package policy

import (
	"path"
	"strings"
	"unicode"
)

// autoRun lists the files whose content a program runs, or uses to choose
// a program to run, by itself: on the next git command, when a shell
// enters the folder, when an editor opens it. Writing one is not an edit
// but an exec that runs later, with nobody asked; so a file tool's write
// of one counts as risk exec (see RunsCode). Patterns are globs as rules
// have them, matched against the lower-cased path (see fold). What runs
// only when a person starts it (a Makefile, package.json scripts, a test)
// is not listed: starting it is their decision.
//
// docs/configuration.md lists these for users; keep the two in step.
var autoRun = []struct{ match, why string }{
	// A repository laid out at the workspace root, without .git: git takes
	// a folder with HEAD, objects/ and refs/ for a (bare) repository and
	// obeys its config, filters and hooks included. HEAD anywhere: the
	// same layout in a subfolder is a repository for a shell that enters it.
	{"**/head", "a repository's HEAD (git takes a folder with HEAD, objects/ and refs/ for a repository and runs what its config names)"},
	{"config", "a repository's config at the workspace root (with HEAD, objects/ and refs/ git obeys it, filters and fsmonitor included)"},
	{"packed-refs", "part of a repository laid out at the workspace root"},
	{"commondir", "part of a repository laid out at the workspace root"},
	{"objects/**", "part of a repository laid out at the workspace root"},
	{"refs/**", "part of a repository laid out at the workspace root"},
	{"**/.gitattributes", "git runs the filter and diff programs it names"},
	{"**/.gitmodules", "git acts on the submodules it names (their URLs and update commands)"},
	{"**/.envrc", "direnv runs it when a shell enters the folder"},
	{"**/.husky/**", "husky's git hooks run on commit"},
	{"**/.githooks/**", "git hooks (core.hooksPath) run on commit"},
	{"**/.pre-commit-config.yaml", "pre-commit runs the hooks it names on commit"},
	{"**/lefthook.yml", "lefthook runs the hooks it names on commit"},
	{"**/.lefthook.yml", "lefthook runs the hooks it names on commit"},
	{"**/.vscode/tasks.json", "VS Code runs its tasks, some as soon as the folder opens"},
	{"**/.vscode/settings.json", "VS Code runs the programs its settings name (terminal, linters, git)"},
	{"**/*.code-workspace", "VS Code runs the tasks and programs a workspace file names"},
	{"**/.mcp.json", "MCP clients start the servers it names"},
	{"**/.cursor/mcp.json", "Cursor starts the MCP servers it names"},
	{"**/.claude/settings.json", "Claude Code runs the hooks it names"},
	{"**/.claude/settings.local.json", "Claude Code runs the hooks it names"},
}

// gitWhy is why a path inside a .git folder, or a .git file, runs code.
const gitWhy = "git internals (a repository's config and hooks name programs git runs)"

// RunsCode reports whether a workspace path (relative, slash-separated) is
// a file whose content later runs by itself, and why: anything named .git
// or inside one (a folder, or a file pointing git elsewhere), or a file of
// the autoRun list. Names are compared as a case-insensitive file system
// sees them (see fold), so .GIT and .Git count too.
func RunsCode(p string) (why string, ok bool) {
	if InGitDir(p) {
		return gitWhy, true
	}
	f := fold(p)
	for _, a := range autoRun {
		if Glob(a.match, f) {
			return a.why, true
		}
	}
	return "", false
}

// InGitDir reports whether a workspace path is named .git or lies inside
// something so named, as a case-insensitive file system sees it: .GIT,
// ".git." and NTFS's short name GIT~1 included. The file tools never
// write there (a .git folder holds the config and hooks that git runs; a
// .git file points git at another repository).
func InGitDir(p string) bool {
	for _, c := range strings.Split(fold(p), "/") {
		if c == ".git" || c == "git~1" {
			return true
		}
	}
	return false
}

// fold returns p as a case-insensitive file system compares it: lower
// case, without the format characters HFS+ ignores (zero-width joiners),
// and without the trailing dots and spaces Windows drops, in each name.
func fold(p string) string {
	p = strings.Map(func(r rune) rune {
		if unicode.Is(unicode.Cf, r) {
			return -1
		}
		return unicode.ToLower(r)
	}, strings.ReplaceAll(p, `\`, "/"))
	comps := strings.Split(path.Clean(p), "/")
	for i, c := range comps {
		if t := strings.TrimRight(c, ". "); t != "" {
			comps[i] = t
		}
	}
	return strings.Join(comps, "/")
}
