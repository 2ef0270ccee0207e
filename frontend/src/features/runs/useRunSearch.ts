// useRunSearch asks the server for the runs a search and a status filter
// keep (runSearch.ts folds the answers): typing is debounced, an answer to
// an older question is dropped, the next page follows the same question,
// and the list asks again whenever the store's pages refresh (a run changed
// status, a new one started), so what a filter shows stays live.

import { useCallback, useEffect, useMemo, useReducer, useRef, useState } from "react";
import { useApp, useServices } from "../../store/context";
import { pageOf, refreshLimit } from "../../store/runPages";
import { noSearch, searchKey, searchParams, searchReducer, searchView, type RunSearchView, type StatusFilter } from "./runSearch";

// typingDelayMs is how long the search box waits after a keystroke before
// it asks: a word typed at speed is one question, not one a letter.
export const typingDelayMs = 200;

export type RunSearch = RunSearchView & {
  active: boolean; // a search or filter narrows the list
  loading: boolean;
  loadingMore: boolean;
  error?: string;
  loadMore: () => void;
  retry: () => void;
};

// useDebounced is value once it has held still for ms.
function useDebounced<T>(value: T, ms: number): T {
  const [held, setHeld] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setHeld(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return held;
}

export function useRunSearch(query: string, status: StatusFilter): RunSearch {
  const { api } = useServices();
  const storeRuns = useApp((s) => s.runs);
  const typed = useDebounced(query.trim(), typingDelayMs);
  // Clearing the box is at once: the store's pages are already there.
  const q = query.trim() === "" ? "" : typed;
  const params = useMemo(() => searchParams(q, status), [q, status]);
  const key = params ? searchKey(params) : "";
  const [state, dispatch] = useReducer(searchReducer, noSearch);
  const seq = useRef(0);
  const [loadingMore, setLoadingMore] = useState(false);
  const more = useRef<string | undefined>(undefined); // the cursor asked for
  const held = useRef(state);
  held.current = state;

  const ask = useCallback(
    (refresh: boolean) => {
      if (!params) {
        dispatch({ type: "reset", seq: ++seq.current });
        return;
      }
      const n = ++seq.current;
      dispatch({ type: "ask", seq: n, key });
      const limit = refresh ? refreshLimit(held.current.runs.length) : undefined;
      api
        .runsPage({ ...params, ...(limit ? { limit } : {}) })
        .then((body) => dispatch({ type: "first", seq: n, page: pageOf(body), refresh }))
        .catch((err: unknown) => dispatch({ type: "failed", seq: n, message: err instanceof Error ? err.message : String(err) }));
    },
    [api, params, key],
  );

  useEffect(() => ask(false), [ask]);

  // The store's pages refresh after events: ask again for what is shown.
  const firstRuns = useRef(storeRuns);
  useEffect(() => {
    if (firstRuns.current === storeRuns) return;
    firstRuns.current = storeRuns;
    if (held.current.key === key && held.current.answered) ask(true);
  }, [storeRuns, ask, key]);

  const loadMore = useCallback(() => {
    const s = held.current;
    const cursor = s.runsNext;
    if (!params || !cursor || s.key !== key || !s.answered || more.current === cursor) return;
    more.current = cursor;
    setLoadingMore(true);
    api
      .runsPage({ ...params, before: cursor })
      .then((body) => dispatch({ type: "more", key, cursor, page: pageOf(body) }))
      .catch((err: unknown) => dispatch({ type: "failed", key, message: err instanceof Error ? err.message : String(err) }))
      .finally(() => {
        if (more.current === cursor) more.current = undefined;
        setLoadingMore(false);
      });
  }, [api, params, key]);

  // Narrowed from the first keystroke: while the box waits for typing to
  // stop, what is shown is the last answer, stale.
  const active = query.trim() !== "" || status !== "all";
  const view = searchView(state, params ? key : "", storeRuns);
  return {
    ...view,
    active,
    loading: active && (state.loading || state.key !== key || q !== query.trim()),
    loadingMore,
    error: state.key === key ? state.error : undefined,
    loadMore,
    retry: () => ask(false),
  };
}
