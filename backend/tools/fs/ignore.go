package fs

import (
	"bytes"
	"os"
	"path"
	"strings"
)

// maxIgnoreBytes bounds the .gitignore files read; a larger one is not a
// list of patterns someone wrote, and is not used.
const maxIgnoreBytes = 1 << 20

// ignoreRule is one line of a .gitignore file.
type ignoreRule struct {
	segs     []string // the pattern, as segments for matchSegs
	negate   bool     // "!pattern": re-include
	dirOnly  bool     // "pattern/": directories only
	anchored bool     // a "/" at the start or in the middle: relative to the file's directory
}

// ignores is the .gitignore rules that apply in one directory: its own
// file's and, through parent, those of the directories above it. Git's
// precedence holds: the deepest file wins, and within a file the last
// matching line.
type ignores struct {
	parent *ignores
	dir    string // the directory of the file, relative to the workspace; "" for the root
	rules  []ignoreRule
}

// parseIgnore parses the content of a .gitignore file in dir as git does
// (gitignore(5)); lines that are not valid patterns are skipped, as git
// skips them.
func parseIgnore(dir string, data []byte) []ignoreRule {
	var rules []ignoreRule
	for line := range bytes.Lines(data) {
		s := strings.TrimRight(string(line), "\r\n")
		if s == "" || s[0] == '#' {
			continue
		}
		s = trimTrailingSpace(s)
		var r ignoreRule
		if s[0] == '!' {
			r.negate, s = true, s[1:]
		} else if strings.HasPrefix(s, `\!`) || strings.HasPrefix(s, `\#`) {
			s = s[1:]
		}
		if strings.HasSuffix(s, "/") {
			r.dirOnly, s = true, strings.TrimRight(s, "/")
		}
		if s == "" {
			continue
		}
		r.anchored = strings.Contains(s, "/")
		var segs []string
		valid := true
		for seg := range strings.SplitSeq(strings.TrimPrefix(s, "/"), "/") {
			// fnmatch negates a class with "!", path.Match with "^".
			seg = strings.ReplaceAll(seg, "[!", "[^")
			if seg != "**" && strings.Contains(seg, "**") {
				seg = strings.ReplaceAll(seg, "**", "*") // as git: other "**" are "*"
			}
			if _, err := path.Match(seg, ""); err != nil || seg == "" {
				valid = false
				break
			}
			segs = append(segs, seg)
		}
		if !valid {
			continue
		}
		r.segs = segs
		rules = append(rules, r)
	}
	return rules
}

// trimTrailingSpace removes trailing spaces unless escaped with "\".
func trimTrailingSpace(s string) string {
	for strings.HasSuffix(s, " ") && !strings.HasSuffix(s, `\ `) {
		s = s[:len(s)-1]
	}
	return s
}

// push returns the rules of a subdirectory dir whose .gitignore holds rules.
func (ig *ignores) push(dir string, rules []ignoreRule) *ignores {
	if len(rules) == 0 {
		return ig
	}
	return &ignores{parent: ig, dir: dir, rules: rules}
}

// ignored reports whether rel, relative to the workspace, is ignored.
func (ig *ignores) ignored(rel string, isDir bool) bool {
	base := path.Base(rel)
	for g := ig; g != nil; g = g.parent {
		sub := rel
		if g.dir != "" {
			var ok bool
			if sub, ok = strings.CutPrefix(rel, g.dir+"/"); !ok {
				continue // not beneath this file's directory
			}
		}
		for i := len(g.rules) - 1; i >= 0; i-- {
			r := &g.rules[i]
			if r.dirOnly && !isDir {
				continue
			}
			var ok bool
			if r.anchored {
				ok = matchSegs(r.segs, sub, false)
			} else {
				ok = matchName(r.segs[0], base)
			}
			if ok {
				return !r.negate
			}
		}
	}
	return false
}

// generated names what tools write beside the sources and nobody reviews,
// ignored even without a .gitignore that says so: caches and installed
// dependencies.
var generated = parseIgnore("", []byte("__pycache__/\n*.pyc\n.pytest_cache/\n.mypy_cache/\n.ruff_cache/\nnode_modules/\n.DS_Store\n"))

// Ignored reports whether rel, a file relative to the workspace at dir, is
// one a person does not review as a change: generated (a cache, installed
// dependencies), or named by .git/info/exclude or a .gitignore on its way,
// itself or a directory above it, as git decides. A workspace that cannot
// be opened ignores nothing.
func Ignored(dir, rel string) bool {
	ignored, done := IgnoredIn(dir)
	defer done()
	return ignored(rel)
}

// IgnoredIn is Ignored for many files of the workspace at dir: it opens the
// workspace once and reads each directory's .gitignore once. done closes
// the workspace; ignored must not be called after it.
func IgnoredIn(dir string) (ignored func(rel string) bool, done func()) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return func(string) bool { return false }, func() {}
	}
	base := (*ignores)(nil).push("", generated)
	if data, err := readSmall(root, ".git/info/exclude"); err == nil {
		base = base.push("", parseIgnore("", data))
	}
	// chains[d] holds the rules that apply in directory d ("" for the
	// root): those of every directory from the root down to d.
	chains := map[string]*ignores{}
	var chain func(d string) *ignores
	chain = func(d string) *ignores {
		if ig, ok := chains[d]; ok {
			return ig
		}
		ig := base
		if d != "" {
			parent := path.Dir(d)
			if parent == "." {
				parent = ""
			}
			ig = chain(parent)
		}
		if data, err := readSmall(root, path.Join(d, ".gitignore")); err == nil {
			ig = ig.push(d, parseIgnore(d, data))
		}
		chains[d] = ig
		return ig
	}
	ignored = func(rel string) bool {
		parts := strings.Split(path.Clean(strings.TrimPrefix(rel, "./")), "/")
		d := ""
		for i, name := range parts {
			rules := chain(d)
			d = join(d, name)
			if rules.ignored(d, i < len(parts)-1) {
				return true
			}
		}
		return false
	}
	return ignored, func() { root.Close() }
}
