// Where a text that is still growing at its end can be cut, so that the
// Markdown of the part before the cut and of the part after it is the
// Markdown of the whole, whatever is appended (transcript/StreamedText).

// A fence opens with three or more backticks (whose info string has none)
// or tildes, indented at most three spaces; it closes with as many or more
// of the same, and nothing else on the line.
const fenceOpenRe = /^ {0,3}(`{3,}(?=[^`]*$)|~{3,})/;
const fenceCloseRe = /^ {0,3}(`{3,}|~{3,})[ \t]*$/;

// The HTML blocks that blank lines do not end (CommonMark's kinds 1 to 5),
// each with what ends it. Raw HTML is drawn as text, but a blank line in one
// is not where the blocks of the text change.
const htmlBlocks: [RegExp, RegExp][] = [
  [/^ {0,3}<(script|pre|style|textarea)(\s|>|$)/i, /<\/(script|pre|style|textarea)>/i],
  [/^ {0,3}<!--/, /-->/],
  [/^ {0,3}<\?/, /\?>/],
  [/^ {0,3}<![A-Za-z]/, />/],
  [/^ {0,3}<!\[CDATA\[/, /\]\]>/],
];

// A line that may carry on the block before the blank line above it: an
// indented line (a list item's next paragraph, indented code) or a list
// item (a loose list's next item).
const mayContinueRe = /^([ \t]|[-*+](\s|$)|\d{1,9}[.)](\s|$))/;

// settledLength is how much of src, a text that may still grow at its end,
// is Markdown now as it always will be: up to the start of its last line
// that follows a blank line and cannot be part of the block before it,
// outside a code fence and an HTML block. 0 when there is none.
//
// A list's items after a blank line are the same (loose) list, so a list
// settles only as a whole, when a line after it starts something else.
//
// The one thing this does not catch: a link reference definition
// ([id]: url) or footnote ([^1]: ...) after the cut, which the whole text
// would use before it. The parts then show [text][id] as written until
// the text is complete and drawn whole.
export function settledLength(src: string): number {
  const line = /\r\n|\r|\n/g;
  let settled = 0;
  let start = 0;
  let prevBlank = false;
  let fence: string | undefined; // the open fence's marker
  let html: RegExp | undefined; // what ends the open HTML block
  for (let m = line.exec(src); m; m = line.exec(src)) {
    // A line is complete at its end of line; a trailing \r may be half of \r\n.
    if (m[0] === "\r" && m.index + 1 === src.length) break;
    const lineStart = start;
    const text = src.slice(start, m.index);
    start = m.index + m[0].length;
    if (fence !== undefined) {
      const close = fenceCloseRe.exec(text);
      if (close && close[1]![0] === fence[0] && close[1]!.length >= fence.length) fence = undefined;
      prevBlank = false;
      continue;
    }
    if (html !== undefined) {
      if (html.test(text)) html = undefined;
      prevBlank = false;
      continue;
    }
    const isBlank = text.trim() === "";
    if (prevBlank && !isBlank && !mayContinueRe.test(text)) settled = lineStart;
    prevBlank = isBlank;
    const open = fenceOpenRe.exec(text);
    if (open) {
      fence = open[1]!;
      continue;
    }
    for (const [opens, ends] of htmlBlocks) {
      if (!opens.test(text)) continue;
      // It may end on the line it opens.
      const after = text.replace(opens, "");
      if (!ends.test(after)) html = ends;
      break;
    }
  }
  // The line still growing, when its first character already says it
  // starts a block of its own.
  const rest = src.slice(start);
  if (prevBlank && fence === undefined && html === undefined && rest !== "" && !/^[\s\-*+0-9]/.test(rest)) settled = start;
  return settled;
}
