// The arithmetic of a virtualised list: where each item starts, and which
// items a scroll position shows. offsetsOf and indexAt are the plain array
// form; HeightTree keeps the same figures under point updates, which is
// what a list whose rows are measured one by one needs; RowLayout ties the
// tree to the rows' keys.

// offsetsOf is the prefix sums of the items' heights: offsets[i] is where
// item i starts, offsets[count] the height of the whole list. O(n): for a
// list measured row by row use HeightTree.
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

// Layout is what visibleRange asks of a list's heights.
export interface Layout {
  readonly count: number;
  offset(i: number): number;
  indexAt(y: number): number;
}

// HeightTree holds the heights of count rows in a Fenwick (binary indexed)
// tree: setting one row's height, the offset of a row and the row at an
// offset each cost O(log n), where the prefix-sum array costs O(n) per
// change. Rows are appended in amortised O(log n): the arrays double when
// full and are rebuilt in O(n) then. Heights must not be negative.
export class HeightTree implements Layout {
  // vals[i] is row i's height; tree[j] (1-based) the sum of the heights of
  // rows (j - lowbit(j), j]. Both are zero past count.
  private vals: Float64Array;
  private tree: Float64Array;
  private n = 0;

  constructor(count = 0, heightOf: (i: number) => number = () => 0) {
    this.vals = new Float64Array(0);
    this.tree = new Float64Array(1);
    this.reset(count, heightOf);
  }

  get count(): number {
    return this.n;
  }

  // total is the height of all the rows.
  get total(): number {
    return this.offset(this.n);
  }

  // reset replaces every row: O(n).
  reset(count: number, heightOf: (i: number) => number): void {
    let cap = 16;
    while (cap < count) cap *= 2;
    this.vals = new Float64Array(cap);
    for (let i = 0; i < count; i++) this.vals[i] = heightOf(i);
    this.n = count;
    this.build();
  }

  // build fills the tree from vals in O(n): each node passes its sum to
  // its parent.
  private build(): void {
    const cap = this.vals.length;
    const tree = new Float64Array(cap + 1);
    tree.set(this.vals.subarray(0, this.n), 1);
    for (let j = 1; j <= cap; j++) {
      const up = j + (j & -j);
      if (up <= cap) tree[up]! += tree[j]!;
    }
    this.tree = tree;
  }

  height(i: number): number {
    return this.vals[i]!;
  }

  // set changes row i's height (0 <= i < count).
  set(i: number, h: number): void {
    const d = h - this.vals[i]!;
    if (d === 0) return;
    this.vals[i] = h;
    const cap = this.vals.length;
    for (let j = i + 1; j <= cap; j += j & -j) this.tree[j]! += d;
  }

  // push appends a row.
  push(h: number): void {
    if (this.n === this.vals.length) {
      const vals = new Float64Array(this.vals.length * 2);
      vals.set(this.vals);
      this.vals = vals;
      vals[this.n++] = h;
      this.build();
      return;
    }
    this.n++;
    this.set(this.n - 1, h);
  }

  // truncate drops the rows from count on: O(k log n) for k rows dropped.
  truncate(count: number): void {
    for (let i = this.n - 1; i >= count; i--) this.set(i, 0);
    this.n = Math.min(this.n, Math.max(0, count));
  }

  // offset is where row i starts (0 <= i <= count): the sum of the heights
  // of rows [0, i).
  offset(i: number): number {
    let s = 0;
    for (let j = i; j > 0; j -= j & -j) s += this.tree[j]!;
    return s;
  }

  // indexAt is the row at height y, as the function of the same name: the
  // last i with offset(i) <= y, within [0, count-1]. It descends the tree
  // (binary lifting) in O(log n).
  indexAt(y: number): number {
    if (this.n === 0) return 0;
    let pos = 0;
    let rem = y;
    for (let step = this.vals.length; step > 0; step >>= 1) {
      const next = pos + step;
      if (next <= this.n && this.tree[next]! <= rem) {
        pos = next;
        rem -= this.tree[next]!;
      }
    }
    return Math.min(pos, this.n - 1);
  }
}

// arrayLayout is the Layout of a prefix-sum array from offsetsOf.
function arrayLayout(offsets: Float64Array): Layout {
  return { count: offsets.length - 1, offset: (i) => offsets[i]!, indexAt: (y) => indexAt(offsets, y) };
}

export type Range = { start: number; end: number }; // end exclusive

// visibleRange is the items that overlap [top - overscan, top + viewport +
// overscan].
export function visibleRange(layout: Float64Array | Layout, top: number, viewport: number, overscan: number): Range {
  const l = layout instanceof Float64Array ? arrayLayout(layout) : layout;
  if (l.count <= 0) return { start: 0, end: 0 };
  const start = l.indexAt(Math.max(0, top - overscan));
  const last = l.indexAt(top + viewport + overscan);
  return { start, end: Math.min(l.count, last + 1) };
}
