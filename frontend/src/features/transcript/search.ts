// Search in a run's transcript, as pure functions: which nodes match a
// query, by their text, their tool's name, arguments and output, a model
// call's tool calls, errors and answers. Case-insensitive.

import type { RunTranscript, TranscriptNode } from "../../store/reducer";
import { pretty } from "../../ui/format";

// haystacks: a node is immutable, so its searchable text is kept with it.
const haystacks = new WeakMap<TranscriptNode, string>();

// haystack is everything a search looks at in a node, in lower case.
export function haystack(n: TranscriptNode): string {
  let h = haystacks.get(n);
  if (h !== undefined) return h;
  const parts: string[] = [n.label, n.error ?? ""];
  switch (n.kind) {
    case "user":
      parts.push(n.text);
      break;
    case "llm":
      parts.push(n.text);
      for (const c of n.toolCalls ?? []) parts.push(c.name, pretty(c.arguments));
      for (const a of n.attempts ?? []) parts.push(a.error);
      break;
    case "tool": {
      parts.push(n.tool, pretty(n.arguments), n.output ?? "", n.code ?? "");
      const a = n.approval;
      if (a) parts.push(a.question?.text ?? "", a.feedback ?? "", a.text ?? "", ...(a.choices ?? []), pretty(a.editedArguments));
      for (const f of n.files ?? []) parts.push(f.path);
      break;
    }
  }
  h = parts.join("\n").toLowerCase();
  haystacks.set(n, h);
  return h;
}

// searchTranscript is the ids of the nodes that match query, in transcript
// order; an empty (or blank) query matches nothing.
export function searchTranscript(t: RunTranscript | undefined, query: string): string[] {
  const q = query.trim().toLowerCase();
  if (!t || q === "") return [];
  const out: string[] = [];
  for (const id of t.nodeOrder) {
    const n = t.nodes[id];
    if (n && haystack(n).includes(q)) out.push(id);
  }
  return out;
}

// splitMatches cuts text into the parts that do and do not match query, for
// highlighting; no query gives the text whole.
export function splitMatches(text: string, query: string): { text: string; match: boolean }[] {
  const q = query.trim().toLowerCase();
  if (q === "" || text === "") return [{ text, match: false }];
  const lower = text.toLowerCase();
  // A few characters change length in lower case: positions would not match.
  if (lower.length !== text.length) return [{ text, match: false }];
  const out: { text: string; match: boolean }[] = [];
  let i = 0;
  for (;;) {
    const j = lower.indexOf(q, i);
    if (j < 0) break;
    if (j > i) out.push({ text: text.slice(i, j), match: false });
    out.push({ text: text.slice(j, j + q.length), match: true });
    i = j + q.length;
  }
  if (i < text.length) out.push({ text: text.slice(i), match: false });
  return out.length ? out : [{ text, match: false }];
}
