// The timeline of a run, as pure functions over the reducer's state: every
// node as a bar on one time axis, cut into what it spent its time on (the
// model answering, a tool running, a person being asked), the spans the
// run was paused, and where the run's time went in all.
//
// No clock here: the caller says what time it is. A node still open ends
// at that time, so a live view passes the clock and its bars grow; a run
// that ended is drawn to its end whatever the clock says, and a replay
// (no clock) is drawn to the last thing it knows.

import type { NodeKind, NodeStatus } from "../../api/types";
import type { RunTranscript, TranscriptNode } from "../../store/reducer";
import { terminalStatuses } from "../../store/status";
import { duration, timeLeft } from "../../ui/format";
import { turnsOf } from "../graph/fold";
import { keyArgument } from "../graph/keyArgument";
import { graphFromTranscript } from "../graph/layout";

// SpanKind is what a stretch of time was spent on.
export type SpanKind = "model" | "tool" | "waiting" | "paused";

// Share is a part of the run's time in its totals: a span kind, or other
// (the engine between calls, a queued run).
export type Share = SpanKind | "other";

// A stretch of time, in Unix milliseconds; open: it has not ended yet, and
// to is the time the timeline was drawn at.
export type Segment = { kind: SpanKind; from: number; to: number; open: boolean };

// Bar is one node's row.
export type Bar = {
  id: string;
  kind: NodeKind;
  status: NodeStatus;
  // What the row says: the tool's name or the node's label, and for a
  // tool call its key argument, as the graph's node names it (keyArgument).
  label: string;
  detail?: string;
  from: number;
  to: number;
  open: boolean;
  // What the node spent its time on, in order; none for a node that takes
  // no time (a person's message) or stands for the whole run (the agent).
  segments: Segment[];
  // Time spent waiting on a person, within the bar.
  waitingMs: number;
  costUsd?: number;
  // 1 for a tool call of a model turn (drawn under its model call), else 0.
  depth: number;
};

export type Totals = { spanMs: number; ms: Record<Share, number> };

export type Timeline = {
  start: number;
  end: number;
  bars: Bar[];
  // The spans the run was paused, in order.
  paused: Segment[];
  totals: Totals;
  costUsd: number;
  // Something in it still grows with the clock.
  live: boolean;
};

// When two kinds of time overlap (a call waits on a person while another
// runs; a pending call's bar spans a pause), the totals count the instant
// once, for the first of these: a person being asked holds the run more
// than anything else does, and nothing runs while the run is paused.
export const shareOrder: readonly Share[] = ["waiting", "paused", "tool", "model", "other"];

// shareNames say each share in a sentence: "model 62%, tools 20%, waiting for you 18%".
export const shareNames: Record<Share, string> = {
  model: "model",
  tool: "tools",
  waiting: "waiting for you",
  paused: "paused",
  other: "other",
};

const noTotals = (): Totals => ({ spanMs: 0, ms: { waiting: 0, paused: 0, tool: 0, model: 0, other: 0 } });

// timelineOf is the timeline of a run at time now (Unix ms); now undefined:
// at the last time the run's state knows of.
export function timelineOf(t: RunTranscript | undefined, now?: number): Timeline {
  const empty: Timeline = { start: 0, end: 0, bars: [], paused: [], totals: noTotals(), costUsd: 0, live: false };
  if (!t) return empty;
  const span = spanOf(t, now);
  if (!span) return empty;
  const { start, end, ended } = span;

  const inTurn = callsInTurns(t);

  const bars: Bar[] = [];
  let costUsd = 0;
  for (const id of t.nodeOrder) {
    const n = t.nodes[id];
    if (!n) continue;
    const b = barOf(n, end, inTurn.has(id));
    bars.push(b);
    costUsd += b.costUsd ?? 0;
  }
  const paused = pausedSpans(t, end);
  // A run that has not ended grows with the clock, if there is one.
  const live = !ended && now !== undefined;
  return { start, end, bars, paused, totals: totalsOf(bars, paused, start, end), costUsd, live };
}

// The tool calls of model turns, by the node order they were read from: a
// node's kind and after are fixed when it starts, so the turns change only
// when a node is added, not as the clock moves or a model call streams.
const turnCalls = new WeakMap<readonly string[], Set<string>>();

function callsInTurns(t: RunTranscript): Set<string> {
  let s = turnCalls.get(t.nodeOrder);
  if (!s) {
    s = new Set<string>();
    for (const tools of turnsOf(graphFromTranscript(t).nodes).values()) for (const id of tools) s.add(id);
    turnCalls.set(t.nodeOrder, s);
  }
  return s;
}

// spanOf is when the run's timeline starts and ends: from its first
// status or node to its terminal status (or the last thing it knows, if
// later), else to now.
function spanOf(t: RunTranscript, now: number | undefined): { start: number; end: number; ended: boolean } | undefined {
  let start = Infinity;
  let last = -Infinity;
  for (const s of t.statusLog) {
    start = Math.min(start, s.ts);
    last = Math.max(last, s.ts);
  }
  for (const id of t.nodeOrder) {
    const n = t.nodes[id];
    if (!n) continue;
    start = Math.min(start, n.startedAt);
    last = Math.max(last, n.startedAt, n.finishedAt ?? -Infinity);
    if (n.kind === "tool") last = Math.max(last, lastWait(n));
  }
  if (start === Infinity) return undefined;
  const ended = t.status !== undefined && terminalStatuses.has(t.status);
  // A clock behind the log (another machine's, a skewed one) never draws
  // a bar shorter than what was recorded.
  const end = ended || now === undefined ? last : Math.max(now, last);
  return { start, end, ended };
}

// lastWait is the last recorded time a tool call's waits on a person
// began or ended.
function lastWait(n: TranscriptNode & { kind: "tool" }): number {
  let last = -Infinity;
  if (n.approval) last = Math.max(n.approval.requestedAt, n.approval.decidedAt ?? -Infinity);
  for (const x of n.elicitations ?? []) last = Math.max(last, x.ts, x.decidedAt ?? -Infinity);
  return last;
}

// Bars of finished nodes do not change: they are kept with their node
// (immutable in the reducer's state), so a row drawn from one need not
// render again as the clock moves.
const closedBars = new WeakMap<TranscriptNode, Bar>();

function barOf(n: TranscriptNode, end: number, inTurn: boolean): Bar {
  const closed = n.finishedAt !== undefined;
  if (closed) {
    const held = closedBars.get(n);
    if (held && held.depth === (inTurn ? 1 : 0)) return held;
  }
  const from = n.startedAt;
  const to = Math.max(from, n.finishedAt ?? end);
  const open = !closed;
  let segments: Segment[] = [];
  let waitingMs = 0;
  let label = n.label;
  let detail: string | undefined;
  let costUsd: number | undefined;
  switch (n.kind) {
    case "llm":
      segments = [{ kind: "model", from, to, open }];
      costUsd = n.costUsd;
      break;
    case "tool": {
      label = n.tool || n.label;
      detail = keyArgument(n.tool, n.arguments) || undefined;
      const waits = waitsOf(n, to);
      segments = carve(from, to, open, waits);
      for (const w of segments) if (w.kind === "waiting") waitingMs += w.to - w.from;
      break;
    }
    // A person's message takes no time; the agent's bar is the whole run.
  }
  const b: Bar = { id: n.id, kind: n.kind, status: n.status, label, detail, from, to, open, segments, waitingMs, costUsd, depth: inTurn ? 1 : 0 };
  if (closed) closedBars.set(n, b);
  return b;
}

// waitsOf are the spans a tool call waited on a person: its approval (or
// question) and its MCP server's elicitations, clipped to the call's bar
// (an unanswered one ends where the bar does).
function waitsOf(n: TranscriptNode & { kind: "tool" }, to: number): { from: number; to: number; open: boolean }[] {
  const out: { from: number; to: number; open: boolean }[] = [];
  const add = (from: number, until: number | undefined) => out.push({ from, to: Math.min(until ?? to, to), open: until === undefined });
  if (n.approval) add(n.approval.requestedAt, n.approval.decidedAt);
  for (const x of n.elicitations ?? []) add(x.ts, x.state === "pending" ? undefined : (x.decidedAt ?? x.ts));
  return out.filter((w) => w.to > w.from).sort((a, b) => a.from - b.from);
}

// carve cuts a tool call's bar into running and waiting, in order.
function carve(from: number, to: number, open: boolean, waits: { from: number; to: number; open: boolean }[]): Segment[] {
  const out: Segment[] = [];
  let at = from;
  for (const w of waits) {
    const a = Math.max(w.from, at);
    if (w.to <= a) continue;
    if (a > at) out.push({ kind: "tool", from: at, to: a, open: false });
    out.push({ kind: "waiting", from: a, to: w.to, open: open && w.open });
    at = w.to;
  }
  if (to > at || out.length === 0) out.push({ kind: "tool", from: at, to, open });
  return out;
}

// pausedSpans are the spans from a run.status of paused to the next
// status that is not; the last may end at end, still open.
function pausedSpans(t: RunTranscript, end: number): Segment[] {
  const out: Segment[] = [];
  let since: number | undefined;
  for (const s of t.statusLog) {
    if (s.status === "paused") since ??= s.ts;
    else if (since !== undefined) {
      out.push({ kind: "paused", from: since, to: s.ts, open: false });
      since = undefined;
    }
  }
  if (since !== undefined) out.push({ kind: "paused", from: since, to: Math.max(since, end), open: true });
  return out;
}

// totalsOf is where the time from start to end went: each instant counted
// once, for the first share in shareOrder that holds it; other for an
// instant nothing holds. Times are whole milliseconds, as the log's are.
export function totalsOf(bars: readonly Bar[], paused: readonly Segment[], start: number, end: number): Totals {
  const totals = noTotals();
  totals.spanMs = Math.max(0, end - start);
  // A sweep over the segments' ends, +1 where one opens and -1 where it
  // closes. Each end is packed in one number, its time since start times
  // 16 plus its share's rank times 2 plus 1 for an opening, so that a
  // typed array sorts them natively: ten times faster than objects with
  // a comparator, on a run of 2,000 nodes folded again on every tick.
  // Exact while the run is shorter than 2^53 / 16 ms (17,000 years).
  const rank = new Map<Share, number>(shareOrder.map((s, i) => [s, i]));
  let n = 0;
  for (const b of bars) n += b.segments.length;
  const points = new Float64Array(2 * (n + paused.length));
  let k = 0;
  const add = (s: Segment) => {
    const from = Math.max(s.from, start);
    const to = Math.min(s.to, end);
    if (to <= from) return;
    const r = rank.get(s.kind)! * 2;
    points[k++] = (from - start) * 16 + r + 1;
    points[k++] = (to - start) * 16 + r;
  };
  for (const b of bars) for (const s of b.segments) add(s);
  for (const s of paused) add(s);
  const sorted = points.subarray(0, k).sort();
  const open = new Array<number>(shareOrder.length).fill(0);
  let at = 0;
  for (const p of sorted) {
    const t = Math.floor(p / 16);
    const code = p - t * 16;
    if (t > at) {
      const held = open.findIndex((c) => c > 0);
      totals.ms[held < 0 ? "other" : shareOrder[held]!] += t - at;
      at = t;
    }
    open[code >> 1]! += code & 1 ? 1 : -1;
  }
  if (end - start > at) totals.ms.other += end - start - at;
  return totals;
}

// The order the totals are told in: the run's own work first.
const tellOrder: readonly Share[] = ["model", "tool", "waiting", "paused", "other"];

// percentages are the totals' shares in whole percent, summing to 100 (the
// largest remainders are rounded up), in the order they are told; a share
// of no time is left out.
export function percentages(t: Totals): { share: Share; ms: number; percent: number }[] {
  if (t.spanMs <= 0) return [];
  const rows = tellOrder
    .filter((s) => t.ms[s] > 0)
    .map((s) => {
      const exact = (t.ms[s] / t.spanMs) * 100;
      return { share: s, ms: t.ms[s], percent: Math.floor(exact), rest: exact - Math.floor(exact) };
    });
  let missing = 100 - rows.reduce((sum, r) => sum + r.percent, 0);
  // Ties (thirds, say) go to the larger share.
  const first = (a: (typeof rows)[number], b: (typeof rows)[number]) => (Math.abs(b.rest - a.rest) > 1e-9 ? b.rest - a.rest : b.ms - a.ms);
  for (const r of [...rows].sort(first)) {
    if (missing <= 0) break;
    r.percent++;
    missing--;
  }
  return rows.map(({ share, ms, percent }) => ({ share, ms, percent }));
}

// totalsText says the totals in a line: "model 62%, tools 20%, waiting for
// you 18%"; a share under half a percent reads "<1%".
export function totalsText(t: Totals): string {
  return percentages(t)
    .map((p) => `${shareNames[p.share]} ${p.percent === 0 ? "<1" : p.percent}%`)
    .join(", ");
}

// Steps an axis is marked in: round numbers of milliseconds, seconds,
// minutes and hours.
const second = 1000;
const minute = 60 * second;
const hour = 60 * minute;
const axisSteps = [
  1, 2, 5, 10, 20, 50, 100, 200, 500,
  second, 2 * second, 5 * second, 10 * second, 15 * second, 30 * second,
  minute, 2 * minute, 5 * minute, 10 * minute, 15 * minute, 30 * minute,
  hour, 2 * hour, 3 * hour, 6 * hour, 12 * hour, 24 * hour,
];

// axisTicks are the marks of an axis over span ms, from 0 in the first
// round step that needs no more than most marks past 0.
export function axisTicks(span: number, most = 5): number[] {
  if (!(span > 0)) return [0];
  const step = axisSteps.find((s) => span / s <= most) ?? Math.ceil(span / most / (24 * hour)) * 24 * hour;
  const out: number[] = [];
  for (let at = 0; at <= span; at += step) out.push(at);
  return out;
}

// tickText says a mark of the axis: "500 ms", "1.5 s", "2:30" (minutes and
// seconds), "1:05:00" (hours).
export function tickText(ms: number): string {
  if (ms < second) return `${ms} ms`;
  if (ms < minute) return `${Number((ms / second).toFixed(1))} s`;
  const s = Math.round(ms / second);
  const two = (n: number) => String(n).padStart(2, "0");
  if (ms < hour) return `${Math.floor(s / 60)}:${two(s % 60)}`;
  return `${Math.floor(s / 3600)}:${two(Math.floor(s / 60) % 60)}:${two(s % 60)}`;
}

// spanText says how long something took: "3 ms", "1.2 s" under a minute
// (as the node details do), "4 min 12 s" and "2 h 5 min" past it (the
// inbox's countdown format, counted from 0).
export function spanText(ms: number): string {
  return ms < minute ? duration(ms) : timeLeft(ms, 0);
}
