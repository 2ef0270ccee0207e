import { describe, expect, it } from "vitest";
import { RowLayout } from "./rowLayout";
import { HeightTree, indexAt, offsetsOf, visibleRange } from "./windowing";

// A small seeded generator (mulberry32), so that a failure repeats.
function random(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("HeightTree", () => {
  it("agrees with an array of prefix sums over random updates, appends and truncations", () => {
    for (const seed of [1, 2, 3, 42, 1234]) {
      const rnd = random(seed);
      // Halves keep the sums exact, so that the two can be compared with ===;
      // zeros are rows not laid out.
      const height = () => (rnd() < 0.1 ? 0 : Math.floor(rnd() * 400) / 2);
      const naive: number[] = Array.from({ length: Math.floor(rnd() * 40) }, height);
      const tree = new HeightTree(naive.length, (i) => naive[i]!);
      // expect() is slow next to the tree: compare by hand, expect once.
      const wrong: string[] = [];
      const check = (what: string, got: unknown, want: unknown) => {
        if (got !== want && wrong.length < 5) wrong.push(`seed ${seed}: ${what}: got ${String(got)}, want ${String(want)}`);
      };
      for (let op = 0; op < 2000; op++) {
        const r = rnd();
        if (r < 0.5 && naive.length > 0) {
          const i = Math.floor(rnd() * naive.length);
          naive[i] = height();
          tree.set(i, naive[i]!);
        } else if (r < 0.85) {
          const h = height();
          naive.push(h);
          tree.push(h);
        } else if (r < 0.9) {
          const n = Math.floor(rnd() * naive.length);
          naive.length = n;
          tree.truncate(n);
        } else {
          const n = Math.floor(rnd() * 300);
          for (let i = 0; i < n; i++) naive[i] = height();
          naive.length = n;
          tree.reset(n, (i) => naive[i]!);
        }
        const offsets = offsetsOf(naive.length, (i) => naive[i]!);
        check(`op ${op} count`, tree.count, naive.length);
        check(`op ${op} total`, tree.total, offsets[naive.length]);
        const i = Math.floor(rnd() * (naive.length + 1));
        check(`op ${op} offset(${i})`, tree.offset(i), offsets[i]);
        const total = offsets[naive.length]!;
        for (const y of [rnd() * (total + 100) - 50, offsets[i]!, offsets[i]! - 0.5, 0]) {
          check(`op ${op} indexAt(${y})`, tree.indexAt(y), indexAt(offsets, y));
        }
        const a = visibleRange(tree, total / 3, 400, 200);
        const b = visibleRange(offsets, total / 3, 400, 200);
        check(`op ${op} visibleRange`, `${a.start}-${a.end}`, `${b.start}-${b.end}`);
      }
      expect(wrong).toEqual([]);
    }
  });

  it("appends past its capacity", () => {
    const tree = new HeightTree();
    for (let i = 0; i < 1000; i++) tree.push(i);
    expect(tree.total).toBe((999 * 1000) / 2);
    expect(tree.offset(10)).toBe(45);
    expect(tree.indexAt(45)).toBe(10);
    expect(tree.indexAt(44.5)).toBe(9);
  });
});

describe("RowLayout", () => {
  const measured = new Map<string, number>();
  const keysOf = (keys: string[]) => (i: number) => keys[i]!;
  const est = () => 10;

  it("appends rows without a rebuild, and keeps measured heights by key when rows move", () => {
    measured.clear();
    const layout = new RowLayout((k) => measured.get(k));
    let keys = ["a", "b", "c"];
    layout.sync(keys.length, keysOf(keys), est);
    expect(layout.tree.total).toBe(30);
    measured.set("b", 50);
    layout.measure("b", 50);
    expect(layout.tree.total).toBe(70);
    const rebuilds = layout.rebuilds;
    keys = [...keys, "d", "e"];
    layout.sync(keys.length, keysOf(keys), est);
    expect(layout.rebuilds).toBe(rebuilds);
    expect(layout.tree.total).toBe(90);
    expect(layout.indexOf("e")).toBe(4);
    // A row inserted before b: a rebuild, b keeps its height and moves.
    keys = ["a", "x", "b", "c", "d", "e"];
    layout.sync(keys.length, keysOf(keys), est);
    expect(layout.rebuilds).toBe(rebuilds + 1);
    expect(layout.indexOf("b")).toBe(2);
    expect(layout.tree.offset(3)).toBe(70);
    expect(layout.keyAt(1)).toBe("x");
    // Rows removed from the end.
    keys = keys.slice(0, 3);
    layout.sync(keys.length, keysOf(keys), est);
    expect(layout.indexOf("e")).toBeUndefined();
    expect(layout.tree.total).toBe(70);
    // A new estimate changes the rows not measured only.
    layout.sync(keys.length, keysOf(keys), () => 20);
    expect(layout.tree.total).toBe(90);
  });

  it("costs nothing when nothing changed", () => {
    const layout = new RowLayout(() => undefined);
    let calls = 0;
    const itemKey = (i: number) => {
      calls++;
      return `k${i}`;
    };
    layout.sync(1000, itemKey, est);
    calls = 0;
    layout.sync(1000, itemKey, est);
    expect(calls).toBe(0);
  });
});
