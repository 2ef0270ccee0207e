// The run list arrives in pages (GET /runs?before=CURSOR): the first 100
// runs, then more as the person scrolls. These pure functions fold a page
// into the runs held, so that a refresh of the first page keeps what was
// loaded after it and a page that arrives after a refresh is not doubled.

import type { Run } from "../api/types";

// The list's order, as the server's: created_at, then id, descending.
export function runOrder(a: Run, b: Run): number {
  if (a.created_at !== b.created_at) return b.created_at - a.created_at;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

// A page of the list as GET /runs answers it; next is the cursor of the
// page after it, undefined when there is none.
export type RunPage = { runs: Run[]; next?: string };

export type HeldRuns = { runs: Run[]; runsNext?: string };

// pageOf reads the wire's answer.
export function pageOf(body: { runs: Run[]; more: boolean; next_before: string }): RunPage {
  return { runs: body.runs, next: body.more && body.next_before ? body.next_before : undefined };
}

// refreshLimit is how many runs a refresh asks for: as many as are held, so
// that they are all fresh, within the server's bound; undefined for the
// first page's default (100).
export function refreshLimit(held: number): number | undefined {
  return held > 100 ? Math.min(held, 1000) : undefined;
}

// refreshed folds a fresh first page into what is held: the page replaces
// the runs it covers; held runs after its last (more than a refresh may ask
// for) stay, with the cursor that loads what follows them.
export function refreshed(held: HeldRuns, page: RunPage): HeldRuns {
  const last = page.runs[page.runs.length - 1];
  if (!page.next || !last) return { runs: page.runs, runsNext: page.next };
  const fresh = new Set(page.runs.map((r) => r.id));
  const tail = held.runs.filter((r) => !fresh.has(r.id) && runOrder(last, r) < 0);
  if (tail.length === 0) return { runs: page.runs, runsNext: page.next };
  return { runs: [...page.runs, ...tail], runsNext: held.runsNext };
}

// appended adds the page that followed cursor to what is held. A page asked
// for before a refresh changed the list's end is dropped (the refresh's
// cursor is the one to follow); a run already held is not added twice.
export function appended(held: HeldRuns, cursor: string, page: RunPage): HeldRuns {
  if (held.runsNext !== cursor) return held;
  const ids = new Set(held.runs.map((r) => r.id));
  return { runs: [...held.runs, ...page.runs.filter((r) => !ids.has(r.id))], runsNext: page.next };
}
