// The run list's search and status filter are answered by the server
// (GET /runs?q=&status=&attention=), page by page like the list itself:
// 100,000 runs cannot be filtered on the client, which holds only the
// pages it has loaded. These pure functions say what to ask for and fold
// the answers, so that an answer to an older question is never shown once
// a newer one has been asked.

import type { RunListParams } from "../../api/client";
import type { Run } from "../../api/types";
import { activeStatuses } from "../../store/status";
import { appended, refreshed, type HeldRuns, type RunPage } from "../../store/runPages";

// StatusFilter is the run list's status choice.
export type StatusFilter = "all" | "active" | "attention" | "completed" | "failed";

export const statusFilters: { value: StatusFilter; label: string }[] = [
  { value: "all", label: "All" },
  { value: "active", label: "Active" },
  { value: "attention", label: "Waiting on you" },
  { value: "completed", label: "Completed" },
  { value: "failed", label: "Failed/Cancelled" },
];

const statusParams: Record<Exclude<StatusFilter, "all">, RunListParams> = {
  active: { status: [...activeStatuses].join(",") },
  // Waiting, or an approval or question pending: the server's attention.
  attention: { attention: "true" },
  completed: { status: "completed" },
  failed: { status: "failed,cancelled" },
};

// searchParams is what to ask the server for a search; undefined when
// nothing narrows the list, which is then the pages the store holds.
export function searchParams(query: string, status: StatusFilter): RunListParams | undefined {
  const q = query.trim();
  if (!q && status === "all") return undefined;
  return { ...(status === "all" ? {} : statusParams[status]), ...(q ? { q } : {}) };
}

// searchKey names a search's question, the same for the same params.
export function searchKey(p: RunListParams): string {
  return JSON.stringify([p.q ?? "", p.status ?? "", p.attention ?? ""]);
}

// SearchState is the answer held for the latest question asked (seq, key).
// Until its first page arrives (answered false) the runs are the previous
// question's, shown as stale.
export type SearchState = HeldRuns & {
  seq: number;
  key?: string;
  answered: boolean;
  loading: boolean;
  error?: string;
};

export const noSearch: SearchState = { seq: 0, runs: [], answered: false, loading: false };

export type SearchAction =
  // A first page was asked for (seq grows with each question); refresh
  // asks again for what is shown, and keeps it meanwhile.
  | { type: "ask"; seq: number; key: string }
  | { type: "first"; seq: number; page: RunPage; refresh?: boolean }
  | { type: "more"; key: string; cursor: string; page: RunPage }
  | { type: "failed"; seq?: number; key?: string; message: string }
  // Nothing narrows the list any more: what was asked is forgotten, and
  // its answers, still on their way, are dropped (seq).
  | { type: "reset"; seq: number };

// searchReducer folds the answers. A first page counts only if it answers
// the latest question (its seq); a next page only if it follows the page
// held now, of the same question (appended checks the cursor).
export function searchReducer(s: SearchState, a: SearchAction): SearchState {
  switch (a.type) {
    case "ask":
      if (a.seq <= s.seq) return s;
      return { ...s, seq: a.seq, key: a.key, answered: s.key === a.key && s.answered, loading: true, error: undefined };
    case "first": {
      if (a.seq !== s.seq) return s;
      const held = a.refresh && s.answered ? refreshed(s, a.page) : { runs: a.page.runs, runsNext: a.page.next };
      return { ...s, ...held, answered: true, loading: false, error: undefined };
    }
    case "more": {
      if (a.key !== s.key || !s.answered) return s;
      const next = appended(s, a.cursor, a.page);
      return next === s ? s : { ...s, ...next };
    }
    case "failed":
      if (a.seq !== undefined ? a.seq !== s.seq : a.key !== s.key) return s;
      return { ...s, loading: false, error: a.message };
    case "reset":
      return s.key === undefined && !s.loading ? s : { ...noSearch, seq: Math.max(a.seq, s.seq) };
  }
}

// RunSearchView is what the list shows of a search: the answer to the
// question before while this one is out (stale), or, before the first
// answer of all, held (the store's pages).
export type RunSearchView = { runs: Run[]; stale: boolean; more: boolean; noMatch: boolean };

export function searchView(s: SearchState, key: string, held: Run[] = []): RunSearchView {
  const current = s.key === key && s.answered;
  return {
    runs: s.key === undefined ? held : s.runs,
    stale: !current,
    more: current && s.runsNext !== undefined,
    noMatch: current && s.runs.length === 0 && !s.error,
  };
}
