import { cleanup, render } from "@testing-library/react";
import { createElement, type ComponentProps } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { appendStreamed, type Streamed } from "../../store/reducer";
import { settledLength } from "../../ui/markdownStream";
import { advance, StreamedText } from "./StreamedText";

// Every text Markdown is asked to parse, by StreamedText or by the whole-
// text renderer these tests compare it with.
const parsed = vi.hoisted(() => ({ chars: 0 }));
vi.mock("../../ui/markdown", async (importOriginal) => {
  const m = await importOriginal<typeof import("../../ui/markdown")>();
  return {
    ...m,
    Markdown: function CountedMarkdown(props: ComponentProps<typeof m.Markdown>) {
      parsed.chars += props.text.length;
      return createElement(m.Markdown, props);
    },
  };
});
const { Markdown } = await import("../../ui/markdown");

afterEach(cleanup);

// Texts a model writes, with what makes splitting them hard: a fence with
// blank lines inside (open, then closed; backticks and tildes), lists
// broken by blank lines (a loose list, an item's second paragraph, code in
// an item), CRLF line ends, blank lines of spaces, emphasis across a line
// end, a table, an HTML comment with blank lines, indented code.
const corpus = [
  "The notes are tidy now.\n\nWhat changed:\n\n- a.md: spelling\n- b.md: headings\n\nNothing else.",
  "Here is the fix:\n\n```go\nfunc main() {\n\n\tfmt.Println(\"hi\")\n\n}\n```\n\nRun it with `go run .`\n\n",
  "1. first\n2. second\n\n3. third after a gap\n   \n# Title\n\n**bold\nacross** lines\r\n\r\nand CRLF\r\n\r\nend",
  "````\nan open fence\n\nwith a gap and ``` inside\n\nnever closed",
  "- [x] one\n\n- [ ] two, loose\n\n  its second paragraph\n\n  ```sh\n  echo hi\n\n  echo there\n  ```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n~~~\ntilde\n\n~~~\n\n<!-- a\n\ncomment -->\n\n    indented\n\n    code\n\n---\n\n> quoted\n\nend",
];

// chunked splits text into deltas of a few characters, as a model streams.
function chunked(text: string, seed: number): string[] {
  const out: string[] = [];
  let r = seed;
  for (let i = 0; i < text.length; ) {
    r = (r * 1103515245 + 12345) % 2147483648;
    const n = 1 + (r % 7);
    out.push(text.slice(i, i + n));
    i += n;
  }
  return out;
}

// html is what Markdown draws of text (parts recur: drawn once).
const drawn = new Map<string, string>();
const html = (text: string) => {
  let h = drawn.get(text);
  if (h === undefined) {
    const r = render(<Markdown text={text} />);
    h = r.container.innerHTML;
    r.unmount();
    drawn.set(text, h);
  }
  return h;
};

describe("settledLength", () => {
  it("splits a text where rendering the two parts is rendering the whole", () => {
    for (const text of corpus) {
      for (let end = 0; end <= text.length; end++) {
        const s = text.slice(0, end);
        const k = settledLength(s);
        expect(k).toBeGreaterThanOrEqual(0);
        expect(k).toBeLessThanOrEqual(s.length);
        if (k > 0) expect(html(s.slice(0, k)) + html(s.slice(k)), JSON.stringify([s.slice(0, k), s.slice(k)])).toBe(html(s));
        // What settled stays settled as the text grows.
        if (end > 0) expect(k).toBeGreaterThanOrEqual(settledLength(text.slice(0, end - 1)));
      }
    }
  }, 60_000);
});

describe("StreamedText", () => {
  it("shows, after every delta, what Markdown of the whole text so far shows", () => {
    for (const [i, text] of corpus.entries()) {
      let s: Streamed | undefined;
      let so = "";
      const view = render(<StreamedText streamed={s} renderText={(t) => t} />);
      const whole = render(<Markdown text="" />);
      for (const d of chunked(text, i + 1)) {
        s = appendStreamed(s, d);
        so += d;
        view.rerender(<StreamedText streamed={s} renderText={(t) => t} />);
        whole.rerender(<Markdown text={so} />);
        expect(view.container.innerHTML).toBe(whole.container.innerHTML);
      }
      view.unmount();
      whole.unmount();
    }
  });

  it("parses what a delta added and the part it is in, not the whole text again", () => {
    const paragraph = "streaming words into the transcript at a steady pace, ".repeat(3).trim();
    const text = Array.from({ length: 12 }, (_, i) => `## Part ${i + 1}\n\n${paragraph}`).join("\n\n");
    const deltas = text.split(/(?<= )/);
    const renderText = (t: string) => t;
    let s: Streamed | undefined;
    let whole = 0; // what re-parsing the whole text on each delta would parse
    parsed.chars = 0;
    const view = render(<StreamedText streamed={s} renderText={renderText} />);
    for (const d of deltas) {
      s = appendStreamed(s, d);
      whole += s.end;
      view.rerender(<StreamedText streamed={s} renderText={renderText} />);
    }
    // Each delta parses its paragraph so far; each paragraph is parsed once
    // more when it settles.
    expect(parsed.chars).toBeLessThan(whole / 5);
    expect(view.container.innerHTML).toBe(render(<Markdown text={text} />).container.innerHTML);
  });

  it("reads only the deltas added since it last drew, and starts afresh for another attempt", () => {
    let s: Streamed | undefined;
    for (const d of ["Hello, ", "world.\n\n", "Next"]) s = appendStreamed(s, d);
    const a = advance({ parts: [], tail: "" }, s);
    expect(a).toEqual({ head: s, parts: ["Hello, world.\n\n"], tail: "Next" });
    const s2 = appendStreamed(s, " paragraph");
    const b = advance(a, s2);
    expect(b.parts).toBe(a.parts);
    expect(b.tail).toBe("Next paragraph");
    // A retried call streams a new text: nothing of the old one is kept.
    const other = appendStreamed(undefined, "Second try.");
    expect(advance(b, other)).toEqual({ head: other, parts: [], tail: "Second try." });
  });
});
