import { HeightTree } from "./windowing";

// RowLayout is a list's row heights by index (a HeightTree) kept in step
// with the rows' keys, and the index of each key. Heights are remembered by
// key (measured, which the caller owns), so that a row keeps its measured
// height when rows before it come or go; rows not yet measured have their
// estimate.
//
// What each change costs: a row measured, O(log n); rows appended, O(n)
// string comparisons to check that the rows before them kept their keys,
// then O(log n) each; a row inserted or removed in the middle, or a new
// estimate, a rebuild in O(n). A render that changed none of count,
// itemKey and estimate costs nothing.
export class RowLayout {
  readonly tree = new HeightTree();
  private keys: string[] = [];
  private index = new Map<string, number>();
  private itemKey: ((i: number) => string) | undefined;
  private estimate: ((i: number) => number) | undefined;
  // How many times the layout was rebuilt from scratch: for tests.
  rebuilds = 0;

  constructor(private readonly measured: (key: string) => number | undefined) {}

  get count(): number {
    return this.keys.length;
  }

  // indexOf is the index of the row with key, if it is in the list.
  indexOf(key: string): number | undefined {
    return this.index.get(key);
  }

  keyAt(i: number): string | undefined {
    return this.keys[i];
  }

  // sync brings the layout to count rows with the keys of itemKey,
  // estimated by estimate until measured.
  sync(count: number, itemKey: (i: number) => string, estimate: (i: number) => number): void {
    if (count === this.keys.length && itemKey === this.itemKey && estimate === this.estimate) return;
    const keys = this.keys;
    const common = Math.min(count, keys.length);
    // The same function promises the same keys (the rows before count did
    // not change), but TimelinePanel's reads a ref: check them all, which
    // is cheap next to a rebuild, and happens when rows change, not when
    // they are measured or scrolled.
    for (let i = 0; i < common; i++) {
      if (itemKey(i) !== keys[i]) {
        this.rebuild(count, itemKey, estimate);
        return;
      }
    }
    if (estimate !== this.estimate) {
      for (let i = 0; i < common; i++) {
        if (this.measured(keys[i]!) === undefined) this.tree.set(i, estimate(i));
      }
    }
    if (count < keys.length) {
      for (let i = count; i < keys.length; i++) this.index.delete(keys[i]!);
      keys.length = count;
      this.tree.truncate(count);
    }
    for (let i = keys.length; i < count; i++) {
      const key = itemKey(i);
      keys.push(key);
      this.index.set(key, i);
      this.tree.push(this.measured(key) ?? estimate(i));
    }
    this.itemKey = itemKey;
    this.estimate = estimate;
  }

  private rebuild(count: number, itemKey: (i: number) => string, estimate: (i: number) => number): void {
    this.rebuilds++;
    const keys = new Array<string>(count);
    const index = new Map<string, number>();
    for (let i = 0; i < count; i++) {
      const key = itemKey(i);
      keys[i] = key;
      index.set(key, i);
    }
    this.tree.reset(count, (i) => this.measured(keys[i]!) ?? estimate(i));
    this.keys = keys;
    this.index = index;
    this.itemKey = itemKey;
    this.estimate = estimate;
  }

  // measure records that the row with key is h high, if it is in the list:
  // O(log n). The caller remembers h by key as well (measured).
  measure(key: string, h: number): void {
    const i = this.index.get(key);
    if (i !== undefined) this.tree.set(i, h);
  }
}
