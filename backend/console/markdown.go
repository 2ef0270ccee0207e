package console

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// Model text on a terminal: GitHub-flavoured Markdown parsed by goldmark,
// drawn with ANSI styles by the renderer below.
//
// Why not glamour: it added 7.4 MB to the binary (75.8 to 83.2 MB) and 23
// modules (chroma's lexers, bluemonday, lipgloss, termenv, x/net), pads
// every line with spaces to its wrap width, and asks the terminal for its
// colours on the same stdin the prompts read (unless given a style).
// goldmark and this renderer add 3.0 MB (to 78.8 MB) and one module with
// no dependencies; what is drawn here is small: styles, bullets, indents,
// table columns. Code is not coloured by language.
//
// Model text is hostile here too: it cannot write to the terminal but as
// text (control characters, escape sequences included, are replaced), a
// link shows its URL (no OSC 8 hyperlink whose label could hide it), and
// HTML is shown as written.

var markdown = goldmark.New(goldmark.WithExtensions(extension.GFM))

// ANSI styles (SGR parameters).
const (
	sgrBold      = "1"
	sgrDim       = "2"
	sgrItalic    = "3"
	sgrUnderline = "4"
	sgrStrike    = "9"
	sgrHeading   = "1;35"
	sgrCode      = "36"
)

// scrub is s with what would command the terminal taken out: a carriage
// return goes (a CRLF is a newline; a lone one would overwrite the line,
// and one delta may end between the two), other control characters but
// tab and newline, and DEL, become U+FFFD.
func scrub(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\r':
			return -1
		case r == '\n' || r == '\t':
			return r
		case unicode.IsControl(r):
			return utf8.RuneError
		}
		return r
	}, s)
}

// renderMarkdown is src drawn for a terminal: each block ends with a
// newline, and a blank line separates blocks.
func renderMarkdown(src string) string {
	source := []byte(scrub(src))
	doc := markdown.Parser().Parse(text.NewReader(source))
	r := &termRenderer{src: source}
	r.blocks(doc, "", false)
	return r.out.String()
}

type termRenderer struct {
	src []byte
	out strings.Builder
}

func style(code, s string) string {
	if s == "" {
		return ""
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

// blocks draws the block children of n, their lines after the first
// prefixed with indent, with a blank line between two unless tight (the
// items of a tight list). The caller has written the first line's prefix.
func (r *termRenderer) blocks(n ast.Node, indent string, tight bool) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if c != n.FirstChild() {
			r.next(indent, tight)
		}
		r.block(c, indent)
	}
}

// next starts the next block or item: a blank line unless tight, then the
// prefix.
func (r *termRenderer) next(indent string, tight bool) {
	if !tight {
		r.out.WriteString(strings.TrimRight(indent, " ") + "\n")
	}
	r.out.WriteString(indent)
}

// line writes s, whose lines after the first get indent, and a newline.
func (r *termRenderer) line(s, indent string) {
	r.out.WriteString(strings.ReplaceAll(s, "\n", "\n"+indent) + "\n")
}

func (r *termRenderer) block(n ast.Node, indent string) {
	switch n := n.(type) {
	case *ast.Heading:
		r.line(style(sgrHeading, strings.Repeat("#", n.Level)+" "+r.inline(n)), indent)
	case *ast.Paragraph, *ast.TextBlock:
		r.line(r.inline(n), indent)
	case *ast.ThematicBreak:
		r.line(style(sgrDim, strings.Repeat("─", 40)), indent)
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		r.code(n, indent)
	case *ast.HTMLBlock:
		var b strings.Builder
		r.lines(n, &b)
		if n.HasClosure() {
			b.Write(n.ClosureLine.Value(r.src))
		}
		r.line(strings.TrimRight(b.String(), "\n"), indent)
	case *ast.Blockquote:
		bar := style(sgrDim, "│") + " "
		r.out.WriteString(bar)
		r.blocks(n, indent+bar, false)
	case *ast.List:
		r.list(n, indent)
	case *east.Table:
		r.table(n, indent)
	default:
		r.blocks(n, indent, false)
	}
}

func (r *termRenderer) lines(n ast.Node, b *strings.Builder) {
	ls := n.Lines()
	for i := 0; i < ls.Len(); i++ {
		seg := ls.At(i)
		b.Write(seg.Value(r.src))
	}
}

// code draws a code block's lines indented and coloured, as written.
func (r *termRenderer) code(n ast.Node, indent string) {
	var b strings.Builder
	r.lines(n, &b)
	body := strings.TrimRight(b.String(), "\n")
	ls := strings.Split(body, "\n")
	for i, l := range ls {
		if i > 0 {
			r.out.WriteString(indent)
		}
		r.out.WriteString("    " + style(sgrCode, l) + "\n")
	}
}

func (r *termRenderer) list(l *ast.List, indent string) {
	num := l.Start
	for item := l.FirstChild(); item != nil; item = item.NextSibling() {
		if item != l.FirstChild() {
			r.next(indent, l.IsTight)
		}
		marker := "•"
		if l.IsOrdered() {
			marker = fmt.Sprintf("%d.", num)
			num++
		}
		r.out.WriteString(marker + " ")
		r.blocks(item, indent+strings.Repeat(" ", utf8.RuneCountInString(marker)+1), l.IsTight)
	}
}

// table draws a table's cells in columns as wide as their widest cell,
// aligned as the table says, the header in bold.
func (r *termRenderer) table(t *east.Table, indent string) {
	var rows [][]string
	var widths []int
	for row := t.FirstChild(); row != nil; row = row.NextSibling() {
		var cells []string
		for cell := row.FirstChild(); cell != nil; cell = cell.NextSibling() {
			s := strings.ReplaceAll(r.inline(cell), "\n", " ")
			if len(widths) <= len(cells) {
				widths = append(widths, 0)
			}
			widths[len(cells)] = max(widths[len(cells)], visibleWidth(s))
			cells = append(cells, s)
		}
		rows = append(rows, cells)
	}
	for i, cells := range rows {
		if i > 0 {
			r.out.WriteString(indent)
		}
		parts := make([]string, len(cells))
		for j, s := range cells {
			pad := strings.Repeat(" ", widths[j]-visibleWidth(s))
			align := east.AlignNone
			if j < len(t.Alignments) {
				align = t.Alignments[j]
			}
			switch align {
			case east.AlignRight:
				s = pad + s
			case east.AlignCenter:
				s = pad[:len(pad)/2] + s + pad[len(pad)/2:]
			default:
				s += pad
			}
			if i == 0 {
				s = style(sgrBold, s)
			}
			parts[j] = s
		}
		r.out.WriteString(strings.TrimRight(strings.Join(parts, style(sgrDim, " │ ")), " ") + "\n")
		if i == 0 {
			seps := make([]string, len(widths))
			for j, w := range widths {
				seps[j] = strings.Repeat("─", w)
			}
			r.out.WriteString(indent + style(sgrDim, strings.Join(seps, "─┼─")) + "\n")
		}
	}
}

// visibleWidth is how many columns s takes: its runes, less the styles.
func visibleWidth(s string) int {
	n := 0
	for i := 0; i < len(s); {
		if strings.HasPrefix(s[i:], "\x1b[") {
			end := strings.IndexByte(s[i:], 'm')
			if end > 0 {
				i += end + 1
				continue
			}
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		n++
	}
	return n
}

// inline is the inline children of n drawn with their styles.
func (r *termRenderer) inline(n ast.Node) string {
	var b strings.Builder
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		r.inlineNode(c, &b)
	}
	return b.String()
}

func (r *termRenderer) inlineNode(n ast.Node, b *strings.Builder) {
	switch n := n.(type) {
	case *ast.Text:
		b.Write(n.Segment.Value(r.src))
		if n.HardLineBreak() || n.SoftLineBreak() {
			b.WriteString("\n")
		}
	case *ast.String:
		b.Write(n.Value)
	case *ast.CodeSpan:
		var code strings.Builder
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			if t, ok := c.(*ast.Text); ok {
				code.Write(t.Segment.Value(r.src))
			}
		}
		b.WriteString(style(sgrCode, code.String()))
	case *ast.Emphasis:
		code := sgrItalic
		if n.Level >= 2 {
			code = sgrBold
		}
		b.WriteString(style(code, r.inline(n)))
	case *east.Strikethrough:
		b.WriteString(style(sgrStrike, r.inline(n)))
	case *ast.Link:
		r.link(b, r.inline(n), string(n.Destination))
	case *ast.Image:
		r.link(b, "[image: "+r.inline(n)+"]", string(n.Destination))
	case *ast.AutoLink:
		b.WriteString(style(sgrUnderline, string(n.URL(r.src))))
	case *east.TaskCheckBox:
		if n.IsChecked {
			b.WriteString("[x] ")
		} else {
			b.WriteString("[ ] ")
		}
	case *ast.RawHTML:
		for i := 0; i < n.Segments.Len(); i++ {
			seg := n.Segments.At(i)
			b.Write(seg.Value(r.src))
		}
	default:
		b.WriteString(r.inline(n))
	}
}

// link is a link's text and, when it says something else, its URL.
func (r *termRenderer) link(b *strings.Builder, label, url string) {
	if url == "" || label == url {
		b.WriteString(style(sgrUnderline, label))
		return
	}
	b.WriteString(label + " " + style(sgrDim, "("+url+")"))
}
