package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path"
	"strings"
)

// Rule refines a mode for the calls it matches: Tool is a tool name, or a
// glob of names ("browser_*", "*_file", "*" for every tool), Match a glob on the call's key argument (see KeyArgument)
// with path.Match semantics, where a "**" segment matches any number of
// path segments, including none. On a key that is not a path (a command
// line, a host) "*" matches any characters, "/" included. An empty Match
// matches every call.
type Rule struct {
	Effect Effect `json:"effect"`
	Tool   string `json:"tool"`
	Match  string `json:"match,omitempty"`
	// Source is where the rule comes from (agent, run or config), for the
	// reason of a decision. The engine sets it; empty reads as agent.
	Source string `json:"source,omitempty"`
}

// Rule sources.
const (
	SourceAgent  = "agent"
	SourceRun    = "run"
	SourceConfig = "config"
)

// MaxRules bounds the rules of one source, so a decision stays cheap.
const MaxRules = 200

// ErrInvalidRule is wrapped by every ValidateRules failure.
var ErrInvalidRule = errors.New("invalid rule")

// String names the rule in a decision's reason: "rule deny write_file *.env (agent)".
func (r Rule) String() string {
	src := r.Source
	if src == "" {
		src = SourceAgent
	}
	s := "rule " + string(r.Effect) + " " + r.Tool
	if r.Match != "" {
		s += " " + r.Match
	}
	return s + " (" + src + ")"
}

// ValidateRules checks a list of rules; the error names the rule's index.
func ValidateRules(rules []Rule) error {
	if len(rules) > MaxRules {
		return fmt.Errorf("%w: %d rules, more than %d", ErrInvalidRule, len(rules), MaxRules)
	}
	for i, r := range rules {
		switch r.Effect {
		case Allow, Ask, Deny:
		default:
			return fmt.Errorf("%w: rules[%d]: effect %q is not one of allow, ask, deny", ErrInvalidRule, i, r.Effect)
		}
		if strings.TrimSpace(r.Tool) == "" {
			return fmt.Errorf("%w: rules[%d]: tool is empty (name a tool, or * for every tool)", ErrInvalidRule, i)
		}
		if _, err := path.Match(r.Tool, r.Tool); err != nil {
			return fmt.Errorf("%w: rules[%d]: tool %q is not a valid glob: %v", ErrInvalidRule, i, r.Tool, err)
		}
		// path.Match reports a bad pattern only when it gets that far, so
		// try it against a name that reaches every part of the pattern.
		if _, err := path.Match(r.Match, strings.Repeat("a", len(r.Match)+1)); err != nil {
			return fmt.Errorf("%w: rules[%d]: match %q is not a valid glob: %v", ErrInvalidRule, i, r.Match, err)
		}
		for seg := range strings.SplitSeq(r.Match, "/") {
			if _, err := path.Match(seg, ""); err != nil {
				return fmt.Errorf("%w: rules[%d]: match %q is not a valid glob: %v", ErrInvalidRule, i, r.Match, err)
			}
		}
		switch r.Source {
		case "", SourceAgent, SourceRun, SourceConfig:
		default:
			return fmt.Errorf("%w: rules[%d]: source %q is not one of agent, run, config", ErrInvalidRule, i, r.Source)
		}
	}
	return nil
}

// WithSource returns a copy of rules with Source set to src.
func WithSource(rules []Rule, src string) []Rule {
	out := make([]Rule, len(rules))
	for i, r := range rules {
		r.Source = src
		out[i] = r
	}
	return out
}

// matchRules returns the rule that decides a call among those matching it:
// the first deny, else the first ask, else the first allow. A key that is
// not a path (a command line, a host) is matched by globFlat.
func matchRules(rules []Rule, toolName, key string, isPath bool) (Rule, bool) {
	match := Glob
	if !isPath {
		match = globFlat
	}
	return strongest(rules, toolName, func(m string) bool { return match(m, key) })
}

// matchNames is matchRules for a file known by several names (its real
// path, the name a call gave it): a rule matches the file when it matches
// any of them. With no names only the rules with an empty Match, which
// match every call of their tool, can match.
func matchNames(rules []Rule, toolName string, names []string) (Rule, bool) {
	return strongest(rules, toolName, func(m string) bool {
		for _, n := range names {
			if Glob(m, n) {
				return true
			}
		}
		return false
	})
}

// strongest returns the strongest of the rules for toolName whose Match is
// empty or satisfies match.
func strongest(rules []Rule, toolName string, match func(string) bool) (Rule, bool) {
	var best Rule
	found := false
	for _, r := range rules {
		// A tool may be a glob too: browser_* is every browser tool.
		if r.Tool != toolName && !globFlat(r.Tool, toolName) {
			continue
		}
		if r.Match != "" && !match(r.Match) {
			continue
		}
		if !found || rank(r.Effect) > rank(best.Effect) {
			best, found = r, true
		}
	}
	return best, found
}

// literal reports whether the glob m names one path exactly: it has no
// unescaped metacharacter, as a grant's Match made by Literal.
func literal(m string) bool {
	if m == "" {
		return false
	}
	for i := 0; i < len(m); i++ {
		switch m[i] {
		case '\\':
			i++
		case '*', '?', '[':
			return false
		}
	}
	return true
}

func rank(e Effect) int {
	switch e {
	case Deny:
		return 3
	case Ask:
		return 2
	case Allow:
		return 1
	}
	return 0
}

// Glob reports whether name matches pattern: path.Match segment by segment,
// where a segment "**" matches any number of segments, including none. A bad
// pattern matches nothing.
func Glob(pattern, name string) bool {
	return globSegs(strings.Split(pattern, "/"), strings.Split(name, "/"))
}

// globFlat matches a key that is not a path, such as a command line, where
// "*" must match any characters, "/" included: path.Match stops "*" at "/"
// only, so "/" becomes a byte that no key or pattern holds.
func globFlat(pattern, name string) bool {
	ok, err := path.Match(strings.ReplaceAll(pattern, "/", "\x00"), strings.ReplaceAll(name, "/", "\x00"))
	return err == nil && ok
}

func globSegs(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for len(pat) > 0 && pat[0] == "**" {
				pat = pat[1:]
			}
			if len(pat) == 0 {
				return true
			}
			for i := range len(name) + 1 {
				if globSegs(pat, name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, err := path.Match(pat[0], name[0]); err != nil || !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}

// KeyArgument returns the argument of a call that rules match when its tool
// declares no touches (see Input.Touched): the command line of run_command
// (argument command), the host of a tool taking a url, and the cleaned,
// slash-separated path of a tool taking a path; an absolute path stays
// absolute (see Input.Workspace). It is "" when the call has none, or its
// arguments do not decode.
func KeyArgument(toolName string, args json.RawMessage) string {
	key, _ := keyArgument(toolName, args)
	return key
}

// keyArgument is KeyArgument, and whether the key is a path.
func keyArgument(toolName string, args json.RawMessage) (string, bool) {
	var a struct {
		Path    *string `json:"path"`
		Command *string `json:"command"`
		URL     *string `json:"url"`
	}
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	if json.Unmarshal(args, &a) != nil {
		return "", false
	}
	switch {
	case toolName == "run_command" || a.Command != nil:
		if a.Command == nil {
			return "", false
		}
		return strings.TrimSpace(*a.Command), false
	case a.URL != nil:
		u, err := url.Parse(strings.TrimSpace(*a.URL))
		if err != nil {
			return "", false
		}
		return strings.ToLower(u.Hostname()), false
	case a.Path == nil && toolName == "list_dir": // lists the root by default
		return ".", true
	case a.Path != nil:
		p := strings.ReplaceAll(*a.Path, `\`, "/")
		if p == "" {
			return ".", true
		}
		// The model's "./a/../.env" is the same file as ".env": match what
		// the call touches, not how it was spelled.
		return path.Clean(p), true
	}
	return "", false
}

// relative makes an absolute key beneath the workspace relative to it, so a
// rule on ".env" also holds for "/path/to/workspace/.env".
func relative(key, workspace string) string {
	ws := strings.TrimSuffix(strings.ReplaceAll(workspace, `\`, "/"), "/")
	if ws == "" {
		return key
	}
	if key == ws {
		return "."
	}
	if rest, ok := strings.CutPrefix(key, ws+"/"); ok {
		return rest
	}
	return key
}

// ExactMatch returns the Match of a rule that matches exactly this call,
// with every glob character escaped: for a tool that declares its touches,
// the real path of the one file it touches (a call that touches several
// files, or none, gets a Match that no path has, so its grant holds for
// nothing wider than what was approved); otherwise the key argument, as
// Decide sees it (relative to the workspace when beneath it). It is ""
// (any call of the tool) when the call has no key argument. Key is not
// consulted: a tool's own key is the caller's to make Literal.
func ExactMatch(in Input) string {
	if in.Touched {
		if len(in.Touches) == 1 {
			return Literal(in.Touches[0].Path)
		}
		return noSingleFile
	}
	key, isPath := keyArgument(in.Tool, in.Args)
	if isPath {
		key = relative(key, in.Workspace)
	}
	return Literal(key)
}

// noSingleFile is the Match of a grant for a call that touched several
// files or none: no path holds a NUL byte, so it matches nothing.
const noSingleFile = "\x00several files"

// Literal is the glob that matches key alone: its metacharacters escaped.
func Literal(key string) string {
	var b strings.Builder
	for _, c := range key {
		switch c {
		case '*', '?', '[', ']', '\\':
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}
