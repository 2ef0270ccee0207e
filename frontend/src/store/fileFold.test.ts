import { describe, expect, it } from "vitest";
import type { Event, FileChangedData } from "../api/types";
import { emptyStream, reduce, type StreamState } from "./reducer";

const run = "run_1";

function log(...events: Omit<Event, "run_id" | "seq" | "ts">[]): Event[] {
  return events.map((e, i) => ({ run_id: run, seq: i + 1, ts: 1000 + i, ...e }));
}

const changed = (node_id: string, d: Partial<FileChangedData> & { path: string }): Omit<Event, "run_id" | "seq" | "ts"> => ({
  type: "file.changed",
  node_id,
  data: { size: 1, source: "tool", op: node_id, ...d },
});

const sumA = "a".repeat(64);
const sumB = "b".repeat(64);

const events = log(
  { type: "node.started", node_id: "n_w", data: { kind: "tool", label: "write_file", tool: "write_file", arguments: {} } },
  changed("n_w", { path: "a.txt", after: sumA }),
  changed("n_w", { path: "a.txt", before: sumA, after: sumB }),
  { type: "node.started", node_id: "n_p", data: { kind: "tool", label: "apply_patch", tool: "apply_patch", arguments: {} } },
  changed("n_p", { path: "b.txt", before: sumA, after: sumB }),
  changed("n_p", { path: "c.txt", before: sumA }),
  changed("n_p", { path: "d.txt", before_unknown: true, after: sumA, source: "command" }),
  // External and restore changes carry no node.
  changed("", { path: "e.txt", after: sumA, source: "external", op: "ext_1" }),
  changed("", { path: "a.txt", before: sumB, source: "undo", op: "undo_1", undoes: "n_w" }),
  { type: "llm.delta", node_id: "n_x", data: { text: "unrelated" } },
);

describe("reduce file.changed", () => {
  it("counts distinct paths in the order of their first change, and the last file.changed seq", () => {
    const t = events.reduce(reduce, emptyStream).runs[run]!;
    expect(t.files.paths).toEqual(["a.txt", "b.txt", "c.txt", "d.txt", "e.txt"]);
    expect(t.files.lastSeq).toBe(9);
    expect(t.lastSeq).toBe(10);
  });

  it("records on each tool node what it did to each file", () => {
    const t = events.reduce(reduce, emptyStream).runs[run]!;
    const files = (id: string) => {
      const n = t.nodes[id];
      return n?.kind === "tool" ? n.files : undefined;
    };
    // Created, then edited by the same call: still created.
    expect(files("n_w")).toEqual([{ path: "a.txt", kind: "created" }]);
    expect(files("n_p")).toEqual([
      { path: "b.txt", kind: "modified" },
      { path: "c.txt", kind: "deleted" },
      // Unknown before is not a creation.
      { path: "d.txt", kind: "modified" },
    ]);
  });

  it("ignores a replayed file.changed and one without a path", () => {
    const s: StreamState = events.reduce(reduce, emptyStream);
    expect(reduce(s, events[4]!)).toBe(s);
    const bad: Event = { run_id: run, seq: 11, ts: 2000, type: "file.changed", data: {} };
    const t = reduce(s, bad).runs[run]!;
    expect(t.files).toBe(s.runs[run]!.files);
    expect(t.lastSeq).toBe(11);
  });
});
