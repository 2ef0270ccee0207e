package fs

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"regexp"
	"regexp/syntax"
	"strings"
	"syscall"
	"unicode/utf8"
)

// MaxGrepFileBytes is the largest file grep searches; larger ones are
// counted as skipped (logs and data, rarely what a search is for).
const MaxGrepFileBytes = 4 << 20

// grepLineBytes caps the text shown of one matching line; a longer line is
// shown around its first match.
const grepLineBytes = 240

// lineMatcher matches a regular expression against the lines of a file.
type lineMatcher struct {
	line *regexp.Regexp // matched against one line, without its "\n"
	// whole finds candidate lines in the whole file at once, which is much
	// faster than a call per line: (?m) makes ^ and $ match at lines. nil
	// when the pattern has \A or \z, which mean something else there.
	whole *regexp.Regexp
	// endAnchor: the pattern has $, which (?m) does not match before "\r\n".
	endAnchor bool
}

// compileLines compiles an RE2 expression for line by line matching.
func compileLines(expr string, caseInsensitive bool) (*lineMatcher, error) {
	if caseInsensitive {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, err
	}
	m := &lineMatcher{line: re}
	tree, err := syntax.Parse("(?m)"+expr, syntax.Perl)
	if err != nil {
		return m, nil // per line only; cannot happen when expr compiled
	}
	textAnchor := false
	walkRegexp(tree, func(r *syntax.Regexp) {
		switch r.Op {
		case syntax.OpBeginText, syntax.OpEndText:
			textAnchor = true
		case syntax.OpEndLine:
			m.endAnchor = true
		}
	})
	if !textAnchor {
		m.whole = regexp.MustCompile("(?m)" + expr)
	}
	return m, nil
}

func walkRegexp(r *syntax.Regexp, f func(*syntax.Regexp)) {
	f(r)
	for _, s := range r.Sub {
		walkRegexp(s, f)
	}
}

// each calls match for every matching line of data with its number (from
// 1), its text (without "\n" and a final "\r") and where the first match is
// in it, until match returns false.
func (m *lineMatcher) each(data []byte, match func(n int, line []byte, loc []int) bool) {
	whole := m.whole
	if whole != nil && m.endAnchor && bytes.IndexByte(data, '\r') >= 0 {
		whole = nil // "foo$" must match "foo\r\n", which (?m) does not see
	}
	pos, n := 0, 1 // pos starts line n
	for pos < len(data) {
		start := pos
		if whole != nil {
			loc := whole.FindIndex(data[pos:])
			if loc == nil {
				return
			}
			// The line holding the match; a match of "\n" itself holds to
			// the line that "\n" ends.
			start = bytes.LastIndexByte(data[pos:pos+loc[0]], '\n') + 1 + pos
			n += bytes.Count(data[pos:start], []byte{'\n'})
		}
		end := len(data)
		if i := bytes.IndexByte(data[start:], '\n'); i >= 0 {
			end = start + i
		}
		line := bytes.TrimSuffix(data[start:end], []byte{'\r'})
		if loc := m.line.FindIndex(line); loc != nil && !match(n, line, loc) {
			return
		}
		pos, n = end+1, n+1
	}
}

// grepLine formats one match as "path:line: text".
func grepLine(rel string, n int, line []byte, loc []int) string {
	text := line
	prefix, suffix := "", ""
	if len(text) > grepLineBytes {
		from := max(0, loc[0]-grepLineBytes/3)
		for from > 0 && !utf8.RuneStart(text[from]) {
			from--
		}
		to := min(len(text), from+grepLineBytes)
		for to < len(text) && !utf8.RuneStart(text[to]) {
			to--
		}
		if from > 0 {
			prefix = "…"
		}
		if to < len(text) {
			suffix = "…"
		}
		text = text[from:to]
	}
	s := strings.ToValidUTF8(string(text), "\uFFFD")
	return fmt.Sprintf("%s:%d: %s%s%s\n", quote(rel), n, prefix, s, suffix)
}

// skip says why a file was not searched.
type skip int

const (
	searched skip = iota
	skipBinary
	skipLarge
	skipUnreadable
)

// fileResult is what searching one file found.
type fileResult struct {
	idx     int      // the file's place in the walk
	lines   []string // formatted matches, at most the call's max
	matches int      // all matching lines
	skip    skip
}

// searchFile searches the file name of the directory h (rel relative to the
// workspace). buf is the caller's reusable read buffer; limit caps the
// lines formatted (0: count only).
func (m *lineMatcher) searchFile(h *dirHandle, rel, name string, buf *[]byte, limit int) fileResult {
	var r fileResult
	// O_NONBLOCK: a named pipe swapped in for the file must not block.
	f, err := h.root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		r.skip = skipUnreadable
		return r
	}
	defer f.Close()
	fi, err := f.Stat()
	switch {
	case err != nil || !fi.Mode().IsRegular():
		r.skip = skipUnreadable
		return r
	case fi.Size() > MaxGrepFileBytes:
		r.skip = skipLarge
		return r
	}
	data, err := readInto(f, buf, int(fi.Size()))
	switch {
	case err != nil:
		r.skip = skipUnreadable
		return r
	case len(data) > MaxGrepFileBytes:
		r.skip = skipLarge
		return r
	case isBinary(data):
		r.skip = skipBinary
		return r
	}
	m.each(data, func(n int, line []byte, loc []int) bool {
		r.matches++
		if len(r.lines) < limit {
			r.lines = append(r.lines, grepLine(rel, n, line, loc))
		}
		return true
	})
	return r
}

// readInto reads f to its end, or to one byte past MaxGrepFileBytes, into
// *buf, which it grows as needed; size is the expected size.
func readInto(f *os.File, buf *[]byte, size int) ([]byte, error) {
	b := (*buf)[:0]
	if cap(b) < size+1 {
		b = make([]byte, 0, max(size+1, 64<<10))
	}
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := f.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF || len(b) > MaxGrepFileBytes {
			*buf = b
			return b, nil
		}
		if err != nil {
			return nil, err
		}
	}
}
