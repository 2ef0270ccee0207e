//go:build unix

package git_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"steward/backend/policy"
	"steward/backend/tool"
	"steward/backend/tools/git"
)

// program writes an executable script at path that appends its name to
// marker when it runs, and passes its input through (a filter that runs
// leaves the content as it is). It returns the path.
func program(t *testing.T, path, marker string) string {
	t.Helper()
	mkdir(t, filepath.Dir(path))
	script := fmt.Sprintf("#!/bin/sh\necho \"$0 $*\" >> %s\ncat\n", marker)
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// notRun fails the test when marker exists: a program of the repository ran.
func notRun(t *testing.T, marker string) {
	t.Helper()
	if b, err := os.ReadFile(marker); err == nil {
		t.Errorf("a program the repository names ran:\n%s", b)
	}
}

// TestRepositoryProgramsDoNotRun pins each way a repository's
// configuration or attributes can make git run a program: each case
// configures one in a real repository, changes a file so that the tools
// have something to show and commit, runs every git tool, and checks that
// the program did not run (its marker file is absent). A control at the
// end shows that git on its own runs it.
func TestRepositoryProgramsDoNotRun(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// setup configures the program p in the repository of f.
		setup func(t *testing.T, f fixture, p string)
		// control runs it with plain git, to show the case is real.
		control []string
	}{
		{"clean filter", func(t *testing.T, f fixture, p string) {
			f.git(t, "config", "filter.x.clean", p)
			f.git(t, "config", "filter.x.smudge", p)
			write(t, f.path(".gitattributes"), "*.txt filter=x\n")
		}, []string{"add", "a.txt"}},
		{"required clean filter", func(t *testing.T, f fixture, p string) {
			f.git(t, "config", "filter.x.clean", p)
			f.git(t, "config", "filter.x.required", "true")
			write(t, f.path(".gitattributes"), "*.txt filter=x\n")
		}, []string{"add", "a.txt"}},
		{"long-running filter process", func(t *testing.T, f fixture, p string) {
			f.git(t, "config", "filter.x.process", p)
			write(t, f.path(".gitattributes"), "*.txt filter=x\n")
		}, []string{"add", "a.txt"}},
		{"filter of an included config file in the workspace", func(t *testing.T, f fixture, p string) {
			f.git(t, "config", "include.path", "../included.cfg")
			write(t, f.path("included.cfg"), "[filter \"inc.x\"]\n\tclean = "+p+"\n")
			write(t, f.path(".gitattributes"), "*.txt filter=inc.x\n")
		}, []string{"add", "a.txt"}},
		{"textconv", func(t *testing.T, f fixture, p string) {
			f.git(t, "config", "diff.tc.textconv", p)
			write(t, f.path(".gitattributes"), "*.txt diff=tc\n")
		}, []string{"diff"}},
		{"external diff driver", func(t *testing.T, f fixture, p string) {
			f.git(t, "config", "diff.ext.command", p)
			write(t, f.path(".gitattributes"), "*.txt diff=ext\n")
		}, []string{"diff"}},
		{"diff.external", func(t *testing.T, f fixture, p string) {
			f.git(t, "config", "diff.external", p)
		}, []string{"diff"}},
		{"fsmonitor", func(t *testing.T, f fixture, p string) {
			f.git(t, "config", "core.fsmonitor", p)
		}, []string{"status"}},
		{"hooks", func(t *testing.T, f fixture, p string) {
			for _, h := range []string{"pre-commit", "commit-msg", "post-commit", "post-index-change", "reference-transaction", "prepare-commit-msg"} {
				program(t, f.path(".git/hooks/"+h), strings.TrimSuffix(p, "/prog")+"/../ran")
			}
		}, []string{"commit", "-q", "-am", "by hand"}},
		{"hooks path", func(t *testing.T, f fixture, p string) {
			program(t, f.path("myhooks/pre-commit"), strings.TrimSuffix(p, "/prog")+"/../ran")
			f.git(t, "config", "core.hooksPath", "myhooks")
		}, []string{"commit", "-q", "-am", "by hand"}},
		{"commit signing", func(t *testing.T, f fixture, p string) {
			f.git(t, "config", "commit.gpgSign", "true")
			f.git(t, "config", "gpg.program", p)
		}, nil},
		{"signatures in the log", func(t *testing.T, f fixture, p string) {
			f.git(t, "config", "log.showSignature", "true")
			f.git(t, "config", "gpg.program", p)
		}, nil},
		{"pager", func(t *testing.T, f fixture, p string) {
			f.git(t, "config", "core.pager", p)
			f.git(t, "config", "pager.status", p)
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, true, true)
			marker := filepath.Join(f.base, "ran")
			p := program(t, filepath.Join(f.base, "bin", "prog"), marker)
			tt.setup(t, f, p)
			write(t, f.path("a.txt"), "two\n")
			runAll(t, f)
			notRun(t, marker)
			if tt.control != nil {
				write(t, f.path("a.txt"), "three\n")
				f.git(t, tt.control...)
				if _, err := os.Stat(marker); err != nil {
					t.Errorf("control: git %v did not run the program either (%v): the case tests nothing", tt.control, err)
				}
			}
		})
	}
}

// runAll calls every git tool; a failure of one is no error here (a
// required filter that does not run may refuse the commit), but a Go
// error is.
func runAll(t *testing.T, f fixture) {
	t.Helper()
	f.call(t, git.Status, map[string]any{})
	f.call(t, git.Diff, map[string]any{})
	f.call(t, git.Diff, map[string]any{"path": "a.txt"})
	f.call(t, git.Log, map[string]any{})
	f.call(t, git.Commit, map[string]any{"message": "By the agent"})
	f.call(t, git.Diff, map[string]any{"staged": true})
	f.call(t, git.Log, map[string]any{"path": "a.txt"})
}

// TestRepositoryLaidOutAtTheRoot is the attack of issue 14: an agent in
// mode edits wrote HEAD, config (core.worktree and a clean filter), objects/,
// refs/ and .gitattributes into the workspace, which git then took for a
// repository, and git_commit ran the filter. The git tools do not take a
// folder for a repository unless it is a .git (safe.bareRepository).
func TestRepositoryLaidOutAtTheRoot(t *testing.T) {
	t.Parallel()
	f := newFixture(t, false, false)
	marker := filepath.Join(f.base, "ran")
	p := program(t, filepath.Join(f.base, "bin", "prog"), marker)
	write(t, f.path("HEAD"), "ref: refs/heads/main\n")
	write(t, f.path("config"), "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n\tfsmonitor = "+p+"\n[filter \"x\"]\n\tclean = "+p+"\n")
	mkdir(t, f.path("objects"))
	mkdir(t, f.path("refs/heads"))
	write(t, f.path(".gitattributes"), "* filter=x\n")
	write(t, f.path("a.txt"), "one\n")
	for _, name := range []string{git.Status, git.Diff, git.Log} {
		if res := f.call(t, name, map[string]any{}); res.Code != git.CodeNotRepository {
			t.Errorf("%s: %s: %s", name, res.Code, res.Output)
		}
	}
	if res := f.call(t, git.Commit, map[string]any{"message": "x"}); res.Code != git.CodeNotRepository {
		t.Errorf("commit: %s: %s", res.Code, res.Output)
	}
	notRun(t, marker)
	// The control: plain git takes the folder for a repository and runs
	// the filter.
	f.git(t, "add", "a.txt")
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("control: plain git did not run the filter (%v): the case tests nothing", err)
	}
}

// TestSubmoduleProgramsDoNotRun: a submodule is another repository with a
// configuration of its own, whose filters git status would run to see
// whether the submodule is dirty.
func TestSubmoduleProgramsDoNotRun(t *testing.T) {
	t.Parallel()
	f := newFixture(t, true, true)
	sub := fixture{ws: filepath.Join(f.base, "subsrc")}
	mkdir(t, sub.ws)
	sub.git(t, "init", "-q", "-b", "main")
	write(t, filepath.Join(sub.ws, "s.txt"), "s\n")
	sub.git(t, "add", ".")
	sub.git(t, "-c", "user.name=A", "-c", "user.email=a@example.com", "commit", "-q", "-m", "s")
	f.git(t, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub.ws, "sub")
	f.git(t, "commit", "-q", "-m", "Add sub")
	marker := filepath.Join(f.base, "ran")
	p := program(t, filepath.Join(f.base, "bin", "prog"), marker)
	in := fixture{ws: f.path("sub")}
	in.git(t, "config", "filter.s.clean", p)
	write(t, f.path("sub/.gitattributes"), "*.txt filter=s\n")
	in.git(t, "add", ".gitattributes")
	in.git(t, "-c", "user.name=A", "-c", "user.email=a@example.com", "commit", "-q", "-m", "attributes")
	if err := os.Remove(marker); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	write(t, f.path("sub/s.txt"), "t\n") // the same size: git must read it, through the filter
	write(t, f.path("a.txt"), "two\n")
	runAll(t, f)
	notRun(t, marker)
	f.git(t, "status")
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("control: plain git status did not run the submodule's program (%v): the case tests nothing", err)
	}
}

// TestUserConfigIgnored: the person's own configuration (~/.gitconfig,
// which TestMain writes) is not read by default: its filters do not run
// and its identity does not sign the agent's commits.
func TestUserConfigIgnored(t *testing.T) {
	t.Parallel()
	f := newFixture(t, true, false)
	f.git(t, "config", "--unset", "user.name")
	f.git(t, "config", "--unset", "user.email")
	write(t, f.path("a.glob"), "one\n")
	c := f.ok(t, git.Commit, map[string]any{"message": "By the agent"})
	contains(t, "commit", c, "committed as Steward agent")
	if got := f.git(t, "log", "-1", "--format=%an"); got != "Steward agent\n" {
		t.Errorf("author %q, want Steward agent", got)
	}
	if b, err := os.ReadFile(globalMarker); err == nil {
		t.Errorf("the user's global filter ran:\n%s", b)
	}
}

// TestUserConfigAllowed: with Options.UserConfig the person's identity
// counts, and their filters are neutralised all the same.
func TestUserConfigAllowed(t *testing.T) {
	t.Parallel()
	f := newFixture(t, true, false)
	f.reg = tool.NewRegistry()
	for _, tl := range git.Tools(git.Options{UserConfig: true}) {
		if err := f.reg.Register(tl); err != nil {
			t.Fatal(err)
		}
	}
	f.git(t, "config", "--unset", "user.name")
	f.git(t, "config", "--unset", "user.email")
	write(t, f.path("b.glob"), "one\n")
	f.ok(t, git.Commit, map[string]any{"message": "By the agent"})
	if got := f.git(t, "log", "-1", "--format=%an <%ae>"); got != "Global Person <global@example.com>\n" {
		t.Errorf("author %q, want the global identity", got)
	}
	write(t, f.path("b.glob"), "two\n")
	f.ok(t, git.Status, map[string]any{})
	f.ok(t, git.Commit, map[string]any{"message": "Again"})
	if b, err := os.ReadFile(globalMarker); err == nil {
		t.Errorf("the user's global filter ran:\n%s", b)
	}
}

// TestGitWithholds: git_status, git_diff and git_commit leave out the files
// a rule keeps from the run, and say how many.
func TestGitWithholds(t *testing.T) {
	t.Parallel()
	f := newFixture(t, true, false)
	write(t, f.path(".env"), "TOKEN=hunter1\n")
	write(t, f.path("a.txt"), "one\n")
	mkdir(t, f.path("conf"))
	write(t, f.path("conf/prod.env"), "TOKEN=hunter2\n")
	f.git(t, "add", ".")
	f.git(t, "commit", "-q", "-m", "First")
	write(t, f.path(".env"), "TOKEN=hunter3\n")
	write(t, f.path("conf/prod.env"), "TOKEN=hunter4\n")
	write(t, f.path("a.txt"), "two\n")
	write(t, f.path("new.env"), "TOKEN=hunter5\n")
	rules := []policy.Rule{{Effect: policy.Deny, Tool: "*", Match: "**/*.env"}}
	f.env.Withheld = func(t tool.Touch) bool { return policy.Withheld(policy.Input{Tool: "git_diff", Rules: rules}, t) }

	st := f.ok(t, git.Status, map[string]any{})
	contains(t, "status", st, "a.txt", "(3 files withheld by a rule)")
	lacks(t, "status", st, ".env")
	d := f.ok(t, git.Diff, map[string]any{})
	contains(t, "diff", d, "+two", "withheld by a rule")
	lacks(t, "diff", d, "hunter", ".env")
	f.git(t, "add", ".env")
	sd := f.ok(t, git.Diff, map[string]any{"staged": true})
	contains(t, "staged diff", sd, "No staged changes in the workspace. (1 file withheld by a rule)")
	lacks(t, "staged diff", sd, "hunter")

	c := f.ok(t, git.Commit, map[string]any{"message": "Only what may be read"})
	contains(t, "commit", c, "1 file changed", "left out of the commit")
	lacks(t, "commit", c, ".env")
	if got := f.git(t, "show", "--name-only", "--format=", "HEAD"); got != "a.txt\n" {
		t.Errorf("committed:\n%s", got)
	}
	// What the person staged stays staged; the rest is as it was.
	if got := f.git(t, "status", "--porcelain"); got != "M  .env\n M conf/prod.env\n?? new.env\n" {
		t.Errorf("left:\n%s", got)
	}
}
