//go:build unix

package git_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"steward/backend/tool"
	"steward/backend/tools/git"
)

// globalMarker is the file the global configuration's filter writes when
// it runs (see TestMain).
var globalMarker string

// TestMain gives git a home of its own, so that no developer's
// ~/.gitconfig (identity, hooks, aliases) changes what the tests see. Its
// ~/.gitconfig is a person's who has an identity and a filter for *.glob
// files, which writes globalMarker when it runs: the git tools read
// neither unless the person allows it (Options.UserConfig).
func TestMain(m *testing.M) {
	home, err := os.MkdirTemp("", "steward-git-test-home-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for k, v := range map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config")} {
		if err := os.Setenv(k, v); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	globalMarker = filepath.Join(home, "global-filter-ran")
	prog := filepath.Join(home, "global-filter")
	files := map[string]string{
		prog:                         "#!/bin/sh\necho ran >> " + globalMarker + "\ncat\n",
		filepath.Join(home, "attrs"): "*.glob filter=g\n",
		filepath.Join(home, ".gitconfig"): "[user]\n\tname = Global Person\n\temail = global@example.com\n" +
			"[core]\n\tattributesFile = " + filepath.Join(home, "attrs") + "\n[filter \"g\"]\n\tclean = " + prog + "\n",
	}
	for name, content := range files {
		if err := os.WriteFile(name, []byte(content), 0o755); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	goleak.VerifyTestMain(&cleanup{m, home})
}

type cleanup struct {
	m    *testing.M
	home string
}

func (c *cleanup) Run() int {
	defer os.RemoveAll(c.home)
	return c.m.Run()
}

// fixture is a registry holding the git tools, a workspace, and a directory
// next to it.
type fixture struct {
	reg     *tool.Registry
	env     tool.Env
	ws      string
	base    string
	outside string
}

// newFixture makes base/ws the workspace; it is a repository when repo is
// true, with one commit when commit is true.
func newFixture(t *testing.T, repo, commit bool) fixture {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := fixture{ws: filepath.Join(base, "ws"), base: base, outside: filepath.Join(base, "outside")}
	mkdir(t, f.ws)
	mkdir(t, f.outside)
	write(t, filepath.Join(f.outside, "secret.txt"), "outside\n")
	f.reg = tool.NewRegistry()
	for _, tl := range git.Tools(git.Options{}) {
		if err := f.reg.Register(tl); err != nil {
			t.Fatal(err)
		}
	}
	f.env = tool.Env{RunID: "run1", Workspace: f.ws}
	if repo {
		f.git(t, "init", "-q", "-b", "main")
		f.git(t, "config", "user.name", "Ada Person")
		f.git(t, "config", "user.email", "ada@example.com")
	}
	if commit {
		write(t, f.path("a.txt"), "one\n")
		f.git(t, "add", "a.txt")
		f.git(t, "commit", "-q", "-m", "First")
	}
	return f
}

// git runs git in the workspace for a test's set-up and checks.
func (f fixture) git(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", f.ws}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (f fixture) call(t *testing.T, name string, args any) tool.Result {
	t.Helper()
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	res, err := f.reg.Call(context.Background(), f.env, name, b)
	if err != nil {
		t.Fatalf("%s %s: Go error %v", name, b, err)
	}
	return res
}

// ok calls a tool that must succeed.
func (f fixture) ok(t *testing.T, name string, args any) string {
	t.Helper()
	res := f.call(t, name, args)
	if res.IsError {
		t.Fatalf("%s %v: %s: %s", name, args, res.Code, res.Output)
	}
	return res.Output
}

func (f fixture) path(rel string) string { return filepath.Join(f.ws, filepath.FromSlash(rel)) }

func mkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func write(t *testing.T, name, content string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func contains(t *testing.T, what, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, got)
		}
	}
}

func lacks(t *testing.T, what, got string, unwanted ...string) {
	t.Helper()
	for _, w := range unwanted {
		if strings.Contains(got, w) {
			t.Errorf("%s has %q:\n%s", what, w, got)
		}
	}
}

func TestHappyPath(t *testing.T) {
	t.Parallel()
	f := newFixture(t, true, true)
	write(t, f.path("a.txt"), "two\n")
	write(t, f.path("b.txt"), "new\n")

	st := f.ok(t, git.Status, map[string]any{})
	contains(t, "status", st, "On branch main", "modified:   a.txt", "Untracked files:", "b.txt")
	lacks(t, "status", st, "(use \"git add")

	d := f.ok(t, git.Diff, map[string]any{})
	contains(t, "diff", d, "a.txt | 2 +-", "1 file changed", "--- a/a.txt", "+++ b/a.txt", "-one\n+two\n")
	contains(t, "staged diff", f.ok(t, git.Diff, map[string]any{"staged": true}), "No staged changes in the workspace.")

	c := f.ok(t, git.Commit, map[string]any{"message": "Change a, add b\n\nBoth files."})
	contains(t, "commit", c, "[main ", "Change a, add b", "2 files changed", "create mode 100644 b.txt")
	lacks(t, "commit", c, "Steward agent")

	log := f.ok(t, git.Log, map[string]any{})
	lines := strings.Split(strings.TrimSuffix(log, "\n"), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "(HEAD -> main)") || !strings.HasSuffix(lines[0], "Ada Person: Change a, add b") ||
		!strings.HasSuffix(lines[1], "Ada Person: First") {
		t.Errorf("log:\n%s", log)
	}
	if got := f.ok(t, git.Log, map[string]any{"max_count": 1, "path": "b.txt"}); strings.Count(got, "\n") != 1 || !strings.Contains(got, "Change a") {
		t.Errorf("log of b.txt:\n%s", got)
	}
	if got := f.git(t, "log", "-1", "--format=%B"); got != "Change a, add b\n\nBoth files.\n\n" {
		t.Errorf("message %q", got)
	}
	contains(t, "status after commit", f.ok(t, git.Status, map[string]any{}), "nothing to commit, working tree clean")
	contains(t, "diff after commit", f.ok(t, git.Diff, map[string]any{"path": "a.txt"}), "No unstaged changes in a.txt.")
}

func TestCommitPaths(t *testing.T) {
	t.Parallel()
	f := newFixture(t, true, true)
	write(t, f.path("a.txt"), "two\n")
	write(t, f.path("b.txt"), "bee\n")
	mkdir(t, f.path("dir"))
	write(t, f.path("dir/c.txt"), "sea\n")
	write(t, f.path("staged.txt"), "by a person\n")
	f.git(t, "add", "staged.txt")

	c := f.ok(t, git.Commit, map[string]any{"message": "Only a and dir", "paths": []string{"a.txt", "dir"}})
	contains(t, "commit", c, "2 files changed")
	if got := f.git(t, "show", "--name-status", "--format=", "HEAD"); got != "M\ta.txt\nA\tdir/c.txt\n" {
		t.Errorf("committed:\n%s", got)
	}
	// The person's staged file stays staged, b.txt untouched.
	if got := f.git(t, "status", "--porcelain"); got != "A  staged.txt\n?? b.txt\n" {
		t.Errorf("left:\n%s", got)
	}
}

func TestCommitDeletion(t *testing.T) {
	t.Parallel()
	f := newFixture(t, true, true)
	if err := os.Remove(f.path("a.txt")); err != nil {
		t.Fatal(err)
	}
	f.ok(t, git.Commit, map[string]any{"message": "Remove a", "paths": []string{"a.txt"}})
	if got := f.git(t, "show", "--name-status", "--format=", "HEAD"); got != "D\ta.txt\n" {
		t.Errorf("committed:\n%s", got)
	}
}

func TestNothingToCommit(t *testing.T) {
	t.Parallel()
	f := newFixture(t, true, true)
	for _, args := range []map[string]any{
		{"message": "Nothing"},
		{"message": "Nothing", "paths": []string{"a.txt"}},
	} {
		if res := f.call(t, git.Commit, args); res.Code != git.CodeNothingToCommit {
			t.Errorf("%v: %s: %s", args, res.Code, res.Output)
		}
	}
}

func TestInvalidArguments(t *testing.T) {
	t.Parallel()
	f := newFixture(t, true, true)
	for _, c := range []struct {
		name string
		args map[string]any
	}{
		{git.Commit, map[string]any{"message": " \n"}},
		{git.Commit, map[string]any{"message": "a\x00b"}},
		{git.Commit, map[string]any{}},
		{git.Log, map[string]any{"max_count": 201}},
		{git.Log, map[string]any{"max_count": -1}},
		{git.Status, map[string]any{"path": "a.txt"}},
	} {
		if res := f.call(t, c.name, c.args); res.Code != tool.CodeInvalidArguments {
			t.Errorf("%s %v: %s: %s", c.name, c.args, res.Code, res.Output)
		}
	}
}

func TestNotARepository(t *testing.T) {
	t.Parallel()
	f := newFixture(t, false, false)
	for _, c := range []struct {
		name string
		args map[string]any
	}{
		{git.Status, map[string]any{}},
		{git.Diff, map[string]any{}},
		{git.Log, map[string]any{}},
		{git.Commit, map[string]any{"message": "x"}},
	} {
		res := f.call(t, c.name, c.args)
		if res.Code != git.CodeNotRepository || !strings.Contains(res.Output, "is not in a git repository") {
			t.Errorf("%s: %s: %s", c.name, res.Code, res.Output)
		}
	}
}

func TestEmptyRepository(t *testing.T) {
	t.Parallel()
	f := newFixture(t, true, false)
	if got := f.ok(t, git.Log, map[string]any{}); got != "The repository has no commits yet." {
		t.Errorf("log: %q", got)
	}
	write(t, f.path("first.txt"), "1\n")
	contains(t, "first commit", f.ok(t, git.Commit, map[string]any{"message": "First"}), "(root-commit)", "first.txt")
}

func TestPathsStayInside(t *testing.T) {
	t.Parallel()
	f := newFixture(t, true, true)
	for name, target := range map[string]string{"out": f.outside, "up": "..", "outfile": filepath.Join(f.outside, "secret.txt")} {
		if err := os.Symlink(target, f.path(name)); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"..", "../outside", "../outside/secret.txt", "sub/../../outside", f.outside, "/etc/passwd",
		"out", "out/secret.txt", "up/outside", "outfile"} {
		for _, c := range []struct {
			name string
			args map[string]any
		}{
			{git.Diff, map[string]any{"path": p}},
			{git.Log, map[string]any{"path": p}},
			{git.Commit, map[string]any{"message": "x", "paths": []string{"a.txt", p}}},
		} {
			if res := f.call(t, c.name, c.args); res.Code != git.CodeOutside {
				t.Errorf("%s %q: %s: %s", c.name, p, res.Code, res.Output)
			}
		}
	}
	if res := f.call(t, git.Diff, map[string]any{"path": "a\nb"}); res.Code != git.CodeInvalidPath {
		t.Errorf("newline: %s: %s", res.Code, res.Output)
	}
	if got := f.git(t, "rev-list", "--count", "HEAD"); got != "1\n" {
		t.Errorf("%s commits, want 1", got)
	}
}

func TestSymlinkedDirectory(t *testing.T) {
	t.Parallel()
	f := newFixture(t, true, true)
	mkdir(t, f.path("sub"))
	write(t, f.path("sub/f.txt"), "x\n")
	if err := os.Symlink("sub", f.path("link")); err != nil {
		t.Fatal(err)
	}
	f.ok(t, git.Commit, map[string]any{"message": "Add sub and link"})
	write(t, f.path("sub/f.txt"), "y\n")
	contains(t, "diff through the link", f.ok(t, git.Diff, map[string]any{"path": "link/f.txt"}), "+++ b/sub/f.txt", "+y")
	// The link itself is what git tracks under its own name.
	if got := f.ok(t, git.Log, map[string]any{"path": "link"}); !strings.Contains(got, "Add sub and link") {
		t.Errorf("log of the link: %s", got)
	}
}

// TestWorkspaceInsideRepository makes base the repository and base/ws the
// workspace: nothing outside ws may be shown or committed.
func TestWorkspaceInsideRepository(t *testing.T) {
	t.Parallel()
	f := newFixture(t, false, false)
	top := fixture{ws: f.base}
	top.git(t, "init", "-q", "-b", "main")
	top.git(t, "config", "user.name", "Ada Person")
	top.git(t, "config", "user.email", "ada@example.com")
	write(t, f.path("in.txt"), "in\n")
	top.git(t, "add", ".")
	top.git(t, "commit", "-q", "-m", "Both")
	write(t, f.path("in.txt"), "in 2\n")
	write(t, filepath.Join(f.outside, "secret.txt"), "changed outside\n")
	write(t, filepath.Join(f.base, "top.txt"), "new at the top\n")

	st := f.ok(t, git.Status, map[string]any{})
	contains(t, "status", st, "The workspace is the folder ws of the repository at "+f.base, "in.txt")
	lacks(t, "status", st, "secret", "top.txt")
	d := f.ok(t, git.Diff, map[string]any{})
	contains(t, "diff", d, "+++ b/in.txt")
	lacks(t, "diff", d, "secret", "outside")
	// Pathspec magic is taken literally: ":/" does not reach the top.
	lacks(t, "magic diff", f.ok(t, git.Diff, map[string]any{"path": ":/outside/secret.txt"}), "changed outside")

	f.ok(t, git.Commit, map[string]any{"message": "Only the workspace"})
	if got := top.git(t, "show", "--name-only", "--format=", "HEAD"); got != "ws/in.txt\n" {
		t.Errorf("committed:\n%s", got)
	}
	if got := top.git(t, "status", "--porcelain"); got != " M outside/secret.txt\n?? top.txt\n" {
		t.Errorf("left:\n%s", got)
	}
}

func TestHooksAndProgramsDoNotRun(t *testing.T) {
	t.Parallel()
	f := newFixture(t, true, true)
	marker := filepath.Join(f.base, "ran")
	script := fmt.Sprintf("#!/bin/sh\necho \"$0\" >> %s\n", marker)
	for _, name := range []string{".git/hooks/pre-commit", ".git/hooks/commit-msg", ".git/hooks/post-commit",
		".git/hooks/post-index-change", "myhooks/pre-commit", "tools/fsmonitor", "tools/extdiff", "tools/pager"} {
		mkdir(t, filepath.Dir(f.path(name)))
		if err := os.WriteFile(f.path(name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	f.git(t, "config", "core.fsmonitor", f.path("tools/fsmonitor"))
	f.git(t, "config", "diff.external", f.path("tools/extdiff"))
	f.git(t, "config", "core.pager", f.path("tools/pager"))
	f.git(t, "config", "commit.gpgSign", "true")
	f.git(t, "config", "gpg.program", f.path("tools/pager"))

	write(t, f.path("a.txt"), "two\n")
	f.ok(t, git.Status, map[string]any{})
	contains(t, "diff", f.ok(t, git.Diff, map[string]any{}), "+two")
	f.ok(t, git.Commit, map[string]any{"message": "With hooks around"})
	f.git(t, "config", "core.hooksPath", "myhooks")
	write(t, f.path("a.txt"), "three\n")
	f.ok(t, git.Commit, map[string]any{"message": "With a hooks path"})
	f.ok(t, git.Log, map[string]any{})
	if b, err := os.ReadFile(marker); err == nil {
		t.Errorf("programs of the repository ran:\n%s", b)
	}
	// The control: git on its own runs them.
	write(t, f.path("a.txt"), "four\n")
	f.git(t, "-c", "commit.gpgSign=false", "commit", "-q", "-am", "By hand")
	if b, err := os.ReadFile(marker); err != nil || !strings.Contains(string(b), "myhooks/pre-commit") {
		t.Errorf("the hook did not run even for git itself: %v %s", err, b)
	}
}

func TestNoIdentityConfigured(t *testing.T) {
	t.Parallel()
	f := newFixture(t, true, false)
	f.git(t, "config", "--unset", "user.name")
	f.git(t, "config", "--unset", "user.email")
	write(t, f.path("a.txt"), "one\n")
	c := f.ok(t, git.Commit, map[string]any{"message": "By the agent"})
	contains(t, "commit", c, "No git identity is configured: committed as Steward agent <steward@localhost>.")
	if got := f.git(t, "log", "-1", "--format=%an <%ae>|%cn <%ce>"); got != "Steward agent <steward@localhost>|Steward agent <steward@localhost>\n" {
		t.Errorf("identity %q", got)
	}

	// Half an identity: the configured half stays.
	f.git(t, "config", "user.name", "Ada Person")
	write(t, f.path("a.txt"), "two\n")
	f.ok(t, git.Commit, map[string]any{"message": "Half"})
	if got := f.git(t, "log", "-1", "--format=%an <%ae>"); got != "Ada Person <steward@localhost>\n" {
		t.Errorf("identity %q", got)
	}
}
