import { expect, it } from "vitest";
import { RowLayout } from "./rowLayout";
import { indexAt, offsetsOf } from "./windowing";

// The cost of 1,000 row measurements in a 20,000-row list (a 100,000-event
// transcript), as VirtualList pays it: before, every measurement
// recomputed all the offsets and scanned the keys for the anchor row;
// now, a point update in the tree and a lookup of the anchor's index.
// Printed for the record; the bound is loose (a loaded machine slows both
// alike) but fails a return to O(n) per measurement.
it("measures a row in O(log n), not O(n)", () => {
  const n = 20_000;
  const measures = 1_000;
  const key = (i: number) => `n${i}`;
  const estimate = () => 120;
  const heights = new Map<string, number>();
  const rowOf = (m: number) => (m * 7919) % n;

  const time = (f: () => void) => {
    const runs: number[] = [];
    for (let r = 0; r < 3; r++) {
      heights.clear();
      const t0 = performance.now();
      f();
      runs.push(performance.now() - t0);
    }
    return runs.sort((a, b) => a - b)[1]!;
  };
  let sink = 0;
  const before = time(() => {
    for (let m = 0; m < measures; m++) {
      heights.set(key(rowOf(m)), 100 + (m % 50));
      const offsets = offsetsOf(n, (i) => heights.get(key(i)) ?? estimate());
      const at = indexAt(offsets, 1_000_000);
      const anchor = key(at);
      for (let i = 0; i < n; i++) {
        if (key(i) === anchor) {
          sink += offsets[i]!;
          break;
        }
      }
    }
  });
  const after = time(() => {
    const layout = new RowLayout((k) => heights.get(k));
    layout.sync(n, key, estimate);
    for (let m = 0; m < measures; m++) {
      const k = key(rowOf(m));
      const h = 100 + (m % 50);
      heights.set(k, h);
      layout.measure(k, h);
      const anchor = layout.keyAt(layout.tree.indexAt(1_000_000))!;
      sink += layout.tree.offset(layout.indexOf(anchor)!);
    }
  });
  console.log(`1,000 measurements of a 20,000-row list: ${before.toFixed(1)} ms recomputing the offsets, ${after.toFixed(2)} ms in the tree (sync included), ${(before / after).toFixed(0)}x`);
  expect(sink).toBeGreaterThan(0);
  expect(after * 10).toBeLessThan(before);
}, 60_000);
