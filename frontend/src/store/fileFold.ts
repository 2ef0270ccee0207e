// The part of the reducer that folds file.changed events: which files the
// run changed (for the Files tab's count and its live refetch) and, on a
// tool node, what that call did to each file (for its transcript card).
// Pure, like the reducer it belongs to.

import type { Event, FileChangedData } from "../api/types";
import type { RunTranscript, TranscriptNode } from "./reducer";

// RunFiles is what the event stream says of a run's files. The diffs are
// not in the events (only content sums): the Files tab fetches them.
export type RunFiles = {
  // Distinct paths changed, in the order of their first change: by the
  // run's tools, its commands, from outside, or by an undo.
  paths: string[];
  // The seq of the last file.changed: a change of it means the Files view
  // is stale.
  lastSeq: number;
};

export const noFiles: RunFiles = { paths: [], lastSeq: 0 };

// What one call did to a file, from the sums alone: the events carry no
// line counts.
export type FileTouchKind = "created" | "modified" | "deleted";
export type FileTouch = { path: string; kind: FileTouchKind };

// touchKind is what a change did, from its sums: no after is a deletion, no
// before (and not an unknown one) a creation.
export function touchKind(d: Pick<FileChangedData, "before" | "after" | "before_unknown">): FileTouchKind {
  if (!d.after) return "deleted";
  if (!d.before && !d.before_unknown) return "created";
  return "modified";
}

// foldFileChanged applies one file.changed event to a run.
export function foldFileChanged(t: RunTranscript, e: Event): RunTranscript {
  const d = (e.data ?? {}) as Partial<FileChangedData>;
  if (typeof d.path !== "string" || d.path === "") return t;
  const path = d.path;
  const files: RunFiles = {
    paths: t.files.paths.includes(path) ? t.files.paths : [...t.files.paths, path],
    lastSeq: e.seq,
  };
  const n = e.node_id ? t.nodes[e.node_id] : undefined;
  if (n?.kind !== "tool" || !e.node_id) return { ...t, files };
  const node: TranscriptNode = { ...n, files: touch(n.files ?? [], path, touchKind(d)) };
  return { ...t, files, nodes: { ...t.nodes, [e.node_id]: node } };
}

// touch records one more change of path by the same call: a file the call
// created and then edited is still one it created.
function touch(list: FileTouch[], path: string, kind: FileTouchKind): FileTouch[] {
  const i = list.findIndex((f) => f.path === path);
  if (i < 0) return [...list, { path, kind }];
  const prev = list[i]!.kind;
  const next: FileTouchKind = prev === "created" && kind === "modified" ? "created" : kind;
  if (next === prev) return list;
  return list.map((f, j) => (j === i ? { path, kind: next } : f));
}
