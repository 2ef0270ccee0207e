// useMoreRuns loads the run list's next page (GET /runs?before=) into the
// store, one request at a time, and useSentinel asks for it when an element
// at the list's end comes near the visible part of the list.

import { useCallback, useEffect, useRef, useState, type RefObject } from "react";
import { useApp, useServices } from "../../store/context";
import { pageOf } from "../../store/runPages";

export function useMoreRuns(): { more: boolean; loading: boolean; loadMore: () => void } {
  const { api, store } = useServices();
  const next = useApp((s) => s.runsNext);
  const [loading, setLoading] = useState(false);
  const busy = useRef(false);
  const loadMore = useCallback(() => {
    const cursor = store.getState().runsNext;
    if (!cursor || busy.current) return;
    busy.current = true;
    setLoading(true);
    api
      .runsPage({ before: cursor })
      .then((body) => store.getState().appendRuns(cursor, pageOf(body)))
      .catch((err: unknown) => store.getState().setLoadError(err instanceof Error ? err.message : String(err)))
      .finally(() => {
        busy.current = false;
        setLoading(false);
      });
  }, [api, store]);
  return { more: next !== undefined, loading, loadMore };
}

// Near enough to the end to start the next page before the person reaches
// it: a few screens of items.
const nearEnd = "600px";

// useSentinel calls onNear whenever the sentinel comes within nearEnd of the
// scroll container root (and again after each change of deps, when it is
// still near after a change of key: a page that did not fill the view loads
// the next). Without IntersectionObserver (jsdom) it does nothing: the
// list's button remains. Off (enabled false), it watches nothing.
export function useSentinel(
  root: RefObject<HTMLElement | null>,
  sentinel: RefObject<HTMLElement | null>,
  onNear: () => void,
  key: string,
  enabled = true,
): void {
  useEffect(() => {
    const el = sentinel.current;
    if (!enabled || !el || typeof IntersectionObserver === "undefined") return;
    const io = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && onNear(), {
      root: root.current,
      rootMargin: `0px 0px ${nearEnd} 0px`,
    });
    io.observe(el);
    return () => io.disconnect();
  }, [root, sentinel, onNear, key, enabled]);
}
