package policy

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"steward/backend/tool"
)

func TestDecide(t *testing.T) {
	t.Parallel()
	args := func(s string) json.RawMessage { return json.RawMessage(s) }
	denyEnv := Rule{Effect: Deny, Tool: "write_file", Match: "*.env", Source: SourceAgent}
	askSrc := Rule{Effect: Ask, Tool: "*", Match: "src/**", Source: SourceRun}
	allowSrc := Rule{Effect: Allow, Tool: "write_file", Match: "src/**", Source: SourceConfig}
	allowAll := Rule{Effect: Allow, Tool: "*"}
	denyEnvAny := Rule{Effect: Deny, Tool: "*", Match: "*.env"}
	// writes are the touches of a call that writes each of paths.
	writes := func(paths ...string) []tool.Touch {
		var out []tool.Touch
		for _, p := range paths {
			out = append(out, tool.Touch{Path: p, Access: tool.AccessWrite})
		}
		return out
	}
	grant := func(match, src string) Rule {
		return Rule{Effect: Allow, Tool: "apply_patch", Match: match, Source: src}
	}
	grantA := Rule{Effect: Allow, Tool: "write_file", Match: ExactMatch(Input{Tool: "write_file", Args: args(`{"path":"/w/./a.txt"}`), Workspace: "/w"}), Source: "grant run gr_1"}
	grantCmd := Rule{Effect: Allow, Tool: "run_command", Match: ExactMatch(Input{Tool: "run_command", Args: args(`{"command":"ls *.go"}`)}), Source: "grant agent gr_2"}
	tests := []struct {
		name      string
		in        Input
		want      Effect
		reasonHas string
	}{
		// Mode ask.
		{"ask: read runs", Input{Mode: "ask", Tool: "read_file", Risk: tool.RiskRead}, Allow, "read-only"},
		{"ask: list runs", Input{Mode: "ask", Tool: "list_dir", Risk: tool.RiskRead}, Allow, "list_dir"},
		{"ask: write asks", Input{Mode: "ask", Tool: "write_file", Risk: tool.RiskWrite}, Ask, "needs approval"},
		{"ask: exec asks", Input{Mode: "ask", Tool: "run_command", Risk: tool.RiskExec}, Ask, "exec"},
		{"ask: network asks", Input{Mode: "ask", Tool: "browser_open", Risk: tool.RiskNetwork}, Ask, "network"},
		{"ask: destructive asks", Input{Mode: "ask", Tool: "rm", Risk: tool.RiskDestructive}, Ask, "destructive"},
		{"ask: unknown risk asks", Input{Mode: "ask", Tool: "x", Risk: "weird"}, Ask, "needs approval"},
		// Mode edits.
		{"edits: read runs", Input{Mode: "edits", Tool: "read_file", Risk: tool.RiskRead}, Allow, "mode edits"},
		{"edits: write runs", Input{Mode: "edits", Tool: "write_file", Risk: tool.RiskWrite}, Allow, "mode edits: write tool write_file runs"},
		{"edits: exec asks", Input{Mode: "edits", Tool: "run_command", Risk: tool.RiskExec}, Ask, "mode edits: exec"},
		{"edits: network asks", Input{Mode: "edits", Tool: "fetch", Risk: tool.RiskNetwork}, Ask, "network"},
		{"edits: destructive asks", Input{Mode: "edits", Tool: "rm", Risk: tool.RiskDestructive}, Ask, "destructive"},
		{"edits: unknown risk asks", Input{Mode: "edits", Tool: "x", Risk: "weird"}, Ask, "needs approval"},
		// Mode plan.
		{"plan: read runs", Input{Mode: "plan", Tool: "read_file", Risk: tool.RiskRead}, Allow, "mode plan"},
		{"plan: write denied", Input{Mode: "plan", Tool: "write_file", Risk: tool.RiskWrite}, Deny, "not available while planning"},
		{"plan: exec denied", Input{Mode: "plan", Tool: "run_command", Risk: tool.RiskExec}, Deny, "mode plan"},
		{"plan: destructive denied", Input{Mode: "plan", Tool: "rm", Risk: tool.RiskDestructive}, Deny, "mode plan"},
		{"plan: allow rule does not unlock a write", Input{Mode: "plan", Tool: "write_file", Risk: tool.RiskWrite, Rules: []Rule{allowAll}}, Deny, "mode plan"},
		{"plan: deny rule still holds for reads", Input{Mode: "plan", Tool: "read_file", Risk: tool.RiskRead, Args: args(`{"path":"secrets/a"}`),
			Rules: []Rule{{Effect: Deny, Tool: "read_file", Match: "secrets/**"}}}, Deny, "rule deny read_file secrets/** (agent)"},
		// Mode auto.
		{"auto: write runs", Input{Mode: "auto", Tool: "write_file", Risk: tool.RiskWrite}, Allow, "mode auto"},
		{"auto: exec runs", Input{Mode: "auto", Tool: "run_command", Risk: tool.RiskExec}, Allow, "mode auto"},
		{"auto: destructive runs", Input{Mode: "auto", Tool: "rm", Risk: tool.RiskDestructive}, Allow, "mode auto"},
		{"auto: network runs", Input{Mode: "auto", Tool: "fetch", Risk: tool.RiskNetwork}, Allow, "mode auto"},
		// Unknown modes fail closed.
		{"unknown mode asks even for reads", Input{Mode: "yolo", Tool: "read_file", Risk: tool.RiskRead}, Ask, "unknown mode"},
		// Rules decide over the mode.
		{"deny rule on .env", Input{Mode: "auto", Tool: "write_file", Risk: tool.RiskWrite, Args: args(`{"path":".env","content":"x"}`), Rules: []Rule{denyEnv}},
			Deny, "rule deny write_file *.env (agent)"},
		{"deny rule on prod.env", Input{Mode: "edits", Tool: "write_file", Risk: tool.RiskWrite, Args: args(`{"path":"prod.env"}`), Rules: []Rule{denyEnv}}, Deny, "*.env"},
		{"* does not cross a slash", Input{Mode: "edits", Tool: "write_file", Risk: tool.RiskWrite, Args: args(`{"path":"conf/.env"}`), Rules: []Rule{denyEnv}}, Allow, "mode edits"},
		{"./ and .. are cleaned", Input{Mode: "auto", Tool: "write_file", Risk: tool.RiskWrite, Args: args(`{"path":"./a/../.env"}`), Rules: []Rule{denyEnv}}, Deny, "*.env"},
		{"absolute path in the workspace is relative", Input{Mode: "auto", Tool: "write_file", Risk: tool.RiskWrite, Workspace: "/home/u/ws",
			Args: args(`{"path":"/home/u/ws/.env"}`), Rules: []Rule{denyEnv}}, Deny, "*.env"},
		{"rule for another tool does not match", Input{Mode: "ask", Tool: "read_file", Risk: tool.RiskRead, Args: args(`{"path":".env"}`), Rules: []Rule{denyEnv}}, Allow, "mode ask"},
		{"allow rule runs a write in mode ask", Input{Mode: "ask", Tool: "write_file", Risk: tool.RiskWrite, Args: args(`{"path":"src/a/b.go"}`), Rules: []Rule{allowSrc}},
			Allow, "rule allow write_file src/** (config)"},
		{"** matches one level", Input{Mode: "ask", Tool: "write_file", Risk: tool.RiskWrite, Args: args(`{"path":"src/b.go"}`), Rules: []Rule{allowSrc}}, Allow, "rule allow"},
		{"** matches zero levels", Input{Mode: "ask", Tool: "write_file", Risk: tool.RiskWrite, Args: args(`{"path":"x/.env"}`),
			Rules: []Rule{{Effect: Deny, Tool: "*", Match: "**/*.env"}}}, Deny, "**/*.env"},
		{"** at the front matches the top level", Input{Mode: "auto", Tool: "write_file", Risk: tool.RiskWrite, Args: args(`{"path":".env"}`),
			Rules: []Rule{{Effect: Deny, Tool: "*", Match: "**/*.env"}}}, Deny, "**/*.env"},
		{"** in the middle", Input{Mode: "auto", Tool: "write_file", Risk: tool.RiskWrite, Args: args(`{"path":"a/b/c/secret.key"}`),
			Rules: []Rule{{Effect: Deny, Tool: "*", Match: "a/**/*.key"}}}, Deny, "a/**/*.key"},
		{"glob outside the rule's prefix", Input{Mode: "ask", Tool: "write_file", Risk: tool.RiskWrite, Args: args(`{"path":"docs/a.md"}`), Rules: []Rule{allowSrc}}, Ask, "mode ask"},
		{"tool * matches every tool", Input{Mode: "auto", Tool: "read_file", Risk: tool.RiskRead, Args: args(`{"path":"src/x"}`), Rules: []Rule{askSrc}}, Ask, "rule ask * src/** (run)"},
		{"empty match matches every call", Input{Mode: "ask", Tool: "write_file", Risk: tool.RiskWrite, Rules: []Rule{allowAll}}, Allow, "rule allow * (agent)"},
		{"deny beats ask beats allow", Input{Mode: "auto", Tool: "write_file", Risk: tool.RiskWrite, Args: args(`{"path":"src/.env"}`),
			Rules: []Rule{allowSrc, askSrc, {Effect: Deny, Tool: "*", Match: "src/*.env", Source: SourceConfig}}}, Deny, "rule deny * src/*.env (config)"},
		{"ask beats allow", Input{Mode: "auto", Tool: "write_file", Risk: tool.RiskWrite, Args: args(`{"path":"src/a.go"}`), Rules: []Rule{allowSrc, askSrc}}, Ask, "rule ask"},
		{"allow when only allow matches", Input{Mode: "ask", Tool: "write_file", Risk: tool.RiskWrite, Args: args(`{"path":"src/a.go"}`), Rules: []Rule{allowSrc, denyEnv}}, Allow, "rule allow"},
		{"command rule", Input{Mode: "ask", Tool: "run_command", Risk: tool.RiskExec, Args: args(`{"command":"go test ./..."}`),
			Rules: []Rule{{Effect: Allow, Tool: "run_command", Match: "go test *"}}}, Allow, "go test *"},
		{"command rule not matching", Input{Mode: "auto", Tool: "run_command", Risk: tool.RiskExec, Args: args(`{"command":"git push"}`),
			Rules: []Rule{{Effect: Ask, Tool: "run_command", Match: "git push *"}}}, Allow, "mode auto"},
		{"a key the tool gives", Input{Mode: "ask", Tool: "browser_act", Risk: tool.RiskWrite, Args: args(`{"action":"click","ref":"e3"}`),
			Key: ptr("shop.example.com"), Rules: []Rule{{Effect: Allow, Tool: "browser_*", Match: "*.example.com"}}}, Allow, "*.example.com"},
		{"a key the tool gives, not matched", Input{Mode: "ask", Tool: "browser_act", Risk: tool.RiskWrite, Args: args(`{"action":"click","ref":"e3"}`),
			Key: ptr("evil.org"), Rules: []Rule{{Effect: Allow, Tool: "browser_*", Match: "*.example.com"}}}, Ask, "needs approval"},
		{"a key the tool gives beats its path argument", Input{Mode: "ask", Tool: "browser_act", Risk: tool.RiskWrite, Args: args(`{"action":"fill","path":"src/a"}`),
			Key: ptr("evil.org"), Rules: []Rule{{Effect: Allow, Tool: "*", Match: "src/**"}}}, Ask, "needs approval"},
		{"a tool glob", Input{Mode: "ask", Tool: "edit_file", Risk: tool.RiskWrite, Args: args(`{"path":"prod/.env"}`),
			Rules: []Rule{{Effect: Deny, Tool: "*_file", Match: "**/.env"}}}, Deny, "*_file"},
		{"a tool glob that does not match", Input{Mode: "ask", Tool: "apply_patch", Risk: tool.RiskWrite, Touched: true, Touches: writes(".env"),
			Rules: []Rule{{Effect: Allow, Tool: "*_file"}}}, Ask, "mode ask"},
		{"domain rule", Input{Mode: "auto", Tool: "browser_open", Risk: tool.RiskNetwork, Args: args(`{"url":"https://Evil.example.com/x?y"}`),
			Rules: []Rule{{Effect: Deny, Tool: "*", Match: "*.example.com"}}}, Deny, "*.example.com"},
		{"undecodable arguments match an empty key only", Input{Mode: "ask", Tool: "write_file", Risk: tool.RiskWrite, Args: args(`nope`), Rules: []Rule{denyEnv}}, Ask, "mode ask"},
		// Grants are rules: an exact key argument, or any call of the tool.
		{"allow grant runs a write in mode ask", Input{Mode: "ask", Tool: "write_file", Risk: tool.RiskWrite, Args: args(`{"path":"a.txt"}`),
			Rules: []Rule{grantA}}, Allow, "rule allow write_file a.txt (grant run gr_1)"},
		{"allow grant is for its key argument only", Input{Mode: "ask", Tool: "write_file", Risk: tool.RiskWrite, Args: args(`{"path":"b.txt"}`),
			Rules: []Rule{grantA}}, Ask, "mode ask"},
		{"escaped grant matches its command only", Input{Mode: "ask", Tool: "run_command", Risk: tool.RiskExec, Args: args(`{"command":"ls *.go"}`),
			Rules: []Rule{grantCmd}}, Allow, "grant agent gr_2"},
		{"escaped grant is not a glob", Input{Mode: "ask", Tool: "run_command", Risk: tool.RiskExec, Args: args(`{"command":"ls a.go"}`),
			Rules: []Rule{grantCmd}}, Ask, "mode ask"},
		{"deny grant beats allow rule", Input{Mode: "ask", Tool: "write_file", Risk: tool.RiskWrite, Args: args(`{"path":"src/a.go"}`),
			Rules: []Rule{allowSrc, {Effect: Deny, Tool: "write_file", Source: "grant everywhere gr_3"}}}, Deny, "grant everywhere gr_3"},
		{"ask rule beats allow grant", Input{Mode: "ask", Tool: "read_file", Risk: tool.RiskRead, Args: args(`{"path":"src/a"}`),
			Rules: []Rule{askSrc, {Effect: Allow, Tool: "read_file", Source: "grant run gr_4"}}}, Ask, "rule ask"},
		{"unattended allow grant runs", Input{Mode: "ask", Tool: "write_file", Risk: tool.RiskWrite, Args: args(`{"path":"a.txt"}`),
			Rules: []Rule{grantA}, Unattended: true}, Allow, "grant run gr_1"},
		// Unattended: ask becomes deny.
		{"unattended write denied", Input{Mode: "ask", Tool: "write_file", Risk: tool.RiskWrite, Unattended: true}, Deny, "unattended"},
		{"unattended read allowed", Input{Mode: "ask", Tool: "read_file", Risk: tool.RiskRead, Unattended: true}, Allow, "read-only"},
		{"unattended unknown mode denied", Input{Mode: "", Tool: "read_file", Risk: tool.RiskRead, Unattended: true}, Deny, "nobody to ask"},
		{"unattended edits exec denied", Input{Mode: "edits", Tool: "run_command", Risk: tool.RiskExec, Unattended: true}, Deny, "nobody to ask, so mode edits"},
		{"unattended ask rule denied", Input{Mode: "auto", Tool: "read_file", Risk: tool.RiskRead, Args: args(`{"path":"src/a"}`), Rules: []Rule{askSrc}, Unattended: true},
			Deny, "nobody to ask, so rule ask * src/** (run) is denied"},
		{"unattended allow rule runs", Input{Mode: "ask", Tool: "write_file", Risk: tool.RiskWrite, Rules: []Rule{allowAll}, Unattended: true}, Allow, "rule allow"},
		{"unattended auto runs", Input{Mode: "auto", Tool: "rm", Risk: tool.RiskDestructive, Unattended: true}, Allow, "mode auto"},
		// A call that touches several files: every file counts.
		{"patch: a denied file denies the patch", Input{Mode: "edits", Tool: "apply_patch", Risk: tool.RiskWrite, Touched: true, Touches: writes("src/a.go", ".env"),
			Rules: []Rule{denyEnvAny}}, Deny, "rule deny * *.env (agent) on .env"},
		{"patch: one file asked about asks", Input{Mode: "auto", Tool: "apply_patch", Risk: tool.RiskWrite, Touched: true, Touches: writes("README", "src/a.go"),
			Rules: []Rule{askSrc}}, Ask, "rule ask * src/** (run) on src/a.go"},
		{"patch: allowed only when every file is", Input{Mode: "ask", Tool: "apply_patch", Risk: tool.RiskWrite, Touched: true, Touches: writes("src/a.go", "README"),
			Rules: []Rule{{Effect: Allow, Tool: "apply_patch", Match: "src/**"}}}, Ask, "mode ask"},
		{"patch: all files allowed", Input{Mode: "ask", Tool: "apply_patch", Risk: tool.RiskWrite, Touched: true, Touches: writes("src/a.go", "src/b.go"),
			Rules: []Rule{{Effect: Allow, Tool: "apply_patch", Match: "src/**"}}}, Allow, "rule allow apply_patch src/**"},
		{"patch: no rule, the mode", Input{Mode: "edits", Tool: "apply_patch", Risk: tool.RiskWrite, Touched: true, Touches: writes("a.txt")}, Allow, "mode edits"},
		{"patch: grant of its one file", Input{Mode: "ask", Tool: "apply_patch", Risk: tool.RiskWrite, Touched: true, Touches: writes("a.txt"),
			Rules: []Rule{grant(ExactMatch(Input{Tool: "apply_patch", Touched: true, Touches: writes("a.txt")}), "grant run gr_5")}}, Allow, "gr_5"},
		{"patch: a one-file grant does not cover two", Input{Mode: "ask", Tool: "apply_patch", Risk: tool.RiskWrite, Touched: true, Touches: writes("a.txt", "b.txt"),
			Rules: []Rule{grant(ExactMatch(Input{Tool: "apply_patch", Touched: true, Touches: writes("a.txt")}), "grant run gr_5")}}, Ask, "mode ask"},
		{"patch: a two-file grant matches nothing", Input{Mode: "ask", Tool: "apply_patch", Risk: tool.RiskWrite, Touched: true, Touches: writes("a.txt"),
			Rules: []Rule{grant(ExactMatch(Input{Tool: "apply_patch", Touched: true, Touches: writes("a.txt", "b.txt")}), "grant run gr_6")}}, Ask, "mode ask"},
		{"patch: the arguments do not count once touches are known", Input{Mode: "ask", Tool: "write_file", Risk: tool.RiskWrite, Args: args(`{"path":"src/a.go"}`),
			Touched: true, Touches: writes(".env"), Rules: []Rule{allowSrc}}, Ask, "mode ask"},
		// Touches: the real path and the name the call gave it.
		{"link: a rule on the target", Input{Mode: "edits", Tool: "read_file", Risk: tool.RiskRead, Touched: true,
			Touches: []tool.Touch{{Path: ".env", Via: "env-alias.txt", Access: tool.AccessRead}}, Rules: []Rule{{Effect: Deny, Tool: "*", Match: "**/*.env"}}},
			Deny, "rule deny * **/*.env (agent) on .env via env-alias.txt"},
		{"link: a rule on the name", Input{Mode: "edits", Tool: "read_file", Risk: tool.RiskRead, Touched: true,
			Touches: []tool.Touch{{Path: "data/x", Via: "secrets/x", Access: tool.AccessRead}}, Rules: []Rule{{Effect: Deny, Tool: "*", Match: "secrets/**"}}},
			Deny, "on data/x via secrets/x"},
		{"link: the mode says where it leads", Input{Mode: "ask", Tool: "write_file", Risk: tool.RiskWrite, Touched: true,
			Touches: []tool.Touch{{Path: "b.txt", Via: "a.txt", Access: tool.AccessWrite}}}, Ask, "(write b.txt via a.txt)"},
		{"no touches: an any-call rule still holds", Input{Mode: "auto", Tool: "write_file", Risk: tool.RiskWrite, Touched: true,
			Rules: []Rule{{Effect: Deny, Tool: "write_file"}, {Effect: Allow, Tool: "write_file", Match: "**"}}}, Deny, "rule deny write_file (agent)"},
		{"no touches: a path rule does not match", Input{Mode: "edits", Tool: "write_file", Risk: tool.RiskWrite, Touched: true,
			Rules: []Rule{{Effect: Deny, Tool: "write_file", Match: "**"}}}, Allow, "mode edits"},
		// Writes of files whose content runs later are exec.
		{"exec: .gitattributes asks in edits", Input{Mode: "edits", Tool: "write_file", Risk: tool.RiskWrite, Touched: true, Touches: writes(".gitattributes")},
			Ask, "mode edits: write_file writes .gitattributes, git runs the filter"},
		{"exec: asks in ask", Input{Mode: "ask", Tool: "write_file", Risk: tool.RiskWrite, Touched: true, Touches: writes("sub/.envrc")}, Ask, "risk exec"},
		{"exec: runs in auto", Input{Mode: "auto", Tool: "write_file", Risk: tool.RiskWrite, Touched: true, Touches: writes(".gitattributes")}, Allow, "mode auto"},
		{"exec: a glob allow rule does not lift it", Input{Mode: "ask", Tool: "write_file", Risk: tool.RiskWrite, Touched: true, Touches: writes(".husky/pre-commit"),
			Rules: []Rule{{Effect: Allow, Tool: "*", Match: "**"}, {Effect: Allow, Tool: "write_file"}}}, Ask, "risk exec"},
		{"exec: a rule naming the file lifts it", Input{Mode: "edits", Tool: "write_file", Risk: tool.RiskWrite, Touched: true, Touches: writes(".gitattributes"),
			Rules: []Rule{{Effect: Allow, Tool: "write_file", Match: ExactMatch(Input{Tool: "write_file", Touched: true, Touches: writes(".gitattributes")}), Source: "grant run gr_7"}}},
			Allow, "gr_7"},
		{"exec: a deny rule still denies", Input{Mode: "auto", Tool: "write_file", Risk: tool.RiskWrite, Touched: true, Touches: writes(".gitattributes"),
			Rules: []Rule{{Effect: Deny, Tool: "*", Match: "**/.git*"}}}, Deny, "rule deny"},
		{"exec: the target of a link counts", Input{Mode: "edits", Tool: "write_file", Risk: tool.RiskWrite, Touched: true,
			Touches: []tool.Touch{{Path: ".husky/pre-commit", Via: "notes.txt", Access: tool.AccessWrite}}}, Ask, "writes .husky/pre-commit via notes.txt"},
		{"git: a write into .git is denied", Input{Mode: "auto", Tool: "apply_patch", Risk: tool.RiskWrite, Touched: true, Touches: writes("a.go", "sub/.GIT/config"),
			Rules: []Rule{allowAll}}, Deny, "git internals"},
		{"git: through a link too", Input{Mode: "edits", Tool: "write_file", Risk: tool.RiskWrite, Touched: true,
			Touches: []tool.Touch{{Path: ".git/hooks/pre-commit", Via: "notes.txt", Access: tool.AccessWrite}}}, Deny, "writes .git/hooks/pre-commit via notes.txt"},
		{"git: a .git file", Input{Mode: "auto", Tool: "write_file", Risk: tool.RiskWrite, Touched: true, Touches: writes("vendor/x/.git")}, Deny, "git internals"},
		{"git: reading is reading", Input{Mode: "ask", Tool: "read_file", Risk: tool.RiskRead, Touched: true,
			Touches: []tool.Touch{{Path: ".git/config", Access: tool.AccessRead}}}, Allow, "read-only"},
		{"exec: of several files one is enough", Input{Mode: "edits", Tool: "apply_patch", Risk: tool.RiskWrite, Touched: true, Touches: writes("a.go", "HEAD", "b.go")},
			Ask, "HEAD"},
		{"exec: a read is a read", Input{Mode: "ask", Tool: "read_file", Risk: tool.RiskRead, Touched: true,
			Touches: []tool.Touch{{Path: ".gitattributes", Access: tool.AccessRead}}}, Allow, "read-only"},
		{"exec: unattended denies", Input{Mode: "edits", Tool: "write_file", Risk: tool.RiskWrite, Touched: true, Touches: writes(".gitmodules"), Unattended: true},
			Deny, "nobody to ask"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Decide(tt.in)
			if got.Effect != tt.want {
				t.Fatalf("Decide(%+v).Effect = %s, want %s (reason %q)", tt.in, got.Effect, tt.want, got.Reason)
			}
			if !strings.Contains(got.Reason, tt.reasonHas) {
				t.Errorf("reason %q does not mention %q", got.Reason, tt.reasonHas)
			}
		})
	}
}

func TestKeyArgument(t *testing.T) {
	t.Parallel()
	tests := []struct{ tool, args, want string }{
		{"read_file", `{"path":"a/b.txt"}`, "a/b.txt"},
		{"write_file", `{"path":"./x/../y.txt","content":"z"}`, "y.txt"},
		{"write_file", `{"path":"dir\\file.txt"}`, "dir/file.txt"},
		{"list_dir", `{}`, "."},
		{"list_dir", ``, "."},
		{"list_dir", `{"path":""}`, "."},
		{"read_file", `{"path":"/abs/p"}`, "/abs/p"},
		{"run_command", `{"command":"  go test ./...  "}`, "go test ./..."},
		{"run_command", `{}`, ""},
		{"browser_open", `{"url":"https://Docs.Example.com:8443/a"}`, "docs.example.com"},
		{"browser_open", `{"url":"::bad"}`, ""},
		{"read_file", `not json`, ""},
		{"update_plan", `{"steps":[]}`, ""},
	}
	for _, tt := range tests {
		if got := KeyArgument(tt.tool, json.RawMessage(tt.args)); got != tt.want {
			t.Errorf("KeyArgument(%s, %s) = %q, want %q", tt.tool, tt.args, got, tt.want)
		}
	}
}

func TestExactMatch(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in   Input
		want string
	}{
		{Input{Tool: "write_file", Args: json.RawMessage(`{"path":"a/./b.txt"}`)}, "a/b.txt"},
		{Input{Tool: "write_file", Args: json.RawMessage(`{"path":"/w/a.txt"}`), Workspace: "/w"}, "a.txt"},
		{Input{Tool: "write_file", Args: json.RawMessage(`{"path":"[x]*?.txt"}`)}, `\[x\]\*\?.txt`},
		{Input{Tool: "run_command", Args: json.RawMessage(`{"command":"echo a\\b"}`)}, `echo a\\b`},
		{Input{Tool: "noargs", Args: json.RawMessage(`{}`)}, ""},
		// A tool's touches: the real path of its one file.
		{Input{Tool: "write_file", Args: json.RawMessage(`{"path":"env-alias.txt"}`), Touched: true,
			Touches: []tool.Touch{{Path: ".env", Via: "env-alias.txt", Access: tool.AccessWrite}}}, ".env"},
		{Input{Tool: "apply_patch", Touched: true, Touches: []tool.Touch{{Path: "a"}, {Path: "b"}}}, noSingleFile},
		{Input{Tool: "write_file", Touched: true}, noSingleFile},
	} {
		if got := ExactMatch(tt.in); got != tt.want {
			t.Errorf("ExactMatch(%+v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestValidateRules(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		rules []Rule
		want  string // "" means valid
	}{
		{"none", nil, ""},
		{"good", []Rule{{Effect: Deny, Tool: "write_file", Match: "**/*.env"}, {Effect: Allow, Tool: "*"}}, ""},
		{"bad effect", []Rule{{Effect: Allow, Tool: "*"}, {Effect: "ALLOW", Tool: "*"}}, `rules[1]: effect "ALLOW"`},
		{"empty tool", []Rule{{Effect: Deny}}, "rules[0]: tool is empty"},
		{"tool glob", []Rule{{Effect: Allow, Tool: "browser_*", Match: "*.example.com"}}, ""},
		{"bad tool glob", []Rule{{Effect: Allow, Tool: "browser_[", Match: "*.example.com"}}, `rules[0]: tool "browser_["`},
		{"bad class", []Rule{{Effect: Deny, Tool: "*", Match: "[z-"}}, "rules[0]: match"},
		{"trailing backslash", []Rule{{Effect: Deny, Tool: "*", Match: `a\`}}, "rules[0]: match"},
		{"bad segment after a fixed one", []Rule{{Effect: Deny, Tool: "*", Match: "zzz/[x"}}, "rules[0]: match"},
		{"bad source", []Rule{{Effect: Deny, Tool: "*", Source: "me"}}, "rules[0]: source"},
		{"too many", make([]Rule, MaxRules+1), "more than 200"},
	}
	for _, tt := range tests {
		err := ValidateRules(tt.rules)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: ValidateRules = %v, want nil", tt.name, err)
		case tt.want != "" && (!errors.Is(err, ErrInvalidRule) || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: ValidateRules = %v, want ErrInvalidRule naming %q", tt.name, err, tt.want)
		}
	}
}

func TestOffered(t *testing.T) {
	t.Parallel()
	for _, m := range Modes {
		for _, r := range []tool.Risk{tool.RiskRead, tool.RiskWrite, tool.RiskExec, tool.RiskNetwork, tool.RiskDestructive} {
			want := m != ModePlan || r == tool.RiskRead
			if got := Offered(Mode(m), r); got != want {
				t.Errorf("Offered(%s, %s) = %v, want %v", m, r, got, want)
			}
		}
	}
}

func ptr(s string) *string { return &s }

// TestRulesMatchMCPToolsByNameGlob: a rule or grant on mcp__github__*
// holds for every tool of that server and no other server's.
func TestRulesMatchMCPToolsByNameGlob(t *testing.T) {
	t.Parallel()
	rules := []Rule{
		{Effect: Allow, Tool: "mcp__github__*", Source: SourceConfig},
		{Effect: Deny, Tool: "mcp__github__delete_*", Source: SourceConfig},
	}
	if err := ValidateRules(rules); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tool string
		want Effect
	}{
		{"mcp__github__create_issue", Allow},
		{"mcp__github__delete_repository", Deny},
		{"mcp__gitlab__create_issue", Ask}, // the mode decides: exec asks in ask
		{"mcp__github_enterprise__create_issue", Ask},
	} {
		d := Decide(Input{Mode: ModeAsk, Tool: c.tool, Risk: tool.RiskExec, Args: json.RawMessage(`{"title":"x"}`), Rules: rules})
		if d.Effect != c.want {
			t.Errorf("%s: %s (%s), want %s", c.tool, d.Effect, d.Reason, c.want)
		}
	}
}

// A decision made on a tool's risk says why the tool has it, when that is
// not the tool's own claim (an untrusted MCP server's tool).
func TestReasonCarriesTheRiskNote(t *testing.T) {
	t.Parallel()
	const note = "MCP server fx is not trusted"
	for _, mode := range []Mode{ModeAsk, ModeEdits, ModePlan, ModeAuto} {
		d := Decide(Input{Mode: mode, Tool: "mcp__fx__echo", Risk: tool.RiskExec, RiskNote: note})
		if !strings.HasSuffix(d.Reason, "("+note+")") {
			t.Errorf("mode %s: reason %q", mode, d.Reason)
		}
	}
	if d := Decide(Input{Mode: ModeAsk, Tool: "write_file", Risk: tool.RiskWrite}); strings.Contains(d.Reason, "(") {
		t.Errorf("a reason without a note: %q", d.Reason)
	}
	rule := Decide(Input{Mode: ModeAsk, Tool: "mcp__fx__echo", Risk: tool.RiskExec, RiskNote: note,
		Rules: []Rule{{Effect: Allow, Tool: "mcp__fx__*"}}})
	if rule.Effect != Allow || strings.Contains(rule.Reason, note) {
		t.Errorf("a rule's decision is not made on the risk: %+v", rule)
	}
}
