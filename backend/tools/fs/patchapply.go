package fs

import (
	"fmt"
	"strings"
)

// MaxPatchFuzz is how far from the line its header states a hunk is looked
// for: line numbers written by hand or by a model are often a little off,
// but a hunk far from where it says is more likely meant for another place.
const MaxPatchFuzz = 100

// text is a file as lines: without their "\n" (a "\r" stays), and whether
// the last one ends with "\n".
type text struct {
	lines []string
	eol   bool
	crlf  bool // the file's lines end with "\r\n": added lines get one too
}

func splitText(b []byte) text {
	if len(b) == 0 {
		return text{eol: true}
	}
	s := string(b)
	t := text{eol: strings.HasSuffix(s, "\n")}
	t.lines = strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	t.crlf = strings.HasSuffix(t.lines[0], "\r")
	return t
}

func (t text) bytes() []byte {
	if len(t.lines) == 0 {
		return []byte{}
	}
	s := strings.Join(t.lines, "\n")
	if t.eol {
		s += "\n"
	}
	return []byte(s)
}

// sameLine compares a line of the file with one of the patch; a "\r" at the
// end of either does not count, so a patch made with "\n" applies to a file
// with "\r\n" line ends.
func sameLine(file, patch string) bool {
	return strings.TrimSuffix(file, "\r") == strings.TrimSuffix(patch, "\r")
}

// applied is what applying one file's hunks did.
type applied struct {
	hunks, added, removed int
	notes                 []string // hunks found away from their stated line
}

// apply applies the hunks of f to t, in order; the error is a failure that
// names the hunk and the line where the file differs from the patch.
func (t *text) apply(rel string, f *filePatch, a *applied) error {
	sizeDelta := 0 // lines added minus removed by the hunks so far
	drift := 0     // how far the last hunk was from its stated line
	floor := 0     // a hunk may not start before the end of the previous one
	for k, h := range f.hunks {
		want := h.oldStart - 1 + sizeDelta + drift
		if len(h.old) == 0 {
			want = h.oldStart + sizeDelta + drift // insert after line oldStart
		}
		want = max(want, floor)
		pos := t.find(h.old, want, floor)
		if pos < 0 {
			return t.conflict(rel, k, h, want, sizeDelta)
		}
		if pos != want {
			what := "below"
			if pos < want {
				what = "above"
			}
			a.notes = append(a.notes, fmt.Sprintf("hunk %d of %s applied %s %s the line its header states", k+1, rel, count(int64(abs(pos-want)), "line", "lines"), what))
		}
		atEnd := pos+len(h.old) == len(t.lines)
		repl := make([]string, len(h.new))
		for i, l := range h.new {
			if t.crlf && !strings.HasSuffix(l, "\r") {
				l += "\r"
			}
			repl[i] = l
		}
		t.lines = append(t.lines[:pos:pos], append(repl, t.lines[pos+len(h.old):]...)...)
		if atEnd {
			switch {
			case h.newNoEOL:
				t.eol = false
			case h.oldNoEOL:
				t.eol = true
			}
		}
		drift += pos - want
		sizeDelta += len(h.new) - len(h.old)
		floor = pos + len(h.new)
		a.hunks++
		a.added += h.added
		a.removed += h.removed
	}
	return nil
}

// find returns where old lies in the file nearest to want, at most
// MaxPatchFuzz lines away and not before floor; -1 if nowhere.
func (t *text) find(old []string, want, floor int) int {
	if len(old) == 0 {
		if want <= len(t.lines) {
			return want
		}
		return -1
	}
	for d := 0; d <= MaxPatchFuzz; d++ {
		for _, pos := range []int{want - d, want + d} {
			if pos >= floor && pos+len(old) <= len(t.lines) && t.matchesAt(old, pos) {
				return pos
			}
			if d == 0 {
				break
			}
		}
	}
	return -1
}

func (t *text) matchesAt(old []string, pos int) bool {
	for i, l := range old {
		if !sameLine(t.lines[pos+i], l) {
			return false
		}
	}
	return true
}

// conflict explains why hunk k does not apply: the first line at its stated
// place that differs from the patch, and where its lines are if they are
// further away than the fuzz allows. Line numbers are those of the file on
// disk.
func (t *text) conflict(rel string, k int, h hunk, want, sizeDelta int) error {
	head := fmt.Sprintf("hunk %d of %s (%s) does not apply", k+1, rel, h.header)
	tail := "read the file again and make the patch from its current content; nothing was changed"
	disk := func(pos int) int { return pos - sizeDelta + 1 } // 1-based, before the earlier hunks
	if len(h.old) == 0 {
		return fail(CodePatchConflict, "%s: it inserts after line %d, but the file has %s; %s", head, h.oldStart, count(int64(len(t.lines)-sizeDelta), "line", "lines"), tail)
	}
	for pos := range len(t.lines) - len(h.old) + 1 {
		if t.matchesAt(h.old, pos) {
			return fail(CodePatchConflict, "%s: its lines are at line %d of the file, %d lines from the line its header states, further than the %d lines apply_patch searches; correct the @@ line numbers",
				head, disk(pos), abs(pos-want), MaxPatchFuzz)
		}
	}
	want = max(0, min(want, len(t.lines)-len(h.old)))
	for i, l := range h.old {
		p := want + i
		if p >= len(t.lines) {
			return fail(CodePatchConflict, "%s: the patch expects line %d to be\n\t%q\nbut the file ends at line %d; %s", head, disk(p), l, disk(len(t.lines)-1), tail)
		}
		if !sameLine(t.lines[p], l) {
			note := ""
			if strings.Join(strings.Fields(t.lines[p]), " ") == strings.Join(strings.Fields(l), " ") {
				note = " (they differ in whitespace only)"
			}
			return fail(CodePatchConflict, "%s: the patch expects line %d to be\n\t%q\nbut the file has\n\t%q%s\n%s", head, disk(p), strings.TrimSuffix(l, "\r"), strings.TrimSuffix(t.lines[p], "\r"), note, tail)
		}
	}
	// The lines match at the stated place yet find refused it: it overlaps
	// the previous hunk.
	return fail(CodePatchConflict, "%s: it overlaps the hunk before it; %s", head, tail)
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
