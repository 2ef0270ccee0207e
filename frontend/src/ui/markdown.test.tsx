import { cleanup, render } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { Markdown } from "./markdown";

afterEach(cleanup);

const md = (text: string) => render(<div data-testid="root"><Markdown text={text} /></div>).getByTestId("root");

describe("Markdown", () => {
  it("renders paragraphs, split on blank lines", () => {
    const root = md("First line\nsame paragraph.\n\nSecond one.");
    const ps = root.querySelectorAll("p");
    expect(ps).toHaveLength(2);
    expect(ps[0]!.textContent).toBe("First line\nsame paragraph.");
    expect(ps[1]!.textContent).toBe("Second one.");
  });

  it("renders headings # to ###, and #### as text", () => {
    const root = md("# One\n## Two\n### Three\n#### Four\n#nospace");
    expect(root.querySelector(".md-h1")!.textContent).toBe("One");
    expect(root.querySelector(".md-h2")!.textContent).toBe("Two");
    expect(root.querySelector(".md-h3")!.textContent).toBe("Three");
    expect(root.querySelector("p")!.textContent).toBe("#### Four\n#nospace");
  });

  it("renders a fenced code block with its language", () => {
    const root = md("Before\n```ts\nconst a = 1 **2**;\n<b>x</b>\n```\nAfter");
    const code = root.querySelector("pre > code")!;
    expect(code.className).toBe("language-ts");
    expect(code.textContent).toBe("const a = 1 **2**;\n<b>x</b>");
    expect(code.querySelector("strong, b")).toBeNull();
    expect([...root.querySelectorAll("p")].map((p) => p.textContent)).toEqual(["Before", "After"]);
  });

  it("renders an unclosed fence as a code block so far", () => {
    const root = md("Here:\n```go\nfunc main() {\n\tfmt.Println(\"hi\")");
    const pre = root.querySelector("pre")!;
    expect(pre.dataset.open).toBe("true");
    expect(pre.textContent).toBe('func main() {\n\tfmt.Println("hi")');
  });

  it("renders inline code, bold and italic", () => {
    const root = md("Run `go test ./...` **now**, *please*, with **bold *and italic***.");
    expect(root.querySelector("code")!.textContent).toBe("go test ./...");
    expect([...root.querySelectorAll("strong")].map((e) => e.textContent)).toEqual(["now", "bold and italic"]);
    expect([...root.querySelectorAll("em")].map((e) => e.textContent)).toEqual(["please", "and italic"]);
    expect(root.textContent).toBe("Run go test ./... now, please, with bold and italic.");
  });

  it("leaves unclosed emphasis and code as text while streaming", () => {
    const root = md("Some **bold and `code");
    expect(root.querySelector("strong, code")).toBeNull();
    expect(root.textContent).toBe("Some **bold and `code");
  });

  it("renders bulleted and numbered lists", () => {
    const root = md("- one\n* **two**\n+ three\n\n3. c\n4) d\n   more of d");
    const ul = root.querySelector("ul")!;
    expect([...ul.querySelectorAll("li")].map((li) => li.textContent)).toEqual(["one", "two", "three"]);
    expect(ul.querySelector("strong")!.textContent).toBe("two");
    const ol = root.querySelector("ol")!;
    expect(ol.getAttribute("start")).toBe("3");
    expect([...ol.querySelectorAll("li")].map((li) => li.textContent)).toEqual(["c", "d\nmore of d"]);
  });

  it("links http(s) URLs only", () => {
    const root = md("See [the *docs*](https://example.com/a?b=1) and [bad](javascript:alert(1)) and [rel](/x).");
    const links = root.querySelectorAll("a");
    expect(links).toHaveLength(1);
    const a = links[0]!;
    expect(a.getAttribute("href")).toBe("https://example.com/a?b=1");
    expect(a.getAttribute("target")).toBe("_blank");
    expect(a.getAttribute("rel")).toBe("noreferrer noopener");
    expect(a.textContent).toBe("the docs");
    expect(root.textContent).toContain("[bad](javascript:alert(1))");
    expect(root.textContent).toContain("[rel](/x)");
    expect(root.innerHTML).not.toContain('href="javascript');
  });

  it("shows HTML in the text literally", () => {
    const root = md('<script>alert(1)</script> <img src=x onerror="alert(2)"> <b>hi</b>');
    expect(root.querySelector("script, img, b")).toBeNull();
    expect(root.textContent).toBe('<script>alert(1)</script> <img src=x onerror="alert(2)"> <b>hi</b>');
  });

  it("honours backslash escapes", () => {
    const root = md("a \\*literal\\* star");
    expect(root.querySelector("em")).toBeNull();
    expect(root.textContent).toBe("a *literal* star");
  });

  it("passes plain text runs through renderText", () => {
    const { container } = render(<Markdown text="**demo** script" renderText={(t) => <mark>{t}</mark>} />);
    expect([...container.querySelectorAll("mark")].map((m) => m.textContent)).toEqual(["demo", " script"]);
  });
});
