import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { nextTask } from "../store/historyFold";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { VirtualList } from "./VirtualList";
import { indexAt, offsetsOf, visibleRange } from "./windowing";

// A ResizeObserver the test drives: it reports the heights it is told.
class FakeResizeObserver {
  static all: FakeResizeObserver[] = [];
  readonly els = new Set<Element>();
  constructor(readonly cb: ResizeObserverCallback) {
    FakeResizeObserver.all.push(this);
  }
  observe(el: Element) {
    this.els.add(el);
  }
  unobserve(el: Element) {
    this.els.delete(el);
  }
  disconnect() {
    this.els.clear();
  }
  // report tells the observer of rows the height of each (by data-index).
  static report(height: (index: number) => number) {
    for (const ro of FakeResizeObserver.all) {
      const rows = [...ro.els].filter((el) => (el as HTMLElement).dataset["key"] !== undefined);
      if (rows.length === 0) continue;
      const entries = rows.map((el) => ({ target: el, borderBoxSize: [{ blockSize: height(Number((el as HTMLElement).dataset["index"])), inlineSize: 100 }] }));
      act(() => ro.cb(entries as unknown as ResizeObserverEntry[], ro as unknown as ResizeObserver));
    }
  }
}

const viewport = 400;
const estimate = 50;
// What the browser would lay out: the spacers' heights plus each row's.
let rowHeight = (_i: number) => estimate;

beforeEach(() => {
  FakeResizeObserver.all = [];
  rowHeight = () => estimate;
  vi.stubGlobal("ResizeObserver", FakeResizeObserver);
  vi.spyOn(HTMLElement.prototype, "clientHeight", "get").mockImplementation(function (this: HTMLElement) {
    return this.classList.contains("vlist") ? viewport : 0;
  });
  vi.spyOn(HTMLElement.prototype, "scrollHeight", "get").mockImplementation(function (this: HTMLElement) {
    if (!this.classList.contains("vlist")) return 0;
    let h = 0;
    for (const c of Array.from(this.children) as HTMLElement[]) {
      h += c.classList.contains("vlist-spacer") ? parseFloat(c.style.height) : rowHeight(Number(c.dataset["index"]));
    }
    return h;
  });
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

function List({ count, onFollow }: { count: number; onFollow?: (f: boolean) => void }) {
  return (
    <VirtualList
      data-testid="list"
      count={count}
      itemKey={(i) => `k${i}`}
      renderItem={(i) => <p>item {i}</p>}
      estimateSize={() => estimate}
      onFollowChange={onFollow}
    />
  );
}

const rendered = () => screen.queryAllByText(/^item \d+$/).map((p) => Number(p.textContent!.slice(5)));

describe("windowing", () => {
  it("finds the item at a height and the items in view", () => {
    const offsets = offsetsOf(5, (i) => (i + 1) * 10); // 0 10 30 60 100 150
    expect([...offsets]).toEqual([0, 10, 30, 60, 100, 150]);
    expect(indexAt(offsets, 0)).toBe(0);
    expect(indexAt(offsets, 29)).toBe(1);
    expect(indexAt(offsets, 30)).toBe(2);
    expect(indexAt(offsets, 1000)).toBe(4);
    expect(visibleRange(offsets, 30, 40, 0)).toEqual({ start: 2, end: 4 });
    expect(visibleRange(offsetsOf(0, () => 1), 0, 100, 10)).toEqual({ start: 0, end: 0 });
  });
});

// settle lets the task after a render run (the overscan comes in it).
const settle = () => act(() => nextTask());

describe("VirtualList", () => {
  it("renders only the rows in view, then an overscan a task later, following the end", async () => {
    render(<List count={10_000} />);
    // 400 px in view: 8 rows of 50 px (the first render draws no more).
    expect(rendered()).toEqual([9_992, 9_993, 9_994, 9_995, 9_996, 9_997, 9_998, 9_999]);
    await settle();
    const rows = rendered();
    // And 800 px of overscan above: about 24 rows.
    expect(rows.length).toBeGreaterThan(20);
    expect(rows.length).toBeLessThan(40);
    expect(rows).toContain(9_999);
    expect(rows).not.toContain(0);
    const list = screen.getByTestId("list");
    expect(list.scrollTop).toBe(10_000 * estimate - viewport);
  });

  it("renders every row of a short list", () => {
    render(<List count={50} />);
    expect(rendered()).toHaveLength(50);
  });

  it("shows the rows where the person scrolls, and stops following", () => {
    const onFollow = vi.fn();
    render(<List count={10_000} onFollow={onFollow} />);
    const list = screen.getByTestId("list");
    list.scrollTop = 5_000; // row 100 at the top
    fireEvent.scroll(list);
    expect(onFollow).toHaveBeenLastCalledWith(false);
    const rows = rendered();
    expect(rows).toContain(100);
    expect(rows).toContain(107);
    expect(rows).not.toContain(9_999);
    expect(Math.min(...rows)).toBeGreaterThanOrEqual(100 - 800 / estimate);
  });

  it("keeps the row at the top in place when rows above it are measured, and when rows arrive", async () => {
    const { rerender } = render(<List count={10_000} />);
    await settle();
    const list = screen.getByTestId("list");
    list.scrollTop = 5_000;
    fireEvent.scroll(list);
    const above = rendered().filter((i) => i < 100).length;
    expect(above).toBeGreaterThan(0);
    // Every rendered row turns out 80 px high, not 50.
    rowHeight = () => 80;
    FakeResizeObserver.report(() => 80);
    expect(list.scrollTop).toBe(5_000 + above * 30);
    expect(screen.getByText("item 100")).toBeTruthy();
    const top = list.scrollTop;
    rerender(<List count={10_050} />);
    expect(list.scrollTop).toBe(top);
  });

  it("follows rows as they arrive while at the end", () => {
    const { rerender } = render(<List count={10_000} />);
    rerender(<List count={10_010} />);
    const list = screen.getByTestId("list");
    expect(rendered()).toContain(10_009);
    expect(list.scrollTop).toBe(list.scrollHeight - viewport);
  });

  it("lets go of the end when the person scrolled up before rows arrived, scroll event or not", () => {
    const onFollow = vi.fn();
    const { rerender } = render(<List count={10_000} onFollow={onFollow} />);
    const list = screen.getByTestId("list");
    const up = list.scrollTop - 300;
    list.scrollTop = up; // its scroll event comes later
    rerender(<List count={10_010} onFollow={onFollow} />);
    expect(list.scrollTop).toBe(up);
    expect(onFollow).toHaveBeenLastCalledWith(false);
  });

  it("does not visit every row when rows are measured or the list is scrolled", () => {
    let calls = 0;
    const itemKey = (i: number) => {
      calls++;
      return `k${i}`;
    };
    const est = () => estimate;
    render(<VirtualList data-testid="list" count={10_000} itemKey={itemKey} renderItem={(i) => <p>item {i}</p>} estimateSize={est} />);
    const list = screen.getByTestId("list");
    calls = 0;
    list.scrollTop = 5_000;
    fireEvent.scroll(list);
    rowHeight = () => 80;
    FakeResizeObserver.report(() => 80);
    list.scrollTop = 250_000;
    fireEvent.scroll(list);
    FakeResizeObserver.report(() => 80);
    expect(rendered().some((i) => i > 4_900 && i < 5_000)).toBe(true);
    // The rows rendered, a few times over: not the 10,000.
    expect(calls).toBeLessThan(500);
  });
});
