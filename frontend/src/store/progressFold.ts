// The part of the reducer that folds tool.progress events: how far a
// running call has got, as its tool last reported it. Each event says
// where the call stands now, so the fold keeps the latest, on the call's
// node. Pure, like the reducer it belongs to.

import type { Event, ToolProgressData } from "../api/types";
import type { TranscriptNode } from "./reducer";

// ToolProgress is a call's latest tool.progress: progress in the server's
// units; total when the server knows it (then progress / total is the
// share done); message as the server said it (redacted, one line).
export type ToolProgress = {
  seq: number;
  ts: number;
  progress: number;
  total?: number;
  message?: string;
};

// foldProgress returns n with the progress of e, or n itself when n is no
// tool call or e says no progress a view can show.
export function foldProgress(n: TranscriptNode, e: Event): TranscriptNode {
  if (n.kind !== "tool") return n;
  const c = (e.data ?? {}) as Partial<ToolProgressData>;
  if (typeof c.progress !== "number" || !Number.isFinite(c.progress)) return n;
  const p: ToolProgress = {
    seq: e.seq,
    ts: e.ts,
    progress: c.progress,
    total: typeof c.total === "number" && Number.isFinite(c.total) && c.total > 0 ? c.total : undefined,
    message: typeof c.message === "string" && c.message !== "" ? c.message : undefined,
  };
  return { ...n, progress: p };
}

// progressShare is how much of the call is done, from 0 to 1, when the
// total is known; a server that reports past its total is done.
export function progressShare(p: ToolProgress): number | undefined {
  if (p.total === undefined) return undefined;
  return Math.min(1, Math.max(0, p.progress / p.total));
}

// describeProgress says a progress in words: "3 of 10 (30%)", or "3" when
// the total is unknown, then the message: "3 of 10 (30%): copying a.txt".
export function describeProgress(p: ToolProgress): string {
  const share = progressShare(p);
  const count = share === undefined ? num(p.progress) : `${num(p.progress)} of ${num(p.total!)} (${Math.floor(share * 100)}%)`;
  return p.message ? `${count}: ${p.message}` : count;
}

// num shows a count as a whole number when it is one, else to two places.
function num(v: number): string {
  return Number.isInteger(v) ? String(v) : v.toFixed(2).replace(/\.?0+$/, "");
}
