// The incremental fold (issue 18): a run's history is folded page by page
// into what is already there (sync.ts readHistory folds each page as it
// arrives). Over every fold fixture of backend/run/testdata/fold (the logs
// the Go fold is checked against) and a big run, any split of the log into
// pages must give the state folding the whole log at once gives.

import { describe, expect, it } from "vitest";
import type { Event } from "../api/types";
import { bigRunEvents } from "../test/bigRun";
import { recordingEvents } from "../test/recording";
import { emptyTranscript, reduceRunBatch } from "./reducer";

const archives = import.meta.glob("../../../backend/run/testdata/fold/*.txtar", {
  query: "?raw",
  import: "default",
  eager: true,
}) as Record<string, string>;

// The logs of a txtar: each file ending in .jsonl.
function logsOf(text: string): [string, Event[]][] {
  const found = [...text.matchAll(/^-- (.+) --$/gm)];
  return found.flatMap((m, i) => {
    if (!m[1]!.endsWith(".jsonl")) return [];
    const start = m.index + m[0].length + 1;
    const end = i + 1 < found.length ? found[i + 1]!.index : text.length;
    const evs = text
      .slice(Math.min(start, end), end)
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => JSON.parse(l) as Event);
    return [[m[1]!, evs]];
  });
}

const logs: [string, Event[]][] = [
  ...Object.entries(archives).flatMap(([path, text]) => logsOf(text).map(([f, evs]): [string, Event[]] => [`${path.replace(/^.*\//, "")}:${f}`, evs])),
  ["recording", recordingEvents()],
  ["big run", bigRunEvents({ turns: 60 })],
];

// A small seeded generator (mulberry32): a failure names its seed.
function rand(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("a log folded in pages", () => {
  it("has the fixtures", () => {
    expect(logs.length).toBeGreaterThanOrEqual(10);
    for (const [name, evs] of logs) expect(evs.length, name).toBeGreaterThan(3);
  });

  for (const [name, evs] of logs) {
    it(`gives the state of the whole of ${name} folded at once`, () => {
      const runId = evs[0]!.run_id;
      const whole = reduceRunBatch(emptyTranscript(runId), evs);
      for (let seed = 1; seed <= 25; seed++) {
        const r = rand(seed);
        let t = emptyTranscript(runId);
        const before: unknown[] = [];
        for (let i = 0; i < evs.length; ) {
          const n = 1 + Math.floor(r() * Math.max(1, evs.length / 3));
          // A page may also overlap the last one (a page read again after a
          // reconnect): the events already applied are ignored.
          const from = r() < 0.2 ? Math.max(0, i - 2) : i;
          const prev = t;
          before.push(JSON.stringify(prev));
          t = reduceRunBatch(t, evs.slice(from, i + n));
          // The transcript a page was folded into is left as it was.
          expect(JSON.stringify(prev), `seed ${seed}`).toBe(before.at(-1));
          i += n;
        }
        expect(t, `${name}, seed ${seed}`).toEqual(whole);
      }
    });
  }
});
