package fs

import (
	"errors"
	"fmt"
	"path"
	"strings"
)

// maxAlternatives bounds the patterns a glob's braces expand to, so that
// "{a,b}{c,d}..." cannot make a pattern that takes a minute to match.
const maxAlternatives = 256

// pattern is a compiled path pattern in the style of doublestar and
// .gitignore: segments separated by "/" are matched with path.Match ("*",
// "?", "[a-z]", "\" escapes, within one name), a segment "**" matches any
// number of names, zero included.
type pattern struct {
	alts [][]string // the brace alternatives, each as segments
}

// errDotDot is returned for a pattern that would climb out of its base.
var errDotDot = errors.New(`".." may not follow a wildcard`)

// compileGlob compiles a glob given by the model: "{a,b}" alternatives are
// expanded first, then each alternative is split into segments. Empty and
// "." segments are dropped; ".." is refused (the tools walk beneath their
// base, a pattern cannot leave it).
func compileGlob(p string) (pattern, error) {
	alts, err := expandBraces(p)
	if err != nil {
		return pattern{}, err
	}
	var out pattern
	for _, a := range alts {
		segs, err := segments(a)
		if err != nil {
			return pattern{}, err
		}
		out.alts = append(out.alts, segs)
	}
	return out, nil
}

// segments splits one alternative and checks each segment's syntax.
func segments(p string) ([]string, error) {
	var segs []string
	for s := range strings.SplitSeq(p, "/") {
		switch {
		case s == "" || s == ".":
			continue
		case s == "..":
			return nil, errDotDot
		case s == "**":
			if len(segs) > 0 && segs[len(segs)-1] == "**" {
				continue // "**/**" is "**"
			}
		default:
			if _, err := path.Match(s, ""); err != nil {
				return nil, fmt.Errorf("%q is not a valid pattern: check its [ ] classes and \\ escapes", s)
			}
		}
		segs = append(segs, s)
	}
	return segs, nil
}

// match reports whether the slash-separated path rel matches the pattern.
func (p pattern) match(rel string) bool {
	for _, a := range p.alts {
		if matchSegs(a, rel, false) {
			return true
		}
	}
	return false
}

// mayMatchBelow reports whether some path beneath the directory dir could
// match: a walk skips directories that cannot.
func (p pattern) mayMatchBelow(dir string) bool {
	for _, a := range p.alts {
		if matchSegs(a, dir, true) {
			return true
		}
	}
	return false
}

// matchSegs matches the segments pat against the path s. With prefix set
// it reports whether s could be the beginning of a matching path instead.
// It does not allocate.
func matchSegs(pat []string, s string, prefix bool) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			rest := pat[1:]
			if len(rest) == 0 || prefix {
				return true
			}
			for {
				if matchSegs(rest, s, false) {
					return true
				}
				i := strings.IndexByte(s, '/')
				if i < 0 {
					return false
				}
				s = s[i+1:]
			}
		}
		if s == "" {
			return prefix
		}
		name, rest, _ := strings.Cut(s, "/")
		if !matchName(pat[0], name) {
			return false
		}
		pat, s = pat[1:], rest
	}
	return s == ""
}

// matchName matches one name against one segment; literal segments are
// compared directly, which is most of them.
func matchName(seg, name string) bool {
	if !strings.ContainsAny(seg, `*?[\`) {
		return seg == name
	}
	ok, _ := path.Match(seg, name)
	return ok
}

// literalPrefix splits a glob into its leading segments without wildcards
// or braces, which name a directory to start from, and the rest.
func literalPrefix(p string) (dir, rest string) {
	segs := strings.Split(p, "/")
	i := 0
	for i < len(segs)-1 && !strings.ContainsAny(segs[i], `*?[{\`) {
		i++
	}
	if i == 0 {
		if strings.HasPrefix(p, "/") {
			return "/", strings.Join(segs[1:], "/")
		}
		return "", p
	}
	dir = strings.Join(segs[:i], "/")
	if dir == "" {
		dir = "/"
	}
	return dir, strings.Join(segs[i:], "/")
}

// expandBraces expands "{a,b}" alternatives, nested ones included; a brace
// escaped with "\" is literal, as is one without a matching close.
func expandBraces(p string) ([]string, error) {
	out := []string{}
	var expand func(s string) error
	expand = func(s string) error {
		open := -1
		for i := 0; i < len(s); i++ {
			if s[i] == '\\' {
				i++
				continue
			}
			if s[i] == '{' {
				open = i
				break
			}
		}
		if open < 0 {
			if len(out) >= maxAlternatives {
				return fmt.Errorf("the pattern's braces expand to more than %d patterns", maxAlternatives)
			}
			out = append(out, s)
			return nil
		}
		depth, start := 0, open+1
		var parts []string
		for i := open; i < len(s); i++ {
			switch s[i] {
			case '\\':
				i++
			case '{':
				depth++
			case ',':
				if depth == 1 {
					parts = append(parts, s[start:i])
					start = i + 1
				}
			case '}':
				depth--
				if depth == 0 {
					parts = append(parts, s[start:i])
					for _, alt := range parts {
						if err := expand(s[:open] + alt + s[i+1:]); err != nil {
							return err
						}
					}
					return nil
				}
			}
		}
		// No matching close: the brace is literal, for path.Match too.
		return expand(s[:open] + `\{` + s[open+1:])
	}
	if err := expand(p); err != nil {
		return nil, err
	}
	return out, nil
}
