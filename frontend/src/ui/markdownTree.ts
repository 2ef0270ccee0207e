import bash from "highlight.js/lib/languages/bash";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import go from "highlight.js/lib/languages/go";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import shell from "highlight.js/lib/languages/shell";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";
import type { Element, ElementContent, Root, RootContent } from "hast";
import { createLowlight } from "lowlight";
import { SKIP, visit } from "unist-util-visit";

// The steps between parsing model text (remark, GFM) and drawing it
// (react-markdown): rehype plugins, pure functions of the HTML tree.

// The languages fenced code is coloured in: what an agent in a workspace
// writes most. Grammars cost bundle size (highlight.js's core with lowlight
// is 10 KB gzip, these thirteen 15 KB more; its 37 "common" ones would be
// 50 KB), so the list is short; a block in any other language (or
// none) is shown as it is, uncoloured. Grammars register their aliases
// (ts, js, sh, html, yml, py, rs, golang, ...).
const lowlight = createLowlight({ bash, css, diff, go, javascript, json, python, rust, shell, sql, typescript, xml, yaml });

// highlightLimit bounds the code a block is coloured in: highlight.js runs
// regular expressions over all of it, and a model can write a megabyte of
// code; past this it is shown uncoloured.
const highlightLimit = 64 * 1024;

// codeLanguage is the language of a <code> from its language-* class.
function codeLanguage(code: Element): string | undefined {
  const cls = code.properties.className;
  if (!Array.isArray(cls)) return undefined;
  for (const c of cls) if (typeof c === "string" && c.startsWith("language-")) return c.slice("language-".length).toLowerCase();
  return undefined;
}

// highlightCode colours each fenced code block of a known language: its
// text becomes highlight.js's spans (class hljs-*), text nodes only, so
// nothing the model wrote becomes markup. The <pre> gets data-lang.
export function highlightCode() {
  return (tree: Root) => {
    visit(tree, "element", (pre) => {
      if (pre.tagName !== "pre") return;
      const code = pre.children.find((c): c is Element => c.type === "element" && c.tagName === "code");
      const lang = code && codeLanguage(code);
      if (!code || !lang) return SKIP;
      pre.properties.dataLang = lang;
      const text = code.children.map((c) => (c.type === "text" ? c.value : "")).join("");
      if (!lowlight.registered(lang) || text.length > highlightLimit) return SKIP;
      code.children = lowlight.highlight(lang, text).children as ElementContent[];
      code.properties.className = [`language-${lang}`, "hljs"];
      return SKIP;
    });
  };
}

// textTag is the element tidy wraps each run of text in when asked to, for
// the renderer to draw it with a function of its own (search marks).
export const textTag = "md-text";

// Elements whose children are blocks: a newline between two of them is
// not text of the message.
const containers = new Set(["ul", "ol", "blockquote", "table", "thead", "tbody", "tfoot", "tr", "section"]);
const blocks = new Set([...containers, "p", "pre", "li", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "div"]);

const isBlock = (n: RootContent | undefined) => n?.type === "element" && blocks.has(n.tagName);
const blank = (n: RootContent) => n.type === "text" && n.value.trim() === "";

export type TidyOptions = { wrapText?: boolean };

// tidy makes the tree drawn from the tree parsed:
//   - raw HTML (a model's <script>, <img onerror=...>) becomes the text it
//     is; a block of it at the top, a paragraph of that text. react-markdown
//     would turn it into text as well; here it is so for the text runs
//     below too;
//   - no element keeps an id: a message must not clobber the page's ids,
//     nor repeat them (footnotes give every message the same ids);
//   - the newlines the converter puts between blocks go: the card keeps the
//     model's line breaks (white-space: pre-wrap), where they would be
//     blank lines, and without them the parts of a streamed text draw as
//     the whole text does (transcript/StreamedText);
//   - with wrapText, every other run of text is wrapped in a textTag.
export function tidy(options: TidyOptions = {}) {
  return (tree: Root) => {
    const walk = (parent: Root | Element, top: boolean) => {
      const kids = parent.children as RootContent[];
      const out: RootContent[] = [];
      for (let i = 0; i < kids.length; i++) {
        let n = kids[i]!;
        if (n.type === "raw") {
          n = { type: "text", value: n.value };
          if (top && n.value.trim() !== "") n = { type: "element", tagName: "p", properties: {}, children: [n] };
        }
        if (blank(n)) {
          const between = parent.type === "root" || containers.has(parent.tagName) || (parent.tagName === "li" && (isBlock(kids[i - 1]) || isBlock(kids[i + 1])));
          if (between) continue;
        }
        if (n.type === "element") {
          delete n.properties.id;
          walk(n, false);
        } else if (n.type === "text" && options.wrapText && n.value !== "") {
          n = { type: "element", tagName: textTag, properties: {}, children: [n] };
        }
        out.push(n);
      }
      parent.children = out as typeof parent.children;
    };
    walk(tree, true);
  };
}
