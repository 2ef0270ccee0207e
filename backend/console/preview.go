package console

import (
	"fmt"
	"strings"

	"steward/backend/event"
)

// maxPreviewLines bounds the diff an approval prints: a person reads the
// head in the terminal, the rest in the web UI's inbox.
const maxPreviewLines = 60

// preview prints what a call would change: its tool's diff, coloured as
// git colours it, cut at maxPreviewLines with the count of what is left,
// and the note of what the diff does not show.
func (c *Console) preview(p *event.Preview) {
	if p == nil {
		return
	}
	lines := strings.Split(strings.TrimSuffix(p.Diff, "\n"), "\n")
	if p.Diff == "" {
		lines = nil
	}
	for i, l := range lines {
		if i == maxPreviewLines {
			fmt.Fprintf(c.Out, "  %s\n", c.paint("2", fmt.Sprintf("… %d more lines", len(lines)-i)))
			break
		}
		fmt.Fprintf(c.Out, "  %s\n", c.diffLine(l))
	}
	if p.Note != "" {
		fmt.Fprintf(c.Out, "  %s\n", c.paint("2", "("+p.Note+")"))
	}
}

// diffLine is one line of a unified diff in its colour.
func (c *Console) diffLine(l string) string {
	switch {
	case strings.HasPrefix(l, "+++ "), strings.HasPrefix(l, "--- "):
		return c.paint("1", l)
	case strings.HasPrefix(l, "@@"):
		return c.paint("36", l)
	case strings.HasPrefix(l, "+"):
		return c.paint("32", l)
	case strings.HasPrefix(l, "-"):
		return c.paint("31", l)
	}
	return l
}
