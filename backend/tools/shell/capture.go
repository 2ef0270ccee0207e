package shell

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Default caps of a command's output: the start says what the command did,
// the end how it ended (the error, the summary of a test run), and the
// middle is what a model can best do without.
const (
	DefaultHeadBytes = 16 << 10
	DefaultTailBytes = 16 << 10
)

// lineSlack is how far a cut may move to fall between lines rather than
// inside one.
const lineSlack = 2 << 10

// capture keeps the head and the tail of a stream in bounded memory, however
// long the stream, and counts what it drops in between.
type capture struct {
	headMax, tailMax int
	head             []byte
	tail             []byte // the latest bytes after head; up to 2*tailMax before compaction
	dropped          int64  // bytes that left tail's front
	total            int64
	newlines         int64
}

func newCapture(headMax, tailMax int) *capture {
	return &capture{headMax: headMax, tailMax: tailMax, head: make([]byte, 0, headMax), tail: make([]byte, 0, 2*tailMax)}
}

func (c *capture) write(p []byte) {
	c.total += int64(len(p))
	c.newlines += int64(bytes.Count(p, []byte{'\n'}))
	if n := c.headMax - len(c.head); n > 0 {
		k := min(n, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	switch {
	case len(p) == 0:
	case len(p) >= c.tailMax:
		c.dropped += int64(len(c.tail) + len(p) - c.tailMax)
		c.tail = append(c.tail[:0], p[len(p)-c.tailMax:]...)
	default:
		c.tail = append(c.tail, p...)
		if len(c.tail) > 2*c.tailMax {
			// Compacting once per tailMax bytes keeps the copying linear.
			drop := len(c.tail) - c.tailMax
			c.dropped += int64(drop)
			c.tail = c.tail[:copy(c.tail, c.tail[drop:])]
		}
	}
}

// readFrom copies r into c until r fails, and returns the error: io.EOF when
// every writer closed it, os.ErrDeadlineExceeded when Exec stopped waiting on
// a pipe that a stray process holds open.
func (c *capture) readFrom(r io.Reader) error {
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		c.write(buf[:n])
		if err != nil {
			return err
		}
	}
}

// text returns what was kept, valid UTF-8, with a marker saying how many
// bytes and lines were cut from the middle, and the number of bytes cut.
func (c *capture) text() (string, int64) {
	tail, dropped := c.tail, c.dropped
	if len(tail) > c.tailMax {
		dropped += int64(len(tail) - c.tailMax)
		tail = tail[len(tail)-c.tailMax:]
	}
	if dropped == 0 {
		return strings.ToValidUTF8(string(c.head)+string(tail), "\uFFFD"), 0
	}
	h, t := cutHead(c.head), cutTail(tail)
	cut := c.total - int64(len(h)) - int64(len(t))
	lines := c.newlines - int64(bytes.Count(h, []byte{'\n'})) - int64(bytes.Count(t, []byte{'\n'}))
	var b strings.Builder
	b.Write(h)
	if len(h) > 0 && h[len(h)-1] != '\n' {
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "… [%d bytes (%s) cut from the middle of the output] …\n", cut, plural(lines, "line", "lines"))
	b.Write(t)
	return strings.ToValidUTF8(b.String(), "\uFFFD"), cut
}

// cutHead ends h after a line when one ends near its end, else on a rune
// boundary.
func cutHead(h []byte) []byte {
	if i := bytes.LastIndexByte(h, '\n'); i >= 0 && len(h)-(i+1) <= lineSlack {
		return h[:i+1]
	}
	for i := len(h) - 1; i >= 0 && i >= len(h)-utf8.UTFMax; i-- {
		if utf8.RuneStart(h[i]) {
			if !utf8.FullRune(h[i:]) {
				return h[:i]
			}
			break
		}
	}
	return h
}

// cutTail starts t at a line when one starts near its start, else on a rune
// boundary.
func cutTail(t []byte) []byte {
	if i := bytes.IndexByte(t, '\n'); i >= 0 && i < lineSlack && i+1 < len(t) {
		return t[i+1:]
	}
	for i := 0; i < len(t) && i < utf8.UTFMax; i++ {
		if utf8.RuneStart(t[i]) {
			return t[i:]
		}
	}
	return t
}

func plural(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
