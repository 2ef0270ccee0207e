import { cleanup, render } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { Markdown, safeUrl } from "./markdown";

afterEach(cleanup);

const md = (text: string) => render(<div data-testid="root"><Markdown text={text} /></div>).getByTestId("root");
const texts = (root: Element, sel: string) => [...root.querySelectorAll(sel)].map((e) => e.textContent);

describe("Markdown", () => {
  it("renders paragraphs, split on blank lines, keeping line breaks", () => {
    const root = md("First line\nsame paragraph.\n\nSecond one.");
    expect(texts(root, "p")).toEqual(["First line\nsame paragraph.", "Second one."]);
    // No text between the blocks: the card shows white space as written.
    expect(root.innerHTML).toBe("<p>First line\nsame paragraph.</p><p>Second one.</p>");
  });

  it("renders headings below the page's own levels", () => {
    const root = md("# One\n## Two\n### Three\n#### Four\n#nospace");
    expect(root.querySelector("h3.md-h1")!.textContent).toBe("One");
    expect(root.querySelector("h4.md-h2")!.textContent).toBe("Two");
    expect(root.querySelector("h5.md-h3")!.textContent).toBe("Three");
    expect(root.querySelector("h6.md-h4")!.textContent).toBe("Four");
    expect(root.querySelector("p")!.textContent).toBe("#nospace");
    expect(root.querySelector("h1, h2")).toBeNull();
  });

  it("colours fenced code of a known language, its text kept as text", () => {
    const root = md("Before\n```ts\nconst a = 1 **2**;\n<b>x</b>\n```\nAfter");
    const pre = root.querySelector("pre.md-code")!;
    expect(pre.getAttribute("data-lang")).toBe("ts");
    const code = pre.querySelector("code")!;
    expect(code.className).toBe("language-ts hljs");
    expect(code.querySelector(".hljs-keyword")!.textContent).toBe("const");
    expect(code.textContent).toBe("const a = 1 **2**;\n<b>x</b>\n");
    expect(code.querySelector("strong, b")).toBeNull();
    expect(texts(root, "p")).toEqual(["Before", "After"]);
  });

  it("shows code of an unknown language, or none, uncoloured, and knows aliases and ~~~ fences", () => {
    const root = md("```brainfuck\n+[-]\n```\n\n```\nplain\n```\n\n~~~sh\necho hi\n~~~\n\n```golang\nfunc f() {}\n```");
    const codes = [...root.querySelectorAll("pre code")];
    expect(codes.map((c) => c.className)).toEqual(["language-brainfuck", "", "language-sh hljs", "language-golang hljs"]);
    expect(codes[0]!.children).toHaveLength(0);
    expect(codes[2]!.textContent).toBe("echo hi\n");
    expect(codes[3]!.querySelector(".hljs-keyword")!.textContent).toBe("func");
  });

  it("renders an unclosed fence as a code block so far", () => {
    const root = md("Here:\n```go\nfunc main() {\n\tfmt.Println(\"hi\")");
    expect(root.querySelector("pre")!.textContent).toBe('func main() {\n\tfmt.Println("hi")\n');
  });

  it("renders inline code, bold, italic and strikethrough", () => {
    const root = md("Run `go test ./...` **now**, *please*, with **bold *and italic*** and ~~not~~ this.");
    expect(root.querySelector("code")!.textContent).toBe("go test ./...");
    expect(texts(root, "strong")).toEqual(["now", "bold and italic"]);
    expect(texts(root, "em")).toEqual(["please", "and italic"]);
    expect(texts(root, "del")).toEqual(["not"]);
    expect(root.textContent).toBe("Run go test ./... now, please, with bold and italic and not this.");
  });

  it("leaves unclosed emphasis and code as text while streaming", () => {
    const root = md("Some **bold and `code");
    expect(root.querySelector("strong, code")).toBeNull();
    expect(root.textContent).toBe("Some **bold and `code");
  });

  it("renders bulleted, numbered and nested lists", () => {
    const root = md("- one\n- **two**\n  - two.a\n\n3. c\n4. d\n   more of d");
    const ul = root.querySelector("ul")!;
    expect(texts(ul, ":scope > li")).toEqual(["one", "twotwo.a"]);
    expect(ul.querySelector("li > ul > li")!.textContent).toBe("two.a");
    const ol = root.querySelector("ol")!;
    expect(ol.getAttribute("start")).toBe("3");
    expect(texts(ol, "li")).toEqual(["c", "d\nmore of d"]);
  });

  it("renders task lists with boxes nobody can tick", () => {
    const root = md("- [x] tests pass\n- [ ] docs written");
    const boxes = [...root.querySelectorAll<HTMLInputElement>("input[type=checkbox]")];
    expect(boxes.map((b) => [b.checked, b.disabled, b.getAttribute("aria-label")])).toEqual([
      [true, true, "done"],
      [false, true, "not done"],
    ]);
    expect(texts(root, "li").map((t) => t!.trim())).toEqual(["tests pass", "docs written"]);
  });

  it("renders tables with their alignment, in a box of their own", () => {
    const root = md("| name | size |\n| :--- | ---: |\n| a.md | 12 | extra |\n| b.md |");
    const table = root.querySelector(".md-table > table")!;
    expect(texts(table, "th")).toEqual(["name", "size"]);
    expect([...table.querySelectorAll("tbody tr")].map((tr) => texts(tr, "td"))).toEqual([
      ["a.md", "12"], // a cell past the header's is dropped
      ["b.md", ""],
    ]);
    expect((table.querySelector("td:nth-child(2)") as HTMLElement).style.textAlign).toBe("right");
  });

  it("links bare URLs and e-mail addresses", () => {
    const root = md("See www.example.com/a and https://example.org, or write to ops@example.com.");
    expect([...root.querySelectorAll("a")].map((a) => a.getAttribute("href"))).toEqual([
      "http://www.example.com/a",
      "https://example.org/",
      "mailto:ops@example.com",
    ]);
  });
});

describe("Markdown, given hostile text", () => {
  it("links http(s) and mailto URLs only, outside the app, with no opener or referrer", () => {
    const root = md(
      "[docs](https://example.com/a?b=1) [mail](mailto:a@b.c) [js](javascript:alert(1)) [JS](JaVaScRiPt:alert(2)) " +
        "[tab](java\tscript:alert(3)) [ent](&#106;avascript:alert(4)) [vb](vbscript:msgbox) [data](data:text/html,<script>alert(5)</script>) " +
        "[rel](/api/runs) [frag](#top) <javascript:alert(6)> [ref][r]\n\n[r]: javascript:alert(7)",
    );
    const links = [...root.querySelectorAll("a")];
    expect(links.map((a) => a.getAttribute("href"))).toEqual(["https://example.com/a?b=1", "mailto:a@b.c"]);
    for (const a of links) {
      expect(a.getAttribute("target")).toBe("_blank");
      expect(a.getAttribute("rel")).toBe("noopener noreferrer");
    }
    // The others are their text, linking nowhere.
    for (const label of ["js", "JS", "ent", "vb", "data", "rel", "frag", "ref"]) expect(root.textContent).toContain(` ${label}`);
    expect(root.innerHTML).not.toMatch(/href="(?!https:|mailto:)/);
    expect(root.innerHTML).not.toMatch(/javascript:alert\(7\)|script>/i);
  });

  it("shows HTML as the text it is", () => {
    const html = '<script>alert(1)</script> <img src=x onerror="alert(2)"> <b>hi</b> <iframe src="https://evil.example"></iframe>';
    const root = md(`${html}\n\n<div onclick="alert(3)">\n\nblock\n\n</div>\n\n<style>body{display:none}</style>`);
    expect(root.querySelector("script, img, b, iframe, div, style, [onerror], [onclick]")).toBeNull();
    expect(root.textContent).toContain(html);
    expect(root.textContent).toContain('<div onclick="alert(3)">');
    expect(root.textContent).toContain("<style>body{display:none}</style>");
  });

  it("loads no image: an image is a link to its URL, or its alt text", () => {
    const root = md("![a chart](https://tracker.example/pixel.png?run=1) ![inline](data:image/png;base64,iVBORw0KGgo=) ![js](javascript:alert(1)) ![][i]\n\n[i]: http://tracker.example/i.gif");
    expect(root.querySelector("img, picture, source, [src], [srcset]")).toBeNull();
    const images = [...root.querySelectorAll(".md-image")];
    expect(images.map((e) => [e.tagName, e.getAttribute("href"), e.textContent])).toEqual([
      ["A", "https://tracker.example/pixel.png?run=1", "a chart"],
      ["SPAN", null, "inline"],
      ["SPAN", null, "js"],
      ["A", "http://tracker.example/i.gif", "image"],
    ]);
  });

  it("gives no element an id: a message cannot clobber or repeat the page's", () => {
    const root = md("A claim[^1].\n\n[^1]: Its source.");
    expect(root.querySelector("[id]")).toBeNull();
    expect(root.querySelector("sup")!.textContent).toBe("1");
  });

  // Each within a bound generous for a slow, shared machine (the times
  // here are for jsdom, which is slower than a browser), where a parser
  // gone quadratic would take minutes.
  const within = (ms: number, f: () => void) => {
    const t0 = performance.now();
    f();
    expect(performance.now() - t0).toBeLessThan(ms);
    cleanup();
  };

  it("renders a huge table, long and wide, in bounded time", () => {
    const row = (i: number) => `| ${Array.from({ length: 12 }, (_, j) => `r${i}c${j}`).join(" | ")} |`;
    const table = [row(0), `|${" --- |".repeat(12)}`, ...Array.from({ length: 1000 }, (_, i) => row(i + 1))].join("\n");
    within(10_000, () => {
      const root = md(table); // 117 KB, about 1 s
      expect(root.querySelectorAll("tbody tr")).toHaveLength(1000);
      expect(root.querySelector("tbody tr:last-child td:last-child")!.textContent).toBe("r1000c11");
    });
    within(5_000, () => {
      const wide = md(`| ${"h | ".repeat(2000)}\n|${" - |".repeat(2000)}\n| ${"x | ".repeat(2000)}`);
      expect(wide.querySelectorAll("th")).toHaveLength(2000);
    });
  }, 30_000);

  it("renders a deep nesting and a wall of brackets in bounded time", () => {
    within(2_000, () => expect(md(">".repeat(500) + " deep").textContent).toBe("deep"));
    // Parsed as they are, 20,000 [ take 7 s: past 2,000 brackets they are text.
    within(3_000, () => expect(md("[".repeat(20000) + "x" + "]".repeat(20000)).textContent).toHaveLength(40001));
    within(3_000, () => expect(md("x" + "]".repeat(40000)).textContent).toHaveLength(40001));
    within(2_000, () => {
      const root = md("[a](https://a.example) ".repeat(1001));
      // Each URL is still linked, as a bare URL.
      expect(texts(root, "a").every((t) => t === "https://a.example")).toBe(true);
      expect(root.textContent).toContain("[a](https://a.example)");
    });
    // Up to the limit, links are links.
    within(5_000, () => expect(md("[a](https://a.example) ".repeat(1000)).querySelectorAll("a")).toHaveLength(1000));
  }, 30_000);

  it("safeUrl keeps absolute http, https and mailto URLs only", () => {
    expect(safeUrl("https://example.com/a b")).toBe("https://example.com/a%20b");
    expect(safeUrl("HTTP://EXAMPLE.COM")).toBe("http://example.com/");
    expect(safeUrl("mailto:a@b.c")).toBe("mailto:a@b.c");
    for (const bad of ["javascript:alert(1)", " javascript:alert(1)", "data:,x", "file:///etc/passwd", "/x", "//evil.example/x", "#a", "", "ws://x"]) {
      expect(safeUrl(bad)).toBeUndefined();
    }
  });
});

describe("Markdown's renderText", () => {
  it("gets every run of text, in every kind of block, and no white space between blocks", () => {
    const seen: string[] = [];
    const renderText = (t: string) => {
      seen.push(t);
      return <mark>{t}</mark>;
    };
    const { container } = render(
      <Markdown text={"**demo** script\n\n- item\n\n| cell |\n| --- |\n| `code` |\n\n```go\nfunc f() {}\n```\n\n<b>raw</b>"} renderText={renderText} />,
    );
    expect(texts(container, "strong > mark")).toEqual(["demo"]);
    expect(texts(container, "li > mark")).toEqual(["item"]);
    expect(texts(container, "th > mark")).toEqual(["cell"]);
    expect(texts(container, "td > code > mark")).toEqual(["code"]);
    expect(texts(container, "pre .hljs-keyword > mark")).toEqual(["func"]);
    expect(seen).toContain("<b>");
    expect(seen.filter((t) => /^\s*\n\s*$/.test(t))).toEqual([]);
    // Everything shown went through it.
    expect(texts(container, "mark").join("")).toBe(container.textContent);
  });
});
