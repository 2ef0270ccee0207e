// The Files tab's answer (GET /runs/{id}/files) computed from a recording:
// the file.changed events seen so far, with diffs of the blobs the
// recording carries. A port of backend/workspace view.go (ViewFiles), so
// the tab reads as it did live; the fold fixtures (backend/run/testdata/fold,
// read by fold.test.ts) pin the two to each other.

import type { ChangeView, Event, FileChangedData, FilesView, FileView } from "../api/types";
import { fileDiff } from "./unifiedDiff";

// BlobSource gives a file content by its SHA-256, or undefined when the
// recording does not hold it.
export type BlobSource = (sum: string) => Uint8Array | undefined;

type Diff = { diff?: string; note?: string };

// DiffCache keeps diffs by (path, before, after): the view is asked again
// after every burst of changes during playback, and most diffs are the same.
export type DiffCache = Map<string, Diff>;

export function filesView(events: readonly Event[], blob: BlobSource, cache: DiffCache = new Map()): FilesView {
  const diff = (path: string, before: string | undefined, after: string | undefined, unknown: boolean): Diff => {
    if (unknown) return { note: "what the file held before is not known: it changed before the run had seen it" };
    const key = `${path}\u0000${before ?? ""}\u0000${after ?? ""}`;
    let d = cache.get(key);
    if (!d) {
      d = diffOf(path, before, after, blob);
      cache.set(key, d);
    }
    return d;
  };

  const byPath = new Map<string, FileView>();
  const first = new Map<string, FileChangedData>();
  for (const e of events) {
    if (e.type !== "file.changed") continue;
    const c = e.data as FileChangedData;
    if (typeof c?.path !== "string" || c.path === "") continue;
    let f = byPath.get(c.path);
    if (!f) {
      f = { path: c.path, status: "modified", external: false, changes: [] };
      byPath.set(c.path, f);
      first.set(c.path, c);
    }
    const d = diff(c.path, c.before, c.after, !!c.before_unknown);
    const cv: ChangeView = {
      seq: e.seq,
      node_id: e.node_id || undefined,
      op: c.op,
      source: c.source,
      undoes: c.undoes || undefined,
      before: c.before || undefined,
      after: c.after || undefined,
      before_unknown: c.before_unknown || undefined,
      size: c.size ?? 0,
      created_at: e.ts,
      diff: d.diff || undefined,
      diff_note: d.note || undefined,
    };
    f.changes.push(cv);
    if (c.source === "command" || c.source === "external") f.external = true;
  }

  const files: FileView[] = [];
  for (const [path, f] of byPath) {
    const c0 = first.get(path)!;
    const last = f.changes[f.changes.length - 1]!;
    const before = c0.before || undefined;
    const after = last.after || undefined;
    if (c0.before_unknown) f.status = "modified";
    else if (!before && after) f.status = "added";
    else if (before && !after) f.status = "deleted";
    else if (before === after) f.status = "unchanged";
    else f.status = "modified";
    const d = diff(path, before, after, !!c0.before_unknown);
    files.push({ ...f, diff: d.diff || undefined, diff_note: d.note || undefined });
  }
  return { files };
}

function diffOf(path: string, before: string | undefined, after: string | undefined, blob: BlobSource): Diff {
  const a = before ? blob(before) : undefined;
  const b = after ? blob(after) : undefined;
  if ((before && !a) || (after && !b)) {
    return { note: "no diff: the content is not in this recording (it was not kept, or was too large)" };
  }
  return fileDiff(path, a, b);
}
