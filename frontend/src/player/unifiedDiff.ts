// The unified diff of a file's two contents, as the server's journal gives
// it (backend/workspace/diff.go: difflib's format, 3 lines of context, a
// note instead of a diff for binary or identical contents), computed in the
// page from the recording's blobs. The lines come from Myers' algorithm
// rather than difflib's matcher: a hunk may be cut differently, the change
// it shows is the same.

// The longest diff text kept, as the server's MaxDiff.
export const maxDiff = 128 << 10;
// Past this many differing lines (after the common head and tail are set
// aside) the middle is shown as removed then added: Myers' trace grows with
// the square of the distance.
const maxEdits = 2000;
const context = 3;

const decoder = new TextDecoder("utf-8");

// fileDiff is workspace.Diff: the diff of path from before to after
// (undefined: the file did not exist, or was deleted), or a note.
export function fileDiff(path: string, before: Uint8Array | undefined, after: Uint8Array | undefined): { diff?: string; note?: string } {
  if (isBinary(before) || isBinary(after)) {
    return { note: `binary file: ${before?.length ?? 0} bytes before, ${after?.length ?? 0} after` };
  }
  if (!before && !after) return { note: "no difference: the file did not exist before and does not now" };
  if (before && after && sameBytes(before, after)) return { note: "no change in content" };
  const d = unifiedDiff(
    lines(before),
    lines(after),
    before ? `a/${path}` : "/dev/null",
    after ? `b/${path}` : "/dev/null",
  );
  if (d.length > maxDiff) {
    return { diff: d.slice(0, maxDiff), note: `diff cut at ${maxDiff >> 10} KiB of ${d.length >> 10}` };
  }
  return { diff: d };
}

// isBinary decides as git does: a NUL byte in the first 8 KiB.
function isBinary(b: Uint8Array | undefined): boolean {
  return !!b && b.subarray(0, 8 << 10).includes(0);
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

// lines splits a content into lines that keep their newline; a last line
// without one gets one, as the server's diff does.
export function lines(b: Uint8Array | undefined): string[] {
  if (!b || b.length === 0) return [];
  const text = decoder.decode(b);
  const out = text.split(/(?<=\n)/);
  const last = out.length - 1;
  if (!out[last]!.endsWith("\n")) out[last] += "\n";
  return out;
}

// Op is a run of the edit script, as difflib's opcodes: a[i1:i2] becomes b[j1:j2].
export type Op = { tag: "equal" | "replace" | "delete" | "insert"; i1: number; i2: number; j1: number; j2: number };

// unifiedDiff writes difflib's unified format; "" when a and b are equal.
export function unifiedDiff(a: readonly string[], b: readonly string[], from: string, to: string): string {
  const groups = groupOps(opcodes(a, b), context);
  if (groups.length === 0) return "";
  const out: string[] = [`--- ${from}\n`, `+++ ${to}\n`];
  for (const g of groups) {
    const first = g[0]!;
    const last = g[g.length - 1]!;
    out.push(`@@ -${range(first.i1, last.i2)} +${range(first.j1, last.j2)} @@\n`);
    for (const op of g) {
      if (op.tag === "equal") {
        for (let i = op.i1; i < op.i2; i++) out.push(" " + a[i]);
        continue;
      }
      for (let i = op.i1; i < op.i2; i++) out.push("-" + a[i]);
      for (let j = op.j1; j < op.j2; j++) out.push("+" + b[j]);
    }
  }
  return out.join("");
}

// range is difflib's _format_range_unified: "start,length", a lone line
// as "start", and an empty range starting at the line before it.
function range(start: number, stop: number): string {
  let beginning = start + 1;
  const length = stop - start;
  if (length === 1) return String(beginning);
  if (length === 0) beginning--;
  return `${beginning},${length}`;
}

// opcodes is the edit script from a to b: the common head and tail, and
// Myers' shortest script between them.
export function opcodes(a: readonly string[], b: readonly string[]): Op[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  // The lines of the middles that match, as [line of a, line of b].
  const pairs = middlePairs(a.slice(head, a.length - tail), b.slice(head, b.length - tail));
  const ops: Op[] = [];
  const push = (tag: Op["tag"], i1: number, i2: number, j1: number, j2: number) => {
    if (i1 === i2 && j1 === j2) return;
    const prev = ops[ops.length - 1];
    if (prev && prev.tag === tag && prev.i2 === i1 && prev.j2 === j1) {
      prev.i2 = i2;
      prev.j2 = j2;
      return;
    }
    ops.push({ tag, i1, i2, j1, j2 });
  };
  push("equal", 0, head, 0, head);
  let i = head;
  let j = head;
  for (const [pi, pj] of [...pairs.map(([x, y]) => [x + head, y + head] as const), [a.length - tail, b.length - tail] as const]) {
    if (i < pi || j < pj) push(i < pi && j < pj ? "replace" : i < pi ? "delete" : "insert", i, pi, j, pj);
    if (pi < a.length - tail) push("equal", pi, pi + 1, pj, pj + 1);
    i = pi + 1;
    j = pj + 1;
  }
  push("equal", a.length - tail, a.length, b.length - tail, b.length);
  return ops;
}

// middlePairs lists the matched lines [i, j] of Myers' shortest edit
// script from a to b, in order; none past maxEdits (all replaced).
function middlePairs(a: readonly string[], b: readonly string[]): [number, number][] {
  const n = a.length;
  const m = b.length;
  if (n === 0 || m === 0) return [];
  const max = Math.min(n + m, maxEdits);
  const off = max + 1;
  let v: Int32Array = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  let found = -1;
  for (let d = 0; d <= max && found < 0; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[off + k - 1]! < v[off + k + 1]!) ? v[off + k + 1]! : v[off + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[off + k] = x;
      if (x >= n && y >= m) {
        found = d;
        break;
      }
    }
  }
  if (found < 0) return [];
  // Walk the trace back from the end, collecting the diagonal moves.
  const pairs: [number, number][] = [];
  let x = n;
  let y = m;
  for (let d = found; d >= 0; d--) {
    v = trace[d]!;
    const k = x - y;
    const prevK = k === -d || (k !== d && v[off + k - 1]! < v[off + k + 1]!) ? k + 1 : k - 1;
    const prevX = d === 0 ? 0 : v[off + prevK]!;
    const prevY = d === 0 ? 0 : prevX - prevK;
    while (x > prevX && y > prevY) {
      x--;
      y--;
      pairs.push([x, y]);
    }
    x = prevX;
    y = prevY;
  }
  return pairs.reverse();
}

// groupOps is difflib's get_grouped_opcodes: hunks with n lines of context,
// changes closer than 2n lines in one hunk.
export function groupOps(ops: readonly Op[], n: number): Op[][] {
  if (!ops.some((o) => o.tag !== "equal")) return [];
  const codes = ops.map((o) => ({ ...o }));
  const first = codes[0]!;
  if (first.tag === "equal") {
    first.i1 = Math.max(first.i1, first.i2 - n);
    first.j1 = Math.max(first.j1, first.j2 - n);
  }
  const last = codes[codes.length - 1]!;
  if (last.tag === "equal") {
    last.i2 = Math.min(last.i2, last.i1 + n);
    last.j2 = Math.min(last.j2, last.j1 + n);
  }
  const groups: Op[][] = [];
  let group: Op[] = [];
  for (const c of codes) {
    let { i1, j1 } = c;
    if (c.tag === "equal" && c.i2 - c.i1 > 2 * n) {
      group.push({ tag: "equal", i1, i2: Math.min(c.i2, i1 + n), j1, j2: Math.min(c.j2, j1 + n) });
      groups.push(group);
      group = [];
      i1 = Math.max(i1, c.i2 - n);
      j1 = Math.max(j1, c.j2 - n);
    }
    group.push({ ...c, i1, j1 });
  }
  if (group.length > 0 && !(group.length === 1 && group[0]!.tag === "equal")) groups.push(group);
  return groups.filter((g) => g.some((o) => o.tag !== "equal"));
}
