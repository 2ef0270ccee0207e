// The player's folds against the Go fold: every fold fixture (a recorded
// log with what backend/run's Fold and workspace.ViewFiles make of it; see
// backend/run/fold_fixtures_test.go) must give the same conversations and
// files view here.

import { describe, expect, it } from "vitest";
import type { Event } from "../api/types";
import { filesView } from "./filesView";
import { nodeInput } from "./nodeInput";

const archives = import.meta.glob("../../../backend/run/testdata/fold/*.txtar", {
  query: "?raw",
  import: "default",
  eager: true,
}) as Record<string, string>;

// txtar: a comment, then files, each a line "-- name --" and its content.
function parseTxtar(text: string): Map<string, string> {
  const files = new Map<string, string>();
  const marker = /^-- (.+) --$/gm;
  const found = [...text.matchAll(marker)];
  found.forEach((m, i) => {
    const start = m.index + m[0].length + 1;
    const end = i + 1 < found.length ? found[i + 1]!.index : text.length;
    files.set(m[1]!, text.slice(Math.min(start, end), end));
  });
  return files;
}

function events(jsonl: string | undefined): Event[] {
  return (jsonl ?? "")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Event);
}

// Go writes an omitted field where the player writes undefined: compare as
// JSON values.
const asJSON = (v: unknown): unknown => JSON.parse(JSON.stringify(v ?? null));

const fixtures = Object.entries(archives).map(([path, text]) => ({ name: path.replace(/^.*\/|\.txtar$/g, ""), files: parseTxtar(text) }));

describe("the player's folds and the Go fold", () => {
  it("has the fixtures", () => {
    expect(fixtures.map((f) => f.name)).toEqual(
      expect.arrayContaining(["plain", "parallel-denied", "edit-approve", "steer", "fork", "interrupted-retried", "replay-diverged", "replay-edited"]),
    );
  });

  for (const { name, files } of fixtures) {
    describe(name, () => {
      for (const [log, inputs] of [
        ["events.jsonl", "inputs.json"],
        ["source.jsonl", "source-inputs.json"],
      ] as const) {
        if (!files.has(log)) continue;
        it(`gives each model call of ${log} the conversation the Go fold gives`, () => {
          const evs = events(files.get(log));
          const want = JSON.parse(files.get(inputs)!) as Record<string, unknown>;
          expect(Object.keys(want).length).toBeGreaterThan(0);
          for (const [node, input] of Object.entries(want)) {
            expect(asJSON(nodeInput(evs, node)), `model call ${node}`).toEqual(input);
          }
        });
      }

      if (files.has("files.json")) {
        it("gives the files view the Go fold gives", () => {
          const blobs = new Map<string, Uint8Array>();
          for (const [file, content] of files) {
            // A content is written with a final newline of its own.
            if (file.startsWith("blob/")) blobs.set(file.slice(5), new TextEncoder().encode(content.replace(/\n$/, "")));
          }
          const view = filesView(events(files.get("events.jsonl")), (sum) => blobs.get(sum));
          expect(asJSON(view)).toEqual(JSON.parse(files.get("files.json")!));
        });
      }
    });
  }
});
