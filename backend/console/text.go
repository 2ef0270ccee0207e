package console

import (
	"io"
	"regexp"
	"strings"
)

// modelText prints the text of one model call as it streams. Plain, it is
// the text as written, each delta as it comes. In colour it is Markdown
// drawn for the terminal (renderMarkdown), a block at a time: a terminal
// cannot redraw what it printed, so a part is printed once it is settled,
// and the rest when the call's text ends.
type modelText struct {
	out     io.Writer
	color   bool
	pending string // in colour: the text not printed yet
	printed bool   // in colour: a part of this text is printed
}

func (m *modelText) write(s string) {
	if !m.color {
		_, _ = io.WriteString(m.out, scrub(s))
		return
	}
	m.pending += s
	if cut := settled(m.pending); cut > 0 {
		m.part(m.pending[:cut])
		m.pending = m.pending[cut:]
	}
}

// end prints what is left of the text and ends its last line.
func (m *modelText) end() {
	if !m.color {
		_, _ = io.WriteString(m.out, "\n")
		return
	}
	m.part(m.pending)
	m.pending, m.printed = "", false
}

func (m *modelText) part(src string) {
	if strings.TrimSpace(src) == "" {
		return
	}
	if m.printed {
		_, _ = io.WriteString(m.out, "\n") // the blank line between blocks
	}
	_, _ = io.WriteString(m.out, renderMarkdown(src))
	m.printed = true
}

var (
	fenceOpen  = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})")
	fenceClose = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})[ \t]*$")
)

// settled is how much of src, a text that may still grow, can be drawn
// now: up to the end of its last complete blank line outside a code
// fence. A list or a paragraph broken there draws as it would whole but
// for the blank line a loose list has between its items; a link reference
// defined after the cut is not known before it.
func settled(src string) int {
	cut, start := 0, 0
	fence := "" // the open fence's marker
	for {
		nl := strings.IndexByte(src[start:], '\n')
		if nl < 0 {
			return cut
		}
		line := strings.TrimSuffix(src[start:start+nl], "\r")
		start += nl + 1
		switch {
		case fence != "":
			if m := fenceClose.FindStringSubmatch(line); m != nil && m[1][0] == fence[0] && len(m[1]) >= len(fence) {
				fence = ""
			}
		case fenceOpen.MatchString(line):
			fence = fenceOpen.FindStringSubmatch(line)[1]
		case strings.TrimSpace(line) == "":
			cut = start
		}
	}
}
