import {
  useCallback,
  useEffect,
  useImperativeHandle,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  type HTMLAttributes,
  type ReactNode,
  type Ref,
} from "react";
import { nextTask } from "../store/historyFold";
import { RowLayout } from "./rowLayout";
import { visibleRange, type Range } from "./windowing";

// VirtualList renders a long list of rows of different heights, only those
// in view plus an overscan above and below, between two spacers that stand
// for the rest. Heights are estimated until a row has been shown once, then
// measured (ResizeObserver) and remembered by the row's key.
//
// It follows the end: while the person is at the bottom, rows that grow or
// arrive keep the end in view; once they scroll up it stays where they
// left it (the first row in view does not move when rows above it are
// measured or grow), until scrollToEnd.
//
// Lists shorter than windowFrom rows render every row: a short list costs
// little, and the browser's own find and tests then see every row.
//
// The offsets live in a RowLayout (a Fenwick tree by index and a map from
// key to index), so that a row measured, a scroll and the anchor's lookup
// each cost O(log n) in a list of n rows, not O(n): a 100,000-event
// transcript measures rows at every frame while it is scrolled.

export type VirtualListHandle = {
  scrollToIndex: (i: number) => void;
  scrollToEnd: () => void;
};

type Props = {
  count: number;
  itemKey: (i: number) => string;
  renderItem: (i: number) => ReactNode;
  // A row's height before it is measured.
  estimateSize?: (i: number) => number;
  overscanPx?: number;
  windowFrom?: number;
  // Called when following the end starts or stops.
  onFollowChange?: (following: boolean) => void;
  apiRef?: Ref<VirtualListHandle>;
  rowClassName?: string;
} & Omit<HTMLAttributes<HTMLDivElement>, "onScroll" | "children">;

// How close to the bottom counts as at the bottom, in pixels: a fractional
// scroll position or a row that grew by a line should not stop following.
const bottomSlack = 24;
// The viewport's height until it is measured.
const defaultViewport = 800;

export function VirtualList({
  count,
  itemKey,
  renderItem,
  estimateSize,
  overscanPx = 800,
  windowFrom = 100,
  onFollowChange,
  apiRef,
  rowClassName,
  className,
  ...rest
}: Props) {
  const scroller = useRef<HTMLDivElement>(null);
  const heights = useRef(new Map<string, number>());
  const [, setTick] = useState(0);
  const rerender = useCallback(() => setTick((t) => t + 1), []);

  const following = useRef(true);
  const [followShown, setFollowShown] = useState(true);
  const scrollTop = useRef(0);
  const viewport = useRef(defaultViewport);
  // The row to keep in place across the next render, and its distance
  // from the top of the view.
  const anchor = useRef<{ key: string; delta: number } | undefined>(undefined);

  const windowed = count >= windowFrom;
  const estimate = useCallback((i: number) => estimateSize?.(i) ?? 120, [estimateSize]);
  // Measurements change the layout in place (a ResizeObserver callback),
  // then render: the layout is a ref, not state.
  const layoutRef = useRef<RowLayout | null>(null);
  layoutRef.current ??= new RowLayout((key) => heights.current.get(key));
  const layout = layoutRef.current;
  layout.sync(count, itemKey, estimate);
  const tree = layout.tree;
  const total = tree.total;
  const latest = useRef({ range: { start: 0, end: count } as Range });

  // The first render of a windowed list draws the rows in view only, and
  // the overscan a task later: the rows of a long run's first page, drawn
  // for the first time (their Markdown, their cards' code), were the
  // longest task of its opening, and the overscan was most of them.
  const [overscanOn, setOverscanOn] = useState(false);
  const overscan = overscanOn ? overscanPx : 0;
  const overscanRef = useRef(overscan);
  overscanRef.current = overscan;
  useEffect(() => {
    if (!windowed || overscanOn) return;
    let live = true;
    void nextTask().then(() => live && setOverscanOn(true));
    return () => {
      live = false;
    };
  }, [windowed, overscanOn]);

  const top = following.current ? Math.max(0, total - viewport.current) : scrollTop.current;
  const range: Range = windowed ? visibleRange(tree, top, viewport.current, overscan) : { start: 0, end: count };
  latest.current = { range };

  const setFollowing = useCallback(
    (on: boolean) => {
      if (following.current === on) return;
      following.current = on;
      setFollowShown(on);
      onFollowChange?.(on);
    },
    [onFollowChange],
  );

  // The row at the top of the view, to keep in place.
  const captureAnchor = useCallback(() => {
    const el = scroller.current;
    if (!el || following.current || anchor.current) return;
    const layout = layoutRef.current;
    if (!layout || layout.count === 0) return;
    const i = layout.tree.indexAt(el.scrollTop);
    anchor.current = { key: layout.keyAt(i)!, delta: el.scrollTop - layout.tree.offset(i) };
  }, []);

  // The browser reports every row resized in a frame in one callback: one
  // render for all of them.
  const observer = useMemo(
    () =>
      new ResizeObserver((entries) => {
        let changed = false;
        for (const entry of entries) {
          const el = entry.target as HTMLElement;
          const key = el.dataset["key"];
          if (key === undefined) continue;
          const h = entry.borderBoxSize?.[0]?.blockSize ?? el.getBoundingClientRect().height;
          // 0: not laid out (hidden, or a test's DOM): keep the estimate.
          if (!(h > 0) || heights.current.get(key) === h) continue;
          if (!changed) captureAnchor();
          heights.current.set(key, h);
          layoutRef.current?.measure(key, h);
          changed = true;
        }
        if (changed) rerender();
      }),
    [captureAnchor, rerender],
  );
  useEffect(() => () => observer.disconnect(), [observer]);

  const rowRef = useCallback(
    (el: HTMLDivElement | null) => {
      if (!el) return;
      observer.observe(el);
      return () => observer.unobserve(el);
    },
    [observer],
  );

  // The viewport's height, now and when the pane is resized.
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const measure = () => {
      const h = el.clientHeight;
      if (h > 0 && h !== viewport.current) {
        viewport.current = h;
        rerender();
      }
    };
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, [rerender]);

  // After each render: stay at the end while following, else keep the
  // anchored row where it was.
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    if (following.current) {
      anchor.current = undefined;
      // Moved up since the list last put it at the end, and the scroll
      // event has not come yet: the person scrolled, the list lets go.
      // (Or the content shrank and the browser moved it: scrollHeight
      // tells, read only then.)
      const movedUp = el.scrollTop < scrollTop.current - 1;
      if (movedUp && el.scrollHeight - el.scrollTop - el.clientHeight > bottomSlack) {
        scrollTop.current = el.scrollTop;
        setFollowing(false);
        rerender();
        return;
      }
      const bottom = Math.max(0, el.scrollHeight - el.clientHeight);
      if (el.scrollTop !== bottom) el.scrollTop = bottom;
      scrollTop.current = el.scrollTop;
      return;
    }
    const a = anchor.current;
    anchor.current = undefined;
    if (!a) return;
    const i = layout.indexOf(a.key);
    if (i === undefined) return;
    const want = tree.offset(i) + a.delta;
    if (Math.abs(el.scrollTop - want) >= 1) el.scrollTop = want;
    scrollTop.current = el.scrollTop;
  });

  const onScroll = useCallback(() => {
    const el = scroller.current;
    if (!el) return;
    scrollTop.current = el.scrollTop;
    const atBottom = el.scrollHeight - el.scrollTop - el.clientHeight <= bottomSlack;
    setFollowing(atBottom);
    const layout = layoutRef.current;
    const { range } = latest.current;
    if (!layout || layout.count < windowFrom) return;
    const next = visibleRange(layout.tree, el.scrollTop, viewport.current, overscanRef.current);
    if (next.start !== range.start || next.end !== range.end) rerender();
  }, [windowFrom, rerender, setFollowing]);

  useImperativeHandle(
    apiRef,
    () => ({
      scrollToIndex: (i: number) => {
        const el = scroller.current;
        const layout = layoutRef.current;
        if (!el || !layout || i < 0 || i >= layout.count) return;
        setFollowing(false);
        // A little of the row before stays in view, for context.
        const at = layout.tree.offset(i);
        const y = Math.max(0, at - 12);
        anchor.current = undefined;
        el.scrollTop = y;
        scrollTop.current = y;
        // Keep that row in place as the rows around it are measured.
        anchor.current = { key: layout.keyAt(i)!, delta: y - at };
        rerender();
      },
      scrollToEnd: () => {
        setFollowing(true);
        rerender();
      },
    }),
    [rerender, setFollowing],
  );

  const rows: ReactNode[] = [];
  for (let i = range.start; i < range.end; i++) {
    const key = itemKey(i);
    rows.push(
      <div key={key} ref={rowRef} className={rowClassName ? `vlist-row ${rowClassName}` : "vlist-row"} data-key={key} data-index={i}>
        {renderItem(i)}
      </div>,
    );
  }
  const before = windowed ? tree.offset(range.start) : 0;
  const after = windowed ? total - tree.offset(range.end) : 0;
  return (
    <div
      ref={scroller}
      className={className ? `vlist ${className}` : "vlist"}
      onScroll={onScroll}
      data-following={followShown}
      {...rest}
    >
      {before > 0 && <div className="vlist-spacer" style={{ height: before }} aria-hidden="true" />}
      {rows}
      {after > 0 && <div className="vlist-spacer" style={{ height: after }} aria-hidden="true" />}
    </div>
  );
}
