// The arithmetic of a virtualised list, as pure functions: where each item
// starts, and which items a scroll position shows.

// offsetsOf is the prefix sums of the items' heights: offsets[i] is where
// item i starts, offsets[count] the height of the whole list.
export function offsetsOf(count: number, heightOf: (i: number) => number): Float64Array {
  const out = new Float64Array(count + 1);
  for (let i = 0; i < count; i++) out[i + 1] = out[i]! + heightOf(i);
  return out;
}

// indexAt is the item at height y: the last i with offsets[i] <= y, within
// [0, count-1] (0 for an empty list).
export function indexAt(offsets: Float64Array, y: number): number {
  const count = offsets.length - 1;
  if (count <= 0) return 0;
  let lo = 0;
  let hi = count - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (offsets[mid]! <= y) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

export type Range = { start: number; end: number }; // end exclusive

// visibleRange is the items that overlap [top - overscan, top + viewport +
// overscan].
export function visibleRange(offsets: Float64Array, top: number, viewport: number, overscan: number): Range {
  const count = offsets.length - 1;
  if (count <= 0) return { start: 0, end: 0 };
  const start = indexAt(offsets, Math.max(0, top - overscan));
  const last = indexAt(offsets, top + viewport + overscan);
  return { start, end: Math.min(count, last + 1) };
}
