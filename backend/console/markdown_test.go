package console

import (
	"bytes"
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"steward/backend/event"
	"steward/backend/store"
)

// ESC, to write the expected styles short.
const e = "\x1b["

func TestRenderMarkdown(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"paragraphs", "One line\nand the next.\n\nTwo.", "One line\nand the next.\n\nTwo.\n"},
		{"heading", "## Plan", e + "1;35m## Plan" + e + "0m\n"},
		{"inline styles", "**b** *i* `c` ~~s~~", e + "1mb" + e + "0m " + e + "3mi" + e + "0m " + e + "36mc" + e + "0m " + e + "9ms" + e + "0m\n"},
		{"tight nested list", "- one\n- two\n  - two.a\n- [x] done\n- [ ] not", "• one\n• two\n  • two.a\n• [x] done\n• [ ] not\n"},
		{"loose ordered list", "3. c\n\n4. d\n   more of d", "3. c\n\n4. d\n   more of d\n"},
		{"blockquote", "> a\n>\n> b", e + "2m│" + e + "0m a\n" + e + "2m│" + e + "0m\n" + e + "2m│" + e + "0m b\n"},
		{"code block", "```go\nfunc f() {\n\tx()\n}\n```", "    " + e + "36mfunc f() {" + e + "0m\n    " + e + "36m\tx()" + e + "0m\n    " + e + "36m}" + e + "0m\n"},
		{"code in a list item", "- run:\n\n  ```sh\n  make\n  ```", "• run:\n\n      " + e + "36mmake" + e + "0m\n"},
		{"link shows its URL", "[docs](https://example.com/d)", "docs " + e + "2m(https://example.com/d)" + e + "0m\n"},
		{"bare URL", "see https://example.com", "see " + e + "4mhttps://example.com" + e + "0m\n"},
		{"image is its alt and URL", "![chart](https://example.com/c.png)", "[image: chart] " + e + "2m(https://example.com/c.png)" + e + "0m\n"},
		{"HTML as written", "<script>alert(1)</script>\n\nan <b>inline</b> tag", "<script>alert(1)</script>\n\nan <b>inline</b> tag\n"},
		{"thematic break", "a\n\n---\n\nb", "a\n\n" + e + "2m" + strings.Repeat("─", 40) + e + "0m\n\nb\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, renderMarkdown(tt.in)); diff != "" {
				t.Errorf("renderMarkdown(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestRenderMarkdownTable(t *testing.T) {
	t.Parallel()
	got := renderMarkdown("| name | size | note |\n| :-- | --: | :-: |\n| a.md | 12 | **new** |\n| bbbbbb.md | 3 | x |")
	bar := e + "2m │ " + e + "0m"
	want := e + "1mname     " + e + "0m" + bar + e + "1msize" + e + "0m" + bar + e + "1mnote" + e + "0m\n" +
		e + "2m" + strings.Repeat("─", 9) + "─┼─" + strings.Repeat("─", 4) + "─┼─" + strings.Repeat("─", 4) + e + "0m\n" +
		"a.md     " + bar + "  12" + bar + e + "1mnew" + e + "0m\n" + // centred: "new" in 4 columns, the space after trimmed
		"bbbbbb.md" + bar + "   3" + bar + " x"
	if diff := cmp.Diff(want+"\n", got); diff != "" {
		t.Errorf("table (-want +got):\n%s", diff)
	}
}

// sgr matches the styles the renderer writes.
var sgr = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// A model's text cannot command the terminal: what is left once the
// renderer's own styles are taken out has no escape or control character.
func TestRenderMarkdownScrubsControls(t *testing.T) {
	t.Parallel()
	hostile := "title \x1b]0;pwned\x07 clip \x1b]52;c;ZXZpbA==\x07 **bold \x1b[2J** `\x1b[31mred` \x9b31m over\rwrite\r\n" +
		"[link \x1b[8m](https://example.com/\x1b[0m)\n\n| a\x1b[5m |\n| - |\n| \x00b |"
	for _, out := range []string{renderMarkdown(hostile), scrub(hostile)} {
		plain := sgr.ReplaceAllString(out, "")
		for _, r := range plain {
			if r != '\n' && r != '\t' && (r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0)) {
				t.Fatalf("control %U left in %q", r, plain)
			}
		}
		if !strings.Contains(plain, "title \uFFFD]0;pwned\uFFFD clip") {
			t.Errorf("the text around the escapes is lost: %q", plain)
		}
	}
}

// Streamed text in colour is drawn a settled part at a time, and once all
// of it is in, it is what drawing the whole text gives.
func TestModelTextStreamsByBlock(t *testing.T) {
	t.Parallel()
	text := "# Done\n\nThe notes are **tidy**.\n\n```go\nfunc f() {\n\n\treturn\n}\n```\n\n- a.md\n- b.md\n\n| file | lines |\n| --- | --: |\n| a.md | 3 |\n\nThat is all."
	for _, size := range []int{1, 3, 7, 40, len(text)} {
		var out bytes.Buffer
		m := &modelText{out: &out, color: true}
		for i := 0; i < len(text); i += size {
			m.write(text[i:min(i+size, len(text))])
			if i+size >= strings.Index(text, "\n\nThe notes")+2 && i+size < len(text) && !strings.Contains(out.String(), "# Done") {
				t.Fatalf("size %d: the heading is settled but not printed: %q", size, out.String())
			}
		}
		m.end()
		if diff := cmp.Diff(renderMarkdown(text), out.String()); diff != "" {
			t.Errorf("size %d (-whole +streamed):\n%s", size, diff)
		}
	}
}

func TestSettled(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want int
	}{
		{"no blank line yet\n", 0},
		{"para\n\nnext", 6},
		{"para\n\n", 6},
		{"para\r\n\r\nnext", 8},
		{"```\ncode\n\nstill code\n", 0},
		{"~~~\ncode\n\n~~~\n\nafter", 15},
		{"````\n```\n\n", 0}, // a shorter fence does not close it
		{"a\n\nb\n\n```\n\n", 6},
	}
	for _, tt := range tests {
		if got := settled(tt.in); got != tt.want {
			t.Errorf("settled(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

// The console prints a model call's text as written when it is not in
// colour (a pipe, a file, NO_COLOR), and drawn as Markdown when it is.
func TestFollowPrintsModelText(t *testing.T) {
	t.Parallel()
	for _, color := range []bool{false, true} {
		st, err := store.Open(filepath.Join(t.TempDir(), "steward.db"), nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		ctx := context.Background()
		evs := []event.Event{
			event.New("run_1", event.RunCreated, "", event.RunCreatedData{Agent: event.AgentRef{Name: "a", Provider: "script"}, Workspace: "/ws"}),
			event.New("run_1", event.NodeStarted, "m1", event.NodeStartedData{Kind: event.KindLLM}),
		}
		for _, d := range []string{"## Pl", "an\n\nRun **", "tests** \x1b]0;x\x07", " now.\n"} {
			evs = append(evs, event.New("run_1", event.LLMDelta, "m1", event.LLMDeltaData{Text: d}))
		}
		evs = append(evs, event.New("run_1", event.RunStatus, "", event.RunStatusData{Status: "completed"}))
		for _, ev := range evs {
			if _, err := st.Append(ctx, ev); err != nil {
				t.Fatal(err)
			}
		}
		var out bytes.Buffer
		c := &Console{Out: &out, In: strings.NewReader(""), Bus: event.NewBus(), Reader: st, Color: color}
		if _, err := c.Follow(ctx, "run_1"); err != nil {
			t.Fatal(err)
		}
		got := out.String()
		want := "## Plan\n\nRun **tests** \uFFFD]0;x\uFFFD now.\n\n"
		if color {
			want = e + "1;35m## Plan" + e + "0m\n\nRun " + e + "1mtests" + e + "0m \uFFFD]0;x\uFFFD now.\n"
		}
		if !strings.Contains(got, want) {
			t.Errorf("color %v: model text not in the output as %q:\n%q", color, want, got)
		}
		if !color && strings.Contains(got, "\x1b") {
			t.Errorf("plain output has an escape: %q", got)
		}
	}
}
