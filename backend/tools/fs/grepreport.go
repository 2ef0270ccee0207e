package fs

import (
	"fmt"
	"strconv"
	"strings"
)

// collector takes the results of grep's searchers in the walk's order and
// builds the output: the first max matching lines, then counts. It is
// owned by the goroutine of the call.
type collector struct {
	max int // matching lines to show

	out       strings.Builder
	shown     int  // lines in out
	full      bool // out is full: further matches are only counted
	left      int  // matching lines not shown
	leftFiles int  // files with matching lines not shown
	afterFull int  // files searched since out became full
	stopped   bool // the search ended before the walk did

	files                     int // files searched
	binary, large, unreadable int // files skipped
	unreadableDirs            int
	// hidden says which files the run may not see (call.hidden); nil
	// hides none. withheld counts the files it hid.
	hidden   func(rel string, link bool) bool
	withheld int

	pending map[int]fileResult // results ahead of next
	next    int                // the place of the next result to emit
}

// emit adds the result of the next file in order.
func (c *collector) emit(r fileResult) {
	switch r.skip {
	case skipBinary:
		c.binary++
		return
	case skipLarge:
		c.large++
		return
	case skipUnreadable:
		c.unreadable++
		return
	}
	c.files++
	if c.full {
		c.left += r.matches
		if r.matches > 0 {
			c.leftFiles++
		}
		c.afterFull++
		c.stopped = c.afterFull >= grepCountFiles
		return
	}
	shown := 0
	for _, l := range r.lines {
		if c.shown >= c.max || c.out.Len()+len(l) > maxGrepOutput {
			break
		}
		c.out.WriteString(l)
		c.shown++
		shown++
	}
	if rest := r.matches - shown; rest > 0 {
		c.left += rest
		c.leftFiles++
		c.full = true
	}
	if c.shown >= c.max {
		c.full = true
	}
}

// report returns grep's output.
func (c *collector) report(args grepArgs, rel string, filtered bool) string {
	var b strings.Builder
	where := quote(rel)
	if rel == "." {
		where = "the workspace"
	}
	switch {
	case c.shown == 0 && c.left == 0 && c.files == 0 && filtered:
		fmt.Fprintf(&b, "no files in %s match glob %s\n", where, strconv.Quote(args.Glob))
	case c.shown == 0 && c.left == 0:
		fmt.Fprintf(&b, "no matches for %s in %s (%s searched)\n", strconv.Quote(args.Pattern), where, count(int64(c.files), "file", "files"))
	default:
		b.WriteString(c.out.String())
	}
	if c.left > 0 {
		hint := "narrow the search with path, glob or a more precise pattern"
		if c.max < MaxGrepResults && c.shown == c.max {
			hint = fmt.Sprintf("raise max_results (at most %d) or %s", MaxGrepResults, hint)
		}
		if c.stopped {
			fmt.Fprintf(&b, "… at least %s not shown (the search stopped early); %s\n",
				count(int64(c.left), "more matching line", "more matching lines"), hint)
		} else {
			fmt.Fprintf(&b, "… %s in %s not shown; %s\n",
				count(int64(c.left), "more matching line", "more matching lines"), count(int64(c.leftFiles), "file", "files"), hint)
		}
	}
	var skipped []string
	if c.binary > 0 {
		skipped = append(skipped, count(int64(c.binary), "binary file", "binary files"))
	}
	if c.large > 0 {
		skipped = append(skipped, count(int64(c.large), "file", "files")+fmt.Sprintf(" over %d MiB", MaxGrepFileBytes>>20))
	}
	if c.unreadable > 0 {
		skipped = append(skipped, count(int64(c.unreadable), "unreadable file", "unreadable files"))
	}
	if c.unreadableDirs > 0 {
		skipped = append(skipped, count(int64(c.unreadableDirs), "unreadable directory", "unreadable directories"))
	}
	if len(skipped) > 0 {
		fmt.Fprintf(&b, "(skipped %s)\n", strings.Join(skipped, ", "))
	}
	b.WriteString(withheldNote(c.withheld, "file", "files"))
	return b.String()
}
