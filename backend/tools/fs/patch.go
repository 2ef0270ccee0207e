package fs

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// devNull is the name a unified diff gives a file that does not exist on
// one side: created from it, or deleted to it.
const devNull = "/dev/null"

// filePatch is the part of a unified diff about one file.
type filePatch struct {
	oldPath, newPath string // "" for /dev/null; a/ and b/ prefixes stripped
	hunks            []hunk
	// emptyNew and emptyDeleted: git's header of an empty file created or
	// deleted, which has no ---/+++ lines and no hunks.
	emptyNew, emptyDeleted bool
	line                   int // line of the patch where it starts, from 1
}

// name is how messages call the file.
func (f *filePatch) name() string {
	if f.newPath != "" {
		return f.newPath
	}
	return f.oldPath
}

// hunk is one @@ section: the lines it expects (context and removed) and
// the lines it leaves (context and added), without their "\n".
type hunk struct {
	header             string // the @@ line, for messages
	oldStart, newStart int    // as the header states them
	old, new           []string
	oldNoEOL, newNoEOL bool // "\ No newline at end of file" after the last old or new line
	added, removed     int
}

var hunkHeader = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@`)

// patchError is a parse error at a line of the patch.
func patchError(line int, format string, args ...any) error {
	return fail(CodeInvalidPatch, "line %d of the patch: %s", line, fmt.Sprintf(format, args...))
}

// parsePatch parses a unified diff as diff -u and git diff write it. Text
// outside the file sections (a commit message, "Index:" lines) is skipped.
// A hunk's line counts are trusted where a line could be read two ways and
// otherwise need not be exact: models miscount them.
func parsePatch(text string) ([]*filePatch, error) {
	lines := strings.Split(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	var (
		files []*filePatch
		git   *filePatch // a "diff --git" section waiting for its ---/+++ lines
	)
	for i := 0; i < len(lines); {
		l := lines[i]
		switch {
		case strings.HasPrefix(l, "diff --git "):
			if git != nil {
				files = append(files, git)
			}
			git = &filePatch{line: i + 1}
			i++
			for ; i < len(lines) && !strings.HasPrefix(lines[i], "diff ") && !strings.HasPrefix(lines[i], "--- ") && !strings.HasPrefix(lines[i], "@@"); i++ {
				h := lines[i]
				switch {
				case strings.HasPrefix(h, "new file mode"):
					git.emptyNew = true
				case strings.HasPrefix(h, "deleted file mode"):
					git.emptyDeleted = true
				case strings.HasPrefix(h, "rename from"), strings.HasPrefix(h, "copy from"):
					return nil, patchError(i+1, "renames and copies are not supported; delete the old file and create the new one in the patch instead")
				case strings.HasPrefix(h, "Binary files"), strings.HasPrefix(h, "GIT binary patch"):
					return nil, patchError(i+1, "binary patches are not supported")
				}
			}
			if git.emptyNew || git.emptyDeleted {
				// Paths from "diff --git a/x b/x", used only when no ---/+++ follow.
				_, rest, _ := strings.Cut(l, " a/")
				if p, _, ok := strings.Cut(rest, " b/"); ok {
					git.oldPath, git.newPath = p, p
					if git.emptyNew {
						git.oldPath = ""
					} else {
						git.newPath = ""
					}
				}
			}
		case isFileHeader(lines, i):
			f, err := fileHeader(lines, i)
			if err != nil {
				return nil, err
			}
			if git != nil {
				f.line = git.line
				git = nil
			}
			i += 2
			for i < len(lines) && strings.HasPrefix(lines[i], "@@") {
				h, next, err := parseHunk(lines, i)
				if err != nil {
					return nil, err
				}
				f.hunks = append(f.hunks, h)
				i = next
			}
			if len(f.hunks) == 0 {
				return nil, patchError(i+1, "the section of %s has no @@ hunk after its ---/+++ lines", f.name())
			}
			files = append(files, f)
		case strings.HasPrefix(l, "@@"):
			return nil, patchError(i+1, "a hunk before any ---/+++ file header; each file's hunks follow its \"--- a/path\" and \"+++ b/path\" lines")
		default:
			i++
		}
	}
	if git != nil {
		files = append(files, git)
	}
	for _, f := range files {
		if len(f.hunks) == 0 && !f.emptyNew && !f.emptyDeleted {
			return nil, patchError(f.line, "the section of %s changes only file modes or names, which apply_patch does not do", f.name())
		}
		if f.oldPath == "" && f.newPath == "" {
			return nil, patchError(f.line, "both paths are %s or missing", devNull)
		}
	}
	if len(files) == 0 {
		return nil, fail(CodeInvalidPatch, "no file changes found: a patch is a unified diff, each file starting with \"--- a/path\" and \"+++ b/path\" lines, then hunks starting with \"@@ -line,count +line,count @@\"")
	}
	return files, nil
}

// fileHeader parses the ---/+++ lines at i.
func fileHeader(lines []string, i int) (*filePatch, error) {
	oldPath, err := headerPath(lines[i][4:], i+1)
	if err != nil {
		return nil, err
	}
	newPath, err := headerPath(lines[i+1][4:], i+2)
	if err != nil {
		return nil, err
	}
	// Strip git's a/ and b/ prefixes only when both sides have them (or
	// are /dev/null), so that "diff -u a/x a/x" keeps its directory a.
	if (oldPath == devNull || strings.HasPrefix(oldPath, "a/")) && (newPath == devNull || strings.HasPrefix(newPath, "b/")) {
		oldPath = strings.TrimPrefix(oldPath, "a/")
		newPath = strings.TrimPrefix(newPath, "b/")
	}
	f := &filePatch{oldPath: oldPath, newPath: newPath, line: i + 1}
	if f.oldPath == devNull {
		f.oldPath = ""
	}
	if f.newPath == devNull {
		f.newPath = ""
	}
	return f, nil
}

// headerPath reads the path of a ---/+++ line: up to a tab (diff -u puts
// the time after one), or a quoted string as git writes odd names.
func headerPath(s string, line int) (string, error) {
	s = strings.TrimSuffix(s, "\r")
	if strings.HasPrefix(s, `"`) {
		q, err := strconv.QuotedPrefix(s)
		if err == nil {
			p, err := strconv.Unquote(q)
			if err == nil {
				return p, nil
			}
		}
		return "", patchError(line, "the quoted path %s is not valid", s)
	}
	p, _, _ := strings.Cut(s, "\t")
	p = strings.TrimRight(p, " ")
	if p == "" {
		return "", patchError(line, "the file header has no path")
	}
	return p, nil
}

// parseHunk parses the hunk whose header is at i and returns the index of
// the line after it.
func parseHunk(lines []string, i int) (hunk, int, error) {
	m := hunkHeader.FindStringSubmatch(lines[i])
	if m == nil {
		return hunk{}, 0, patchError(i+1, "%q is not a hunk header; it should read \"@@ -start,count +start,count @@\"", lines[i])
	}
	num := func(s string, def int) int {
		if s == "" {
			return def
		}
		n, _ := strconv.Atoi(s)
		return n
	}
	h := hunk{header: m[0], oldStart: num(m[1], 0), newStart: num(m[3], 0)}
	oldCount, newCount := num(m[2], 1), num(m[4], 1)
	var last byte // the kind of the previous body line
	for i++; i < len(lines); i++ {
		l := lines[i]
		need := len(h.old) < oldCount || len(h.new) < newCount
		if l == "" {
			// A blank context line whose space an editor trimmed: so only
			// while the counts want more, or when more body follows.
			if !need && !(i+1 < len(lines) && isBody(lines, i+1)) {
				break
			}
			l = " "
		}
		if l[0] == '\\' {
			switch last {
			case ' ':
				h.oldNoEOL, h.newNoEOL = true, true
			case '-':
				h.oldNoEOL = true
			case '+':
				h.newNoEOL = true
			}
			continue
		}
		if !need && !isBody(lines, i) {
			break
		}
		if need && isFileHeader(lines, i) && i+2 < len(lines) && strings.HasPrefix(lines[i+2], "@@") {
			break // the next file: the counts were too large
		}
		switch l[0] {
		case ' ':
			h.old = append(h.old, l[1:])
			h.new = append(h.new, l[1:])
		case '-':
			h.old = append(h.old, l[1:])
			h.removed++
		case '+':
			h.new = append(h.new, l[1:])
			h.added++
		default:
			// Fewer lines than the header counts: the counts were wrong.
			return h, i, h.check(i)
		}
		last = l[0]
	}
	return h, i, h.check(i)
}

func (h hunk) check(line int) error {
	if h.added == 0 && h.removed == 0 {
		return patchError(line, "the hunk %s adds and removes nothing", h.header)
	}
	return nil
}

// isBody reports whether line i reads as a hunk's body line once the
// hunk's counts are met: it starts with " ", "-" or "+", and is not the
// ---/+++ header of the next file.
func isBody(lines []string, i int) bool {
	l := lines[i]
	if l == "" || !strings.ContainsRune(" -+", rune(l[0])) {
		return false
	}
	return !isFileHeader(lines, i)
}

// isFileHeader reports whether lines i and i+1 are a file's ---/+++ lines.
func isFileHeader(lines []string, i int) bool {
	return strings.HasPrefix(lines[i], "--- ") && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "+++ ")
}
