//go:build unix

package fs_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"steward/backend/policy"
	"steward/backend/tool"
)

// TestTouches pins the files each tool tells the policy it will open: the
// same as the tool then opens, links resolved and patch paths read by the
// parser apply_patch applies with.
func TestTouches(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	writeFile(t, f.path(".env"), "K=v\n")
	writeFile(t, f.path("a.txt"), "a\n")
	writeFile(t, f.path("x.orig"), "x\n")
	symlink(t, ".env", f.path("env-alias.txt"))
	mkdir(t, f.path("real"))
	symlink(t, "real", f.path("cfg"))
	symlink(t, f.outside, f.path("out"))
	r := func(p, via string) tool.Touch { return tool.Touch{Path: p, Via: via, Access: tool.AccessRead} }
	w := func(p, via string) tool.Touch { return tool.Touch{Path: p, Via: via, Access: tool.AccessWrite} }
	tests := []struct {
		name string
		tool string
		args any
		want []tool.Touch
	}{
		{"read a file", "read_file", map[string]any{"path": "a.txt"}, []tool.Touch{r("a.txt", "")}},
		{"read a link", "read_file", map[string]any{"path": "env-alias.txt"}, []tool.Touch{r(".env", "env-alias.txt")}},
		{"read through a folder link", "read_file", map[string]any{"path": "cfg/x"}, []tool.Touch{r("real/x", "cfg/x")}},
		{"./ and .. are folded", "read_file", map[string]any{"path": "./cfg/../a.txt"}, []tool.Touch{r("a.txt", "")}},
		{"an absolute path in the workspace", "read_file", map[string]any{"path": filepath.Join(f.ws, ".env")}, []tool.Touch{r(".env", "")}},
		{"outside: left to the tool", "read_file", map[string]any{"path": "out/secret.txt"}, nil},
		{"outside by ..: left to the tool", "read_file", map[string]any{"path": "../outside/secret.txt"}, nil},
		{"list the root", "list_dir", map[string]any{}, []tool.Touch{r(".", "")}},
		{"grep the root", "grep", map[string]any{"pattern": "x"}, []tool.Touch{r(".", "")}},
		{"grep a link", "grep", map[string]any{"pattern": "x", "path": "env-alias.txt"}, []tool.Touch{r(".env", "env-alias.txt")}},
		{"glob from its literal start", "glob", map[string]any{"pattern": "cfg/**/*.go"}, []tool.Touch{r("real", "cfg")}},
		{"write a link", "write_file", map[string]any{"path": "env-alias.txt", "content": "x"}, []tool.Touch{w(".env", "env-alias.txt")}},
		{"write a new file", "write_file", map[string]any{"path": "new/b.txt", "content": "x"}, []tool.Touch{w("new/b.txt", "")}},
		{"edit", "edit_file", map[string]any{"path": "a.txt", "old_string": "a", "new_string": "b"}, []tool.Touch{w("a.txt", "")}},
		{"patch: every file", "apply_patch", map[string]any{"patch": "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+b\n--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1 @@\n+n\n"},
			[]tool.Touch{w("a.txt", ""), w("n.txt", "")}},
		{"patch: a quoted, escaped name", "apply_patch", map[string]any{"patch": "--- /dev/null\n+++ \"b/conf/\\056env\"\n@@ -0,0 +1 @@\n+X=1\n"},
			[]tool.Touch{w("conf/.env", "")}},
		{"patch: a git header alone", "apply_patch", map[string]any{"patch": "diff --git a/sub/.env b/sub/.env\nnew file mode 100644\nindex 0000000..e69de29\n"},
			[]tool.Touch{w("sub/.env", "")}},
		{"patch: through a link", "apply_patch", map[string]any{"patch": "--- a/env-alias.txt\n+++ b/env-alias.txt\n@@ -1 +1 @@\n-K=v\n+K=w\n"},
			[]tool.Touch{w(".env", "env-alias.txt")}},
		{"patch: diff -u x.orig x changes the file that exists", "apply_patch", map[string]any{"patch": "--- x.orig\n+++ x\n@@ -1 +1 @@\n-x\n+y\n"},
			[]tool.Touch{w("x.orig", "")}},
		{"patch: a deletion", "apply_patch", map[string]any{"patch": "--- a/a.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n"}, []tool.Touch{w("a.txt", "")}},
		{"patch: not a patch touches nothing", "apply_patch", map[string]any{"patch": "hello"}, nil},
		{"arguments that do not decode", "read_file", `{"path": 3}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			raw, ok := tt.args.(string)
			if !ok {
				b, err := json.Marshal(tt.args)
				if err != nil {
					t.Fatal(err)
				}
				raw = string(b)
			}
			got, ok := f.reg.Touches(tt.tool, f.env, json.RawMessage(raw))
			if !ok {
				t.Fatalf("%s declares no touches", tt.tool)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Touches(%s) (-want +got):\n%s", raw, diff)
			}
		})
	}
}

// TestListingsWithhold pins that list_dir, glob and grep leave out what a
// rule keeps from the run, say how many they left out, and name none.
func TestListingsWithhold(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	writeFile(t, f.path(".env"), "TOKEN=hunter2\n")
	writeFile(t, f.path("conf/prod.env"), "TOKEN=hunter3\n")
	writeFile(t, f.path("notes.txt"), "TOKEN is read at start\n")
	symlink(t, ".env", f.path("env-alias.txt"))
	rules := []policy.Rule{{Effect: policy.Deny, Tool: "*", Match: "**/*.env"}}
	env := f.env
	for _, tt := range []struct {
		tool string
		args any
		note string
	}{
		{"list_dir", map[string]any{}, "(2 entries withheld by a rule)"},
		{"list_dir", map[string]any{"path": "conf"}, "conf/ has nothing to show\n(1 entry withheld by a rule)"},
		{"glob", map[string]any{"pattern": "**/*"}, "(2 files withheld by a rule)"},
		{"grep", map[string]any{"pattern": "TOKEN"}, "(2 files withheld by a rule)"},
		{"grep", map[string]any{"pattern": "TOKEN", "glob": "*.txt"}, ""},
	} {
		env.Withheld = func(t tool.Touch) bool { return policy.Withheld(policy.Input{Tool: tt.tool, Rules: rules}, t) }
		g := f
		g.env = env
		res := g.call(t, tt.tool, tt.args)
		if res.IsError {
			t.Fatalf("%s %v: %s", tt.tool, tt.args, res.Output)
		}
		if strings.Contains(res.Output, "hunter") || strings.Contains(res.Output, ".env") {
			t.Errorf("%s %v shows what is withheld:\n%s", tt.tool, tt.args, res.Output)
		}
		if tt.note != "" && !strings.Contains(res.Output, tt.note) {
			t.Errorf("%s %v does not say %q:\n%s", tt.tool, tt.args, tt.note, res.Output)
		}
		if tt.note == "" && strings.Contains(res.Output, "withheld") {
			t.Errorf("%s %v counts files it would not have shown:\n%s", tt.tool, tt.args, res.Output)
		}
		if tt.tool == "grep" && !strings.Contains(res.Output, "notes.txt:1: TOKEN is read") {
			t.Errorf("grep lost what it may show:\n%s", res.Output)
		}
	}
	// Without a rule everything shows, as before.
	res := f.call(t, "list_dir", map[string]any{})
	if !strings.Contains(res.Output, ".env (14 bytes)") || strings.Contains(res.Output, "withheld") {
		t.Errorf("list_dir without rules:\n%s", res.Output)
	}
}
