// What the browser views read of a run: which nodes are browser calls, the
// page the browser was last on, and the newest file of each kind the run
// produced. Pure functions of the reducer's state, for selectors.

import { orderGrows, type ArtifactRecord, type RunTranscript, type ToolNode, type TranscriptNode } from "../../store/reducer";

// The browser tools' names all start with this (browser_open, browser_act...).
const browserPrefix = "browser_";

export function isBrowserTool(name: string): boolean {
  return name.startsWith(browserPrefix);
}

export function isBrowserNode(n: TranscriptNode | undefined): n is ToolNode {
  return n?.kind === "tool" && isBrowserTool(n.tool);
}

// A node's tool never changes once it started, and the reducer gives
// nodeOrder a new array whenever a node is added: the browser nodes of an
// order are computed once, not on every streamed delta, and those of a
// longer order of the same run from the last ones (orderGrows).
const browserIds = new WeakMap<readonly string[], readonly string[]>();
let lastIds: { runId: string; nodeOrder: readonly string[]; ids: readonly string[] } | undefined;

// browserNodeIds lists a run's browser calls in the order they started.
export function browserNodeIds(t: RunTranscript): readonly string[] {
  let ids = browserIds.get(t.nodeOrder);
  if (!ids) {
    const last = lastIds && lastIds.runId === t.runId && orderGrows(lastIds.nodeOrder, t.nodeOrder) ? lastIds : undefined;
    const from = last ? last.nodeOrder.length : 0;
    const added: string[] = [];
    for (let i = from; i < t.nodeOrder.length; i++) if (isBrowserNode(t.nodes[t.nodeOrder[i]!])) added.push(t.nodeOrder[i]!);
    ids = last ? (added.length ? [...last.ids, ...added] : last.ids) : added;
    browserIds.set(t.nodeOrder, ids);
    lastIds = { runId: t.runId, nodeOrder: t.nodeOrder, ids };
  }
  return ids;
}

// hasBrowserActivity says whether the run used the browser: a browser call,
// or a file produced (a screenshot, a recording).
export function hasBrowserActivity(t: RunTranscript | undefined): boolean {
  return !!t && (t.artifacts.length > 0 || browserNodeIds(t).length > 0);
}

// lastBrowserNode is the run's latest browser call, finished or not.
export function lastBrowserNode(t: RunTranscript | undefined): ToolNode | undefined {
  if (!t) return undefined;
  const ids = browserNodeIds(t);
  const n = ids.length ? t.nodes[ids[ids.length - 1]!] : undefined;
  return isBrowserNode(n) ? n : undefined;
}

// lastPageNode is the latest browser call that succeeded and says which
// page the browser is on (a screenshot's output, say, does not).
export function lastPageNode(t: RunTranscript | undefined): ToolNode | undefined {
  if (!t) return undefined;
  const ids = browserNodeIds(t);
  for (let i = ids.length - 1; i >= 0; i--) {
    const n = t.nodes[ids[i]!];
    if (!isBrowserNode(n) || n.status !== "succeeded" || n.isError) continue;
    const p = pageInfo(n);
    if (p.url || p.title) return n;
  }
  return undefined;
}

// latestArtifact is the run's newest artifact of a kind.
export function latestArtifact(list: readonly ArtifactRecord[] | undefined, kind: string): ArtifactRecord | undefined {
  if (!list) return undefined;
  for (let i = list.length - 1; i >= 0; i--) if (list[i]!.kind === kind) return list[i];
  return undefined;
}

export type PageInfo = { url?: string; title?: string };

// Nodes are never changed in place (the reducer copies them), so what a
// node's output says is read once, not on every selector call.
const pages = new WeakMap<ToolNode, PageInfo>();

// pageInfo is the page a browser call left the browser on: the URL and
// title its output states, else the URL browser_open was asked for.
export function pageInfo(n: ToolNode): PageInfo {
  let p = pages.get(n);
  if (!p) {
    p = readPage(n);
    pages.set(n, p);
  }
  return p;
}

function readPage(n: ToolNode): PageInfo {
  const out = parsePage(n.output ?? "");
  const args = n.arguments;
  const asked =
    n.tool === "browser_open" && args && typeof args === "object" && typeof (args as { url?: unknown }).url === "string"
      ? (args as { url: string }).url
      : undefined;
  return { url: out.url ?? asked, title: out.title };
}

// The lines of an output searched for the page's URL and title: they head
// the output, before the snapshot's tree.
const headLines = 40;
const pageLine = /^[\s\-*#>]*(?:page\s+|current\s+)?(url|title|page)\s*[:=]\s*(.*?)\s*$/i;

// parsePage reads the page's lines from the head of a browser tool's
// output: the browser tools write `Page: "<title>"` (Go-quoted) and
// `URL: <url>`; "Title: ...", "- Page URL: ..." and "# Title = ..." are
// read too, as are the url and title fields of an output that is a JSON
// object.
export function parsePage(text: string): PageInfo {
  const head = text.trimStart();
  if (head.startsWith("{")) {
    try {
      const v = JSON.parse(head) as Record<string, unknown>;
      return { url: nonEmpty(v["url"]), title: nonEmpty(v["title"]) };
    } catch {
      // Not JSON after all: read it as lines.
    }
  }
  const info: PageInfo = {};
  for (const line of text.split("\n", headLines)) {
    const m = pageLine.exec(line);
    if (!m) continue;
    const key: keyof PageInfo = m[1]!.toLowerCase() === "url" ? "url" : "title";
    const value = unquote(m[2]!);
    if (value && info[key] === undefined) info[key] = value;
  }
  return info;
}

// unquote takes the quotes off a value: a Go-quoted string is JSON's but
// for rare escapes, which keep their backslashes.
function unquote(v: string): string {
  if (v.length >= 2 && v.startsWith('"') && v.endsWith('"')) {
    try {
      return JSON.parse(v) as string;
    } catch {
      return v.slice(1, -1);
    }
  }
  return v.replace(/^['`]+|['`]+$/g, "");
}

function nonEmpty(v: unknown): string | undefined {
  return typeof v === "string" && v !== "" ? v : undefined;
}

// bytes is a file size for a person: 900 B, 12 KB, 3.4 MB.
export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${Math.round(n / 1024)} KB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}
