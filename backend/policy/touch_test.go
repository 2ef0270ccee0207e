package policy

import (
	"testing"

	"steward/backend/tool"
)

func TestDecideRisk(t *testing.T) {
	t.Parallel()
	w := func(p string) tool.Touch { return tool.Touch{Path: p, Access: tool.AccessWrite} }
	for _, tt := range []struct {
		name string
		in   Input
		want tool.Risk
	}{
		{"the tool's risk", Input{Mode: "edits", Tool: "write_file", Risk: tool.RiskWrite, Touched: true, Touches: []tool.Touch{w("a.go")}}, tool.RiskWrite},
		{"no touches declared", Input{Mode: "edits", Tool: "run_command", Risk: tool.RiskExec}, tool.RiskExec},
		{"a write that runs code", Input{Mode: "edits", Tool: "write_file", Risk: tool.RiskWrite, Touched: true, Touches: []tool.Touch{w("a.go"), w(".gitattributes")}}, tool.RiskExec},
		{"exec also when a rule decides", Input{Mode: "auto", Tool: "write_file", Risk: tool.RiskWrite, Touched: true, Touches: []tool.Touch{w(".envrc")},
			Rules: []Rule{{Effect: Deny, Tool: "*", Match: "a.go"}}}, tool.RiskExec},
		{"a read stays a read", Input{Mode: "ask", Tool: "read_file", Risk: tool.RiskRead, Touched: true,
			Touches: []tool.Touch{{Path: ".git/config", Access: tool.AccessRead}}}, tool.RiskRead},
	} {
		if got := Decide(tt.in).Risk; got != tt.want {
			t.Errorf("%s: risk = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestRunsCode(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		path string
		want bool
	}{
		{".git", true}, // a .git file points git at another repository
		{".git/config", true},
		{".git/hooks/pre-commit", true},
		{"sub/.git/config", true},
		{".GIT/config", true}, // case-insensitive file systems
		{".Git/hooks/post-checkout", true},
		{".git./config", true},        // Windows drops the trailing dot
		{"GIT~1/config", true},        // NTFS's short name
		{".g\u200cit/config", true},   // HFS+ ignores zero-width joiners
		{"HEAD", true},                // a repository laid out at the root
		{"vendor/fixture/HEAD", true}, // or in a folder
		{"config", true},
		{"objects/ab/cdef", true},
		{"refs/heads/main", true},
		{"packed-refs", true},
		{".gitattributes", true},
		{"src/.gitattributes", true},
		{".gitmodules", true},
		{".envrc", true},
		{"tools/.envrc", true},
		{".husky/pre-commit", true},
		{".githooks/pre-push", true},
		{".pre-commit-config.yaml", true},
		{".vscode/tasks.json", true},
		{".vscode/settings.json", true},
		{"app.code-workspace", true},
		{".mcp.json", true},
		{".claude/settings.json", true},
		{"lefthook.yml", true},
		{"config/database.yml", false}, // a config folder is not a repository's config file
		{"src/config", false},
		{"src/objects/a.go", false},
		{".gitignore", false}, // git reads it, and runs nothing for it
		{".github/workflows/ci.yml", false},
		{"README.md", false},
		{"git/x", false},
		{".gitx/config", false},
		{".vscode/extensions.json", false},
	} {
		why, got := RunsCode(tt.path)
		if got != tt.want {
			t.Errorf("RunsCode(%q) = %v (%q), want %v", tt.path, got, why, tt.want)
		}
		if got && why == "" {
			t.Errorf("RunsCode(%q) gives no reason", tt.path)
		}
	}
}

func TestInGitDir(t *testing.T) {
	t.Parallel()
	for p, want := range map[string]bool{
		".git": true, ".git/config": true, "a/.GIT/hooks": true, "a/git~1/x": true, ".git /x": true,
		".gitattributes": false, "a/.github/x": false, "HEAD": false,
	} {
		if got := InGitDir(p); got != want {
			t.Errorf("InGitDir(%q) = %v, want %v", p, got, want)
		}
	}
}

func TestWithheld(t *testing.T) {
	t.Parallel()
	read := func(p, via string) tool.Touch { return tool.Touch{Path: p, Via: via, Access: tool.AccessRead} }
	rules := []Rule{
		{Effect: Deny, Tool: "*", Match: "**/*.env"},
		{Effect: Ask, Tool: "read_file", Match: "secrets/**"},
		{Effect: Allow, Tool: "grep", Match: "secrets/open.txt"},
		{Effect: Deny, Tool: "glob", Match: "build/**"},
		{Effect: Deny, Tool: "grep"}, // an any-call rule decides calls, not what they show
	}
	for _, tt := range []struct {
		tool string
		t    tool.Touch
		want bool
	}{
		{"grep", read(".env", ""), true},
		{"grep", read("conf/prod.env", ""), true},
		{"list_dir", read(".env", "env-alias.txt"), true},
		{"list_dir", read("notes.txt", "alias.env"), true}, // by the name the link has
		{"grep", read("secrets/key.txt", ""), true},        // asked of read_file: reading it asks
		{"grep", read("secrets/open.txt", ""), true},       // an allow does not beat ask
		{"glob", read("build/out.js", ""), true},
		{"grep", read("build/out.js", ""), false}, // that rule is glob's
		{"grep", read("src/a.go", ""), false},
	} {
		if got := Withheld(Input{Tool: tt.tool, Rules: rules}, tt.t); got != tt.want {
			t.Errorf("Withheld(%s, %+v) = %v, want %v", tt.tool, tt.t, got, tt.want)
		}
	}
}
