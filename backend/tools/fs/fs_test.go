// These tests use Unix symlinks, named pipes, /etc and /proc.

//go:build unix

package fs_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"steward/backend/tool"
	"steward/backend/tools/fs"
)

// fixture is a registry holding the file tools, a workspace, and a sentinel
// directory next to it that no call may touch.
type fixture struct {
	reg     *tool.Registry
	env     tool.Env
	ws      string
	outside string
}

// sentinelContent is in outside/secret.txt; no output may show it.
const sentinelContent = "sentinel content, must not leak\n"

func newFixture(t *testing.T) fixture {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(base, "ws")
	outside := filepath.Join(base, "outside")
	mkdir(t, ws)
	mkdir(t, outside)
	writeFile(t, filepath.Join(outside, "secret.txt"), sentinelContent)
	reg := tool.NewRegistry()
	for _, tl := range fs.Tools() {
		if err := reg.Register(tl); err != nil {
			t.Fatal(err)
		}
	}
	return fixture{reg: reg, env: tool.Env{RunID: "run1", Workspace: ws}, ws: ws, outside: outside}
}

// call runs a tool through the registry, as the engine does; a Go error
// fails the test, since every case here is one the model should see.
func (f fixture) call(t *testing.T, name string, args any) tool.Result {
	t.Helper()
	raw, ok := args.(string)
	if !ok {
		b, err := json.Marshal(args)
		if err != nil {
			t.Fatal(err)
		}
		raw = string(b)
	}
	res, err := f.reg.Call(context.Background(), f.env, name, json.RawMessage(raw))
	if err != nil {
		t.Fatalf("%s %s: Go error %v", name, raw, err)
	}
	return res
}

func (f fixture) path(rel string) string { return filepath.Join(f.ws, filepath.FromSlash(rel)) }

func mkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, name, content string) {
	t.Helper()
	mkdir(t, filepath.Dir(name))
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, name string) {
	t.Helper()
	if err := os.Symlink(target, name); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// snapshot records every entry beneath dir: mode, size, time and content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d iofs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		s := fmt.Sprintf("%v %d %d", fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
		if fi.Mode().IsRegular() {
			s += fmt.Sprintf(" %x", sha256.Sum256([]byte(readFile(t, p))))
		}
		out[p] = s
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// want is the expected result of a call: the output exactly, or for a
// failure its code and parts of its message.
type want struct {
	output   string
	code     string
	contains []string
}

func check(t *testing.T, got tool.Result, w want) {
	t.Helper()
	if w.code == "" {
		if got.IsError {
			t.Fatalf("failed with %s: %s", got.Code, got.Output)
		}
		if diff := cmp.Diff(w.output, got.Output); diff != "" {
			t.Errorf("output (-want +got):\n%s", diff)
		}
		return
	}
	if !got.IsError || got.Code != w.code {
		t.Fatalf("got %+v, want failure %s", got, w.code)
	}
	for _, s := range w.contains {
		if !strings.Contains(got.Output, s) {
			t.Errorf("message %q does not contain %q", got.Output, s)
		}
	}
}

func TestSpecs(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	type prop struct {
		Type        string `json:"type"`
		Description string `json:"description"`
	}
	type schema struct {
		Required   []string        `json:"required"`
		Properties map[string]prop `json:"properties"`
	}
	tests := []struct {
		name     string
		risk     tool.Risk
		required []string
		props    []string
	}{
		{"apply_patch", tool.RiskWrite, []string{"patch"}, []string{"patch"}},
		{"edit_file", tool.RiskWrite, []string{"new_string", "old_string", "path"}, []string{"new_string", "old_string", "path", "replace_all"}},
		{"glob", tool.RiskRead, []string{"pattern"}, []string{"path", "pattern"}},
		{"grep", tool.RiskRead, []string{"pattern"}, []string{"case_insensitive", "glob", "max_results", "path", "pattern"}},
		{"list_dir", tool.RiskRead, nil, []string{"path"}},
		{"read_file", tool.RiskRead, []string{"path"}, []string{"end_line", "path", "start_line"}},
		{"write_file", tool.RiskWrite, []string{"content", "path"}, []string{"content", "path"}},
	}
	specs := f.reg.Specs()
	if len(specs) != len(tests) {
		t.Fatalf("%d specs, want %d", len(specs), len(tests))
	}
	for i, tt := range tests {
		s := specs[i]
		if s.Name != tt.name || s.Risk != tt.risk {
			t.Errorf("spec %d = %s %s, want %s %s", i, s.Name, s.Risk, tt.name, tt.risk)
		}
		if !strings.Contains(s.Description, "relative to the workspace root") {
			t.Errorf("%s: description does not say paths are relative to the workspace root", s.Name)
		}
		var sc schema
		if err := json.Unmarshal(s.Schema, &sc); err != nil {
			t.Fatal(err)
		}
		var props []string
		for name, p := range sc.Properties {
			props = append(props, name)
			if p.Description == "" {
				t.Errorf("%s.%s has no description", s.Name, name)
			}
		}
		if diff := cmp.Diff(tt.props, props, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
			t.Errorf("%s properties (-want +got):\n%s", s.Name, diff)
		}
		if diff := cmp.Diff(tt.required, sc.Required, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
			t.Errorf("%s required (-want +got):\n%s", s.Name, diff)
		}
	}
}

// TestMissingWorkspace is a system failure, not the model's: a Go error.
func TestMissingWorkspace(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	env := tool.Env{RunID: "run1", Workspace: filepath.Join(f.ws, "gone")}
	calls := map[string]string{
		"read_file":   `{"path":"a.txt"}`,
		"write_file":  `{"path":"a.txt","content":"x"}`,
		"list_dir":    `{}`,
		"edit_file":   `{"path":"a.txt","old_string":"a","new_string":"b"}`,
		"apply_patch": `{"patch":"--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+x\n"}`,
		"glob":        `{"pattern":"**"}`,
		"grep":        `{"pattern":"x"}`,
	}
	for name, args := range calls {
		_, err := f.reg.Call(context.Background(), env, name, json.RawMessage(args))
		if err == nil || !strings.Contains(err.Error(), "does not exist") {
			t.Errorf("%s in a missing workspace: error %v", name, err)
		}
	}
}
