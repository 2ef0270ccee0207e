// The person's way of looking at runs, kept in localStorage: which panes
// (transcript, graph, both or the timeline) and how the width is shared between them.
// The Files tab is not kept: it is a review one goes to, not a way of
// watching runs. Storage may be off (private mode, tests): then the
// defaults, and nothing is kept.

import type { Pane } from "../../store/store";

export type Layout = Exclude<Pane, "files">;

const layoutKey = "steward.runPanes";
const ratioKey = "steward.paneRatio";
export const defaultRatio = 50;
export const minRatio = 20;
export const maxRatio = 80;

export function savedLayout(): Layout {
  const v = read(layoutKey);
  return v === "transcript" || v === "graph" || v === "both" || v === "timeline" ? v : "both";
}

export function saveLayout(p: Pane): void {
  if (p !== "files") write(layoutKey, p);
}

// savedRatio is the transcript's share of the width in Both, in percent.
export function savedRatio(): number {
  const v = Number(read(ratioKey));
  return Number.isFinite(v) && v >= minRatio && v <= maxRatio ? v : defaultRatio;
}

export function saveRatio(v: number): void {
  write(ratioKey, String(v));
}

function read(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

function write(key: string, value: string): void {
  try {
    localStorage.setItem(key, value);
  } catch {
    // Not kept: fine.
  }
}
