import { Fragment, useMemo, type ReactNode } from "react";

// A small Markdown renderer for model text. It builds React elements only
// (never HTML strings), so anything the model writes that is not one of the
// constructs below, HTML included, is shown as the text it is. It re-parses
// the whole text on each change, which is what streaming needs: an unclosed
// fence is a code block so far, an unclosed ** or ` is plain text until its
// closing marker arrives.
//
// Blocks: paragraphs, headings # to ###, ``` fences with an optional
// language, bulleted (- * +) and numbered lists. Inline: `code`, **bold**,
// *italic*, [text](url) for http(s) URLs only, backslash escapes.

export type Block =
  | { kind: "paragraph"; text: string }
  | { kind: "heading"; level: 1 | 2 | 3; text: string }
  | { kind: "code"; lang: string; text: string; open: boolean }
  | { kind: "list"; ordered: boolean; start: number; items: string[] };

const fenceRe = /^ {0,3}(`{3,})\s*([^`\s]*)[^`]*$/;
const headingRe = /^ {0,3}(#{1,3})(?:\s+(.*?))?(?:\s+#+)?\s*$/;
const bulletRe = /^\s*[-*+]\s+(.*)$/;
const orderedRe = /^\s*(\d{1,9})[.)]\s+(.*)$/;

// parseBlocks splits text into blocks, line by line.
export function parseBlocks(src: string): Block[] {
  const lines = src.replace(/\r\n?/g, "\n").split("\n");
  const blocks: Block[] = [];
  let para: string[] = [];
  let list: Extract<Block, { kind: "list" }> | null = null;

  const endPara = () => {
    if (para.length) blocks.push({ kind: "paragraph", text: para.join("\n") });
    para = [];
  };
  const endList = () => {
    if (list) blocks.push(list);
    list = null;
  };

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const fence = fenceRe.exec(line);
    if (fence) {
      endPara();
      endList();
      const marker = fence[1]!;
      const body: string[] = [];
      let open = true;
      for (i++; i < lines.length; i++) {
        const l = lines[i]!;
        const close = /^ {0,3}(`{3,})\s*$/.exec(l);
        if (close && close[1]!.length >= marker.length) {
          open = false;
          break;
        }
        body.push(l);
      }
      blocks.push({ kind: "code", lang: fence[2] ?? "", text: body.join("\n"), open });
      continue;
    }
    if (line.trim() === "") {
      endPara();
      endList();
      continue;
    }
    const heading = headingRe.exec(line);
    if (heading) {
      endPara();
      endList();
      blocks.push({ kind: "heading", level: heading[1]!.length as 1 | 2 | 3, text: heading[2] ?? "" });
      continue;
    }
    const bullet = bulletRe.exec(line);
    const ordered = bullet ? null : orderedRe.exec(line);
    if (bullet || ordered) {
      endPara();
      const isOrdered = !!ordered;
      const text = (bullet ? bullet[1] : ordered![2])!;
      if (!list || list.ordered !== isOrdered) {
        endList();
        list = { kind: "list", ordered: isOrdered, start: ordered ? Number(ordered[1]) : 1, items: [] };
      }
      list.items.push(text);
      continue;
    }
    // A line after a list item continues that item (lazy continuation).
    if (list) {
      const items: string[] = list.items;
      items[items.length - 1] += "\n" + line.trim();
      continue;
    }
    para.push(line);
  }
  endPara();
  endList();
  return blocks;
}

// settledLength is how much of src, a text that may still grow at its end,
// parses now as it always will: up to the end of its last complete blank
// line outside a code fence, where parseBlocks ends every open block. So
// parseBlocks(src) is parseBlocks of that prefix and then of the rest, and
// a view of streaming text parses and renders the prefix once
// (transcript/StreamedText). 0 when there is no such line.
export function settledLength(src: string): number {
  const line = /\r\n|\r|\n/g;
  let settled = 0;
  let start = 0;
  let fence: string | undefined; // the open fence's marker
  for (let m = line.exec(src); m; m = line.exec(src)) {
    // A line is complete at its end of line; a trailing \r may be half of \r\n.
    if (m[0] === "\r" && m.index + 1 === src.length) break;
    const text = src.slice(start, m.index);
    start = m.index + m[0].length;
    if (fence !== undefined) {
      const close = /^ {0,3}(`{3,})\s*$/.exec(text);
      if (close && close[1]!.length >= fence.length) fence = undefined;
      continue;
    }
    const open = fenceRe.exec(text);
    if (open) fence = open[1]!;
    else if (text.trim() === "") settled = start;
  }
  return settled;
}

export type RenderText = (text: string) => ReactNode;

const plain: RenderText = (t) => t;

// safeHref is the URL when it is an absolute http(s) URL, else undefined.
export function safeHref(url: string): string | undefined {
  if (!/^https?:\/\//i.test(url)) return undefined;
  try {
    const u = new URL(url);
    return u.protocol === "http:" || u.protocol === "https:" ? url : undefined;
  } catch {
    return undefined;
  }
}

// closing finds the end marker for an emphasis opened at from, or -1: the
// content must be non-empty and neither start nor end with a space.
function closing(src: string, from: number, marker: string): number {
  if (from >= src.length || /\s/.test(src[from]!)) return -1;
  let j = from;
  for (;;) {
    j = src.indexOf(marker, j + 1);
    if (j < 0) return -1;
    if (marker === "*" && src[j + 1] === "*") {
      // Skip a ** inside *italic*.
      const k = src.indexOf("**", j + 2);
      if (k < 0) return -1;
      j = k + 1;
      continue;
    }
    if (src[j - 1] === "\\") continue;
    // In "***" closing **bold *italic***, the last two stars close the bold.
    if (marker === "**") while (src[j + 2] === "*") j++;
    if (!/\s/.test(src[j - 1]!)) return j;
  }
}

// parseInline turns one block's text into React nodes.
export function parseInline(src: string, renderText: RenderText = plain): ReactNode[] {
  const out: ReactNode[] = [];
  let buf = "";
  const flush = () => {
    if (buf) out.push(<Fragment key={out.length}>{renderText(buf)}</Fragment>);
    buf = "";
  };
  const push = (node: (key: number) => ReactNode) => {
    flush();
    out.push(node(out.length));
  };

  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (c === "\\" && i + 1 < src.length && /[!-/:-@[-`{-~]/.test(src[i + 1]!)) {
      buf += src[i + 1];
      i += 2;
      continue;
    }
    if (c === "`") {
      let n = 1;
      while (src[i + n] === "`") n++;
      const ticks = "`".repeat(n);
      let j = src.indexOf(ticks, i + n);
      while (j >= 0 && src[j + n] === "`") {
        let k = j;
        while (src[k] === "`") k++;
        j = src.indexOf(ticks, k);
      }
      if (j < 0) {
        buf += ticks;
        i += n;
        continue;
      }
      let code = src.slice(i + n, j);
      if (code.length > 2 && code.startsWith(" ") && code.endsWith(" ") && code.trim()) code = code.slice(1, -1);
      push((key) => <code key={key}>{renderText(code)}</code>);
      i = j + n;
      continue;
    }
    if (c === "*" && src[i + 1] === "*") {
      const j = closing(src, i + 2, "**");
      if (j > i + 2) {
        const inner = src.slice(i + 2, j);
        push((key) => <strong key={key}>{parseInline(inner, renderText)}</strong>);
        i = j + 2;
        continue;
      }
      buf += "**";
      i += 2;
      continue;
    }
    if (c === "*") {
      const j = closing(src, i + 1, "*");
      if (j > i + 1) {
        const inner = src.slice(i + 1, j);
        push((key) => <em key={key}>{parseInline(inner, renderText)}</em>);
        i = j + 1;
        continue;
      }
      buf += c;
      i++;
      continue;
    }
    if (c === "[") {
      const link = /^\[((?:[^\[\]\\]|\\.)*)\]\(\s*(\S+?)\s*\)/.exec(src.slice(i));
      if (link) {
        const href = safeHref(link[2]!);
        if (href) {
          const label = link[1]!;
          push((key) => (
            <a key={key} href={href} target="_blank" rel="noreferrer noopener">
              {parseInline(label, renderText)}
            </a>
          ));
        } else {
          // Any other scheme (javascript:, data:, relative) stays text.
          buf += link[0];
        }
        i += link[0].length;
        continue;
      }
    }
    buf += c;
    i++;
  }
  flush();
  return out;
}

function renderBlock(b: Block, key: number, renderText: RenderText): ReactNode {
  switch (b.kind) {
    case "paragraph":
      return <p key={key}>{parseInline(b.text, renderText)}</p>;
    case "heading": {
      // # is an h3: the page and the transcript own the levels above.
      const H = `h${b.level + 2}` as "h3" | "h4" | "h5";
      return (
        <H key={key} className={`md-h${b.level}`}>
          {parseInline(b.text, renderText)}
        </H>
      );
    }
    case "code":
      return (
        <pre key={key} className="md-code" data-lang={b.lang || undefined} data-open={b.open ? "true" : undefined}>
          <code className={b.lang ? `language-${b.lang}` : undefined}>{renderText(b.text)}</code>
        </pre>
      );
    case "list": {
      const items = b.items.map((t, i) => <li key={i}>{parseInline(t, renderText)}</li>);
      return b.ordered ? (
        <ol key={key} start={b.start === 1 ? undefined : b.start}>
          {items}
        </ol>
      ) : (
        <ul key={key}>{items}</ul>
      );
    }
  }
}

type MarkdownProps = {
  text: string;
  // renderText renders each run of plain text, e.g. to mark search matches.
  // Pass a stable function: the parse is memoised on it.
  renderText?: RenderText;
};

// Markdown renders text as Markdown blocks.
export function Markdown({ text, renderText = plain }: MarkdownProps) {
  const nodes = useMemo(() => parseBlocks(text).map((b, i) => renderBlock(b, i, renderText)), [text, renderText]);
  return <>{nodes}</>;
}
